/**
 * SQL Server adapter on mssql/tedious: the request streams rows with back-pressure, read in batches. Every
 * batch runs inside a transaction that is rolled back after it (docs/security.md, "Source queries").
 */
import type { Readable } from 'node:stream';
import type { MssqlConfig } from '../conn-string/index';
import type { ColumnInfo } from '../source-port';
import { readBatch } from './batches';
import type { Driver, DriverCursor, DriverSession } from './driver';
import { ReadOnlyQueryError } from './errors';
import { refuseTransactionControl } from './read-only';

// The part of the mssql module the adapter uses (the package has no types).
interface MssqlRequest {
  stream: boolean;
  on(
    event: 'recordset',
    fn: (columns: Record<string, { index: number; name: string; type?: { declaration?: string } }>) => void,
  ): void;
  toReadableStream(options: { highWaterMark: number }): Readable;
  query(sql: string, callback: (err: unknown) => void): void;
  cancel(): void;
}
interface MssqlTransaction {
  begin(): Promise<unknown>;
  rollback(): Promise<void>;
  request(): MssqlRequest;
}
interface MssqlPool {
  connect(): Promise<MssqlPool>;
  close(): Promise<void>;
  transaction(): MssqlTransaction;
  on(event: 'error', fn: (err: unknown) => void): void;
}
interface MssqlModule {
  ConnectionPool: new (config: Record<string, unknown>) => MssqlPool;
}

async function loadMssql(): Promise<MssqlModule> {
  const mod = (await import('mssql')) as { default?: MssqlModule } & MssqlModule;
  return mod.default ?? mod;
}

/** How long a cancelled request may take to let go of the connection before the connection is closed instead. */
const RELEASE_WAIT_MS = 5_000;

function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Sent before the query in the same batch (and so never lets the query's first word name a procedure). */
export const BATCH_PREFIX = 'SET NOCOUNT ON; ';

/** Exported for tests, which drive it with a stand-in connection. */
export class MssqlSession implements DriverSession {
  constructor(private readonly pool: MssqlPool) {}

  async query(text: string, batchSize: number, signal: AbortSignal): Promise<DriverCursor> {
    refuseTransactionControl(text);
    const pool = this.pool;
    const tx = pool.transaction();
    await tx.begin();
    const request = tx.request();
    request.stream = true;
    let columns: ColumnInfo[] | undefined;
    request.on('recordset', (cols) => {
      columns ??= Object.values(cols)
        .sort((a, b) => a.index - b.index)
        .map((c) => (c.type?.declaration ? { name: c.name, type: c.type.declaration } : { name: c.name }));
    });
    const readable = request.toReadableStream({ highWaterMark: batchSize });
    // Errors are read from readable.errored by the next batch; without a listener they would crash the process.
    readable.on('error', () => {});
    // The batch never starts with the user's text: a procedure name first in a batch runs without EXEC.
    const ran = new Promise<void>((resolve) => request.query(`${BATCH_PREFIX}${text}`, () => resolve()));
    const cancel = () => {
      request.cancel();
      readable.destroy();
    };
    signal.addEventListener('abort', cancel, { once: true });
    let ended = false;
    /** Rolls back once the request has let go of the connection; false when the text ended the transaction. */
    const rollback = async (): Promise<boolean> => {
      if (ended) return true;
      ended = true;
      signal.removeEventListener('abort', cancel);
      if (!(await settlesWithin(ran, RELEASE_WAIT_MS))) return false;
      return tx.rollback().then(
        () => true,
        () => false,
      );
    };
    return {
      async next() {
        let rows: Awaited<ReturnType<typeof readBatch>>;
        try {
          rows = await readBatch(readable, batchSize);
        } catch (e) {
          await rollback();
          throw e;
        }
        if (!rows && !(await rollback())) {
          throw new ReadOnlyQueryError(
            'the query ended the transaction it runs in, so what it wrote may stand; give the connector a login that can only read',
          );
        }
        return rows;
      },
      async columns() {
        return columns ?? [];
      },
      async cancel() {
        if (ended) return;
        cancel();
        // A transaction that could not be rolled back ends with the connection (the server rolls it back).
        if (!(await rollback())) await pool.close().catch(() => {});
      },
    };
  }

  async close(): Promise<void> {
    await this.pool.close().catch(() => {});
  }
}

/** The mssql pool config: one connection, the caller's bound on connecting, no driver cap on queries. */
export function mssqlPoolConfig(config: MssqlConfig, timeoutMs: number): Record<string, unknown> {
  return {
    ...config,
    connectionTimeout: Math.min(config.connectionTimeout ?? timeoutMs, timeoutMs),
    // The runner bounds every round trip itself; tedious' 15 s default would cut long loads.
    requestTimeout: config.requestTimeout ?? 0,
    options: { appName: 'anomaly-monitor', ...config.options },
    pool: { max: 1, min: 0, idleTimeoutMillis: 60_000 },
  };
}

/** Also serves fabric, whose config differs only in its authentication. */
export function mssqlDriver(config: MssqlConfig): Driver {
  return {
    testSql: 'select 1 as ok',
    async connect(timeoutMs: number, signal: AbortSignal): Promise<DriverSession> {
      const mssql = await loadMssql();
      const pool = new mssql.ConnectionPool(mssqlPoolConfig(config, timeoutMs));
      pool.on('error', () => {}); // reported through the pending call instead
      const onAbort = () => void pool.close().catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        await pool.connect();
      } catch (e) {
        await pool.close().catch(() => {});
        throw e;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      return new MssqlSession(pool);
    },
  };
}
