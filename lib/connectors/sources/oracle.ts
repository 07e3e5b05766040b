/**
 * Oracle adapter on node-oracledb in thin mode (pure JavaScript, no client libraries): a result set read in
 * batches, inside a read-only transaction that is rolled back after it (docs/security.md, "Source queries").
 */
import type { OracleConfig } from '../conn-string/index';
import type { ColumnInfo } from '../source-port';
import type { Driver, DriverCursor, DriverSession, Row } from './driver';
import { requireQuery } from './read-only';

// The part of node-oracledb the adapter uses (the package has no types).
interface OracleResultSet {
  getRows(n: number): Promise<Row[]>;
  close(): Promise<void>;
}
interface OracleConnection {
  execute(
    sql: string,
    binds: unknown[],
    options: Record<string, unknown>,
  ): Promise<{
    resultSet?: OracleResultSet;
    metaData?: Array<{ name: string; dbTypeName?: string }>;
    rows?: Row[];
  }>;
  break(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}
interface OracleModule {
  getConnection(attrs: Record<string, unknown>): Promise<OracleConnection>;
  OUT_FORMAT_OBJECT: number;
  STRING: number;
  BUFFER: number;
  DB_TYPE_CLOB: unknown;
  DB_TYPE_NCLOB: unknown;
  DB_TYPE_BLOB: unknown;
}

async function loadOracle(): Promise<OracleModule> {
  const mod = (await import('oracledb')) as { default?: OracleModule } & OracleModule;
  return mod.default ?? mod;
}

/** Exported for tests, which drive it with a stand-in connection. */
export class OracleSession implements DriverSession {
  constructor(
    private readonly db: OracleModule,
    private readonly conn: OracleConnection,
  ) {}

  async query(text: string, batchSize: number, signal: AbortSignal): Promise<DriverCursor> {
    const { conn } = this;
    requireQuery(text, 'Oracle');
    // Must be the first statement of a transaction: every query ends with a rollback, so it is.
    await conn.execute('SET TRANSACTION READ ONLY', [], {});
    // break() interrupts whatever the connection is running, on the server too.
    const onAbort = () => void conn.break().catch(() => {});
    signal.addEventListener('abort', onAbort, { once: true });
    let inTransaction = true;
    const endTransaction = async () => {
      if (!inTransaction) return;
      inTransaction = false;
      await conn.rollback().catch(() => {});
    };
    let result: Awaited<ReturnType<OracleConnection['execute']>>;
    try {
      result = await this.execute(text, batchSize);
    } catch (e) {
      signal.removeEventListener('abort', onAbort);
      await endTransaction();
      throw e;
    }
    const columns: ColumnInfo[] = (result.metaData ?? []).map((m) =>
      m.dbTypeName ? { name: m.name, type: m.dbTypeName } : { name: m.name },
    );
    const rs = result.resultSet;
    let open = Boolean(rs);
    const closeResultSet = async () => {
      signal.removeEventListener('abort', onAbort);
      if (open && rs) {
        open = false;
        await rs.close().catch(() => {});
      }
      await endTransaction();
    };
    return {
      async next() {
        if (!rs || !open) {
          await closeResultSet();
          return undefined;
        }
        let rows: Row[];
        try {
          rows = await rs.getRows(batchSize);
        } catch (e) {
          await closeResultSet();
          throw e;
        }
        if (rows.length === 0) {
          await closeResultSet();
          return undefined;
        }
        return rows;
      },
      async columns() {
        return columns;
      },
      async cancel() {
        if (open) await conn.break().catch(() => {});
        await closeResultSet();
      },
    };
  }

  private execute(text: string, batchSize: number) {
    const { db, conn } = this;
    return conn.execute(text, [], {
      resultSet: true,
      outFormat: db.OUT_FORMAT_OBJECT,
      fetchArraySize: Math.min(Math.max(batchSize, 1), 10_000),
      // LOBs come back as streams by default; a load wants plain values.
      fetchTypeHandler: (meta: { dbType: unknown }) => {
        if (meta.dbType === db.DB_TYPE_CLOB || meta.dbType === db.DB_TYPE_NCLOB) return { type: db.STRING };
        if (meta.dbType === db.DB_TYPE_BLOB) return { type: db.BUFFER };
        return undefined;
      },
    });
  }

  async close(): Promise<void> {
    await this.conn.close().catch(() => {});
  }
}

export function oracleDriver(config: OracleConfig): Driver {
  return {
    testSql: 'select 1 as ok from dual',
    async connect(timeoutMs: number): Promise<DriverSession> {
      const db = await loadOracle();
      const seconds = Math.max(1, Math.ceil(Math.min(config.connectTimeout ?? Infinity, timeoutMs / 1000)));
      const conn = await db.getConnection({
        ...config,
        connectTimeout: seconds,
        transportConnectTimeout: seconds,
        // Fail at once instead of the thin driver's own retries: the runner decides about retrying.
        retryCount: 0,
      });
      return new OracleSession(db, conn);
    },
  };
}
