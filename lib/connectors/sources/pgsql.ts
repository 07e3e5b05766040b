/**
 * PostgreSQL adapter on postgres.js: a server-side portal read in batches (`cursor`), inside a READ ONLY
 * transaction with a server-side `statement_timeout`, rolled back at the end. The extended protocol takes one
 * statement per query, so `SELECT 1; DELETE …` is refused by the server.
 */
import type { PgConfig } from '../conn-string/index';
import type { ColumnInfo } from '../source-port';
import type { Driver, DriverCursor, DriverSession, QueryOptions, Row } from './driver';

type Sql = import('postgres').Sql;
type ReservedSql = import('postgres').ReservedSql;
type PgOptions = import('postgres').Options<Record<string, import('postgres').PostgresType>>;

// Names of the common built-in type OIDs; other types are reported without a name.
const PG_TYPES: Record<number, string> = {
  16: 'bool',
  17: 'bytea',
  18: 'char',
  19: 'name',
  20: 'int8',
  21: 'int2',
  23: 'int4',
  25: 'text',
  26: 'oid',
  114: 'json',
  700: 'float4',
  701: 'float8',
  1042: 'bpchar',
  1043: 'varchar',
  1082: 'date',
  1083: 'time',
  1114: 'timestamp',
  1184: 'timestamptz',
  1186: 'interval',
  1700: 'numeric',
  2950: 'uuid',
  3802: 'jsonb',
};

function columnsOf(cols: ReadonlyArray<{ name: string; type: number }> | undefined): ColumnInfo[] {
  return (cols ?? []).map((c) =>
    PG_TYPES[c.type] ? { name: c.name, type: PG_TYPES[c.type] } : { name: c.name },
  );
}

/** postgres.js options from the parsed connection string; the caller's bound caps connect_timeout. */
export function postgresOptions(config: PgConfig, timeoutMs: number): PgOptions {
  const { sslMode: _mode, password, ...options } = config;
  const bound = Math.max(1, Math.ceil(timeoutMs / 1000));
  return {
    ...options,
    // postgres.js falls back to PG* environment variables for empty options: never let a source connector
    // pick up the service's own database name or password that way.
    database: config.database ?? config.username,
    pass: password || (() => ''),
    connect_timeout: Math.min(config.connect_timeout ?? bound, bound),
    max: 1,
    idle_timeout: 60,
    prepare: false,
    // postgres.js 3.4 never hands out a reserved connection when fetch_types is off: keep the default.
    fetch_types: true,
    onnotice: () => {},
    connection: { application_name: 'anomaly-monitor', ...config.connection },
  } as unknown as PgOptions;
}

class PgSession implements DriverSession {
  constructor(
    private readonly pool: Sql,
    private readonly sql: ReservedSql,
  ) {}

  async query(
    text: string,
    batchSize: number,
    signal: AbortSignal,
    options: QueryOptions = {},
  ): Promise<DriverCursor> {
    const sql = this.sql;
    await sql.unsafe('BEGIN TRANSACTION READ ONLY');
    let open = true;
    const end = async () => {
      if (!open) return;
      open = false;
      await sql.unsafe('ROLLBACK').catch(() => {});
    };
    try {
      if (options.statementTimeoutMs)
        await sql.unsafe(
          `SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(options.statementTimeoutMs))}`,
        );
    } catch (e) {
      await end();
      throw e;
    }
    const q = sql.unsafe(text);
    const it = q.cursor(batchSize)[Symbol.asyncIterator]();
    let columns: ColumnInfo[] | undefined;
    // A cancel request stops the statement on the server; PGlite ignores it, so the runner also drops the connection.
    const onAbort = () => void Promise.resolve(q.cancel()).catch(() => {});
    signal.addEventListener('abort', onAbort, { once: true });
    return {
      async next() {
        const r = await it.next();
        if (r.done) {
          signal.removeEventListener('abort', onAbort);
          await end();
          return undefined;
        }
        const batch = r.value as unknown as Row[] & { columns?: Array<{ name: string; type: number }> };
        columns ??= columnsOf(batch.columns);
        return Array.from(batch);
      },
      async columns() {
        if (columns) return columns;
        // No row came back, so no batch carried the columns: ask the server to describe the statement.
        const described = await sql.unsafe(text).describe();
        columns = columnsOf(described.columns as Array<{ name: string; type: number }>);
        return columns;
      },
      async cancel() {
        signal.removeEventListener('abort', onAbort);
        await it.return?.();
        await end();
      },
    };
  }

  async close(): Promise<void> {
    this.sql.release();
    await this.pool.end({ timeout: 0 }).catch(() => {});
  }
}

export function pgsqlDriver(config: PgConfig): Driver {
  return {
    testSql: 'select 1',
    async connect(timeoutMs: number, signal: AbortSignal): Promise<DriverSession> {
      const { default: postgres } = await import('postgres');
      const pool = postgres(postgresOptions(config, timeoutMs));
      // Reserving the one connection opens it now, so connect failures and timeouts are reported as such.
      const onAbort = () => void pool.end({ timeout: 0 }).catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return new PgSession(pool, await pool.reserve());
      } catch (e) {
        await pool.end({ timeout: 0 }).catch(() => {});
        throw e;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
