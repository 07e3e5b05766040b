/**
 * Snowflake adapter on snowflake-sdk: streamed result rows read in batches, login bounded by our own timer.
 * A query must be one SELECT and runs in a transaction that is rolled back (docs/security.md, "Source queries").
 */
import type { Readable } from 'node:stream';
import type { Connection, RowStatement } from 'snowflake-sdk';
import type { SnowflakeConfig } from '../conn-string/index';
import type { ColumnInfo } from '../source-port';
import { readBatch } from './batches';
import type { Driver, DriverCursor, DriverSession } from './driver';
import { requireQuery } from './read-only';

type SnowflakeModule = typeof import('snowflake-sdk');

const silent = { error() {}, warn() {}, info() {}, debug() {}, trace() {} };
let loaded: Promise<SnowflakeModule> | undefined;

/**
 * The driver logs through a custom silent logger: its default writes snowflake.log into the working
 * directory (read-only in a Lambda) and its messages are not ours to show.
 */
function loadSnowflake(): Promise<SnowflakeModule> {
  loaded ??= import('snowflake-sdk').then((mod) => {
    const sf = ((mod as { default?: SnowflakeModule }).default ?? mod) as SnowflakeModule;
    sf.configure({ customLogger: silent, logLevel: 'ERROR' });
    return sf;
  });
  return loaded;
}

function destroy(conn: Connection): Promise<void> {
  return new Promise((resolve) => {
    try {
      conn.destroy(() => resolve());
    } catch {
      resolve();
    }
  });
}

/** Exported for tests, which drive it with a stand-in connection. */
export class SnowflakeSession implements DriverSession {
  constructor(private readonly conn: Connection) {}

  /** Runs a statement that returns nothing the adapter reads (BEGIN, ROLLBACK). */
  private run(sqlText: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.conn.execute({
        sqlText,
        parameters: { MULTI_STATEMENT_COUNT: 1 },
        complete: (err) => (err ? reject(err) : resolve()),
      });
    });
  }

  async query(text: string, batchSize: number, signal: AbortSignal): Promise<DriverCursor> {
    requireQuery(text, 'Snowflake');
    await this.run('BEGIN');
    let inTransaction = true;
    const rollback = async () => {
      if (!inTransaction) return;
      inTransaction = false;
      await this.run('ROLLBACK').catch(() => {});
    };
    let statement: RowStatement | undefined;
    const done = new Promise<RowStatement>((resolve, reject) => {
      statement = this.conn.execute({
        sqlText: text,
        streamResult: true,
        // One statement per query, whatever the account's or user's default says.
        parameters: { MULTI_STATEMENT_COUNT: 1 },
        complete: (err, stmt) => (err ? reject(err) : resolve(stmt)),
      }) as RowStatement;
    });
    const cancelStatement = () => statement?.cancel(() => {});
    signal.addEventListener('abort', cancelStatement, { once: true });
    let stmt: RowStatement;
    try {
      stmt = await done;
    } catch (e) {
      signal.removeEventListener('abort', cancelStatement);
      await rollback();
      throw e;
    }
    const columns: ColumnInfo[] = (stmt.getColumns() ?? []).map((c) => ({
      name: c.getName(),
      type: c.getType(),
    }));
    const readable: Readable = stmt.streamRows();
    readable.on('error', () => {}); // read from readable.errored by the next batch
    let finished = false;
    return {
      async next() {
        let rows: Awaited<ReturnType<typeof readBatch>>;
        try {
          rows = await readBatch(readable, batchSize);
        } catch (e) {
          signal.removeEventListener('abort', cancelStatement);
          await rollback();
          throw e;
        }
        if (!rows) {
          finished = true;
          signal.removeEventListener('abort', cancelStatement);
          await rollback();
        }
        return rows;
      },
      async columns() {
        return columns;
      },
      async cancel() {
        signal.removeEventListener('abort', cancelStatement);
        readable.destroy();
        if (!finished) cancelStatement();
        await rollback();
      },
    };
  }

  close(): Promise<void> {
    return destroy(this.conn);
  }
}

export function snowflakeDriver(config: SnowflakeConfig): Driver {
  return {
    testSql: 'select 1 as ok',
    async connect(timeoutMs: number, signal: AbortSignal): Promise<DriverSession> {
      const sf = await loadSnowflake();
      const conn = sf.createConnection({
        ...config,
        // Left alone, the driver retries a failed login for minutes; one attempt, bounded by the caller.
        timeout: Math.min(config.timeout ?? timeoutMs, timeoutMs),
        sfRetryMaxLoginRetries: 0,
        clientSessionKeepAlive: false,
      });
      const onAbort = () => void destroy(conn);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        await new Promise<void>((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve())));
      } catch (e) {
        await destroy(conn);
        throw e;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      return new SnowflakeSession(conn);
    },
  };
}
