/** SQL Server adapter on mssql/tedious: the request streams rows with back-pressure, read in batches. */
import type { Readable } from 'node:stream';
import type { MssqlConfig } from '../conn-string/index';
import type { ColumnInfo } from '../source-port';
import { readBatch } from './batches';
import type { Driver, DriverCursor, DriverSession } from './driver';

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
interface MssqlPool {
  connect(): Promise<MssqlPool>;
  close(): Promise<void>;
  request(): MssqlRequest;
  on(event: 'error', fn: (err: unknown) => void): void;
}
interface MssqlModule {
  ConnectionPool: new (config: Record<string, unknown>) => MssqlPool;
}

async function loadMssql(): Promise<MssqlModule> {
  const mod = (await import('mssql')) as { default?: MssqlModule } & MssqlModule;
  return mod.default ?? mod;
}

/** Exported for tests, which drive it with a stand-in connection. */
export class MssqlSession implements DriverSession {
  constructor(private readonly pool: MssqlPool) {}

  async query(text: string, batchSize: number, signal: AbortSignal): Promise<DriverCursor> {
    const request = this.pool.request();
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
    request.query(text, () => {});
    const cancel = () => {
      request.cancel();
      readable.destroy();
    };
    signal.addEventListener('abort', cancel, { once: true });
    let done = false;
    return {
      async next() {
        const rows = await readBatch(readable, batchSize);
        if (!rows) {
          done = true;
          signal.removeEventListener('abort', cancel);
        }
        return rows;
      },
      async columns() {
        return columns ?? [];
      },
      async cancel() {
        signal.removeEventListener('abort', cancel);
        if (!done) cancel();
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
