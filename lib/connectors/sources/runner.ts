/** Wraps a database adapter into a SourceConnector: one timer and one abort path around every driver call. */
import { AppError, UpstreamError } from '../../shared/errors';
import { DIALECTS } from '../dialect';
import type { PreviewResult, SourceConnector, SqlDialect, StreamOptions } from '../source-port';
import type { ColumnBatch, Driver, DriverCursor, DriverSession, Row } from './driver';
import { type ErrorContext, toUpstreamError } from './errors';

export type { Driver } from './driver';

export interface RunnerOptions extends ErrorContext {
  timeoutMs: number;
  queryTimeoutMs: number;
  /** The SQL dialect of the database (default PostgreSQL's). */
  dialect?: SqlDialect;
}

/** "3 s", "1.5 s", "250 ms". */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

const CANCEL_GRACE_MS = 5_000;
/** The grace of a cancel after a timeout or the caller's abort (an API request's deadline is near). */
const ABORTED_CANCEL_GRACE_MS = 1_000;
/** The most rows a preview fetches. */
export const PREVIEW_MAX_ROWS = 10;

/** An AbortController that also aborts when the caller's signal does. */
function linked(signal: AbortSignal | undefined, what: string): { ac: AbortController; unlink: () => void } {
  const ac = new AbortController();
  if (!signal) return { ac, unlink: () => {} };
  const onAbort = () => ac.abort(new UpstreamError(`${what} cancelled`));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { ac, unlink: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * Settles with `work` or rejects as soon as the timer fires or `ac` aborts, whichever comes first; the
 * driver sees the abort through the signal it was given. A result that arrives too late goes to `onLate`.
 */
function race<T>(
  work: Promise<T>,
  ac: AbortController,
  ms: number,
  onTimeout: () => AppError,
  mapError: (e: unknown) => AppError,
  onLate?: (value: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      ac.signal.removeEventListener('abort', onAbort);
      fn();
      return true;
    };
    const onAbort = () => {
      const reason = ac.signal.reason;
      settle(() => reject(reason instanceof AppError ? reason : new UpstreamError('cancelled')));
    };
    const timer = setTimeout(() => ac.abort(onTimeout()), ms);
    if (ac.signal.aborted) onAbort();
    else ac.signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        if (!settle(() => resolve(v))) onLate?.(v);
      },
      (e) => settle(() => reject(mapError(e))),
    );
  });
}

/** Builds the SourceConnector of a driver; no I/O happens until the first call. */
export function createSource(driver: Driver, o: RunnerOptions): SourceConnector {
  let session: DriverSession | undefined;
  let connecting: Promise<DriverSession> | undefined;
  let closed = false;
  const connectTimeout = (ms: number) => () =>
    new UpstreamError(`could not connect to ${o.target}: timed out after ${formatDuration(ms)}`);

  function connect(ms: number, signal?: AbortSignal): Promise<DriverSession> {
    if (closed) return Promise.reject(new UpstreamError('the connector is closed'));
    if (session) return Promise.resolve(session);
    if (!connecting) {
      const { ac, unlink } = linked(signal, 'connection');
      connecting = race(
        driver.connect(ms, ac.signal),
        ac,
        ms,
        connectTimeout(ms),
        (e) => toUpstreamError(e, o, 'connect'),
        (late) => void late.close(),
      )
        .then((s) => {
          if (closed) {
            void s.close();
            throw new UpstreamError('the connector is closed');
          }
          session = s;
          return s;
        })
        .finally(() => {
          unlink();
          connecting = undefined;
        });
    }
    return connecting;
  }

  /** After a timeout or failure mid-query the connection's state is unknown: drop it, reconnect next time. */
  function dropSession() {
    const s = session;
    session = undefined;
    if (s) void s.close();
  }

  async function stop(cursor: DriverCursor | undefined, grace = CANCEL_GRACE_MS) {
    if (!cursor) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      cursor.cancel().catch(() => {}),
      new Promise((r) => {
        timer = setTimeout(r, grace);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Starts `sql`; every later step of the run is bounded by `ms` and aborts with the caller's signal. */
  async function openQuery(
    sql: string,
    batchSize: number,
    ms: number,
    signal: AbortSignal | undefined,
    what: string,
    bulk = false,
  ) {
    const s = await connect(Math.min(o.timeoutMs, ms), signal);
    const { ac, unlink } = linked(signal, what);
    const timeout = () => new UpstreamError(`${what} timed out after ${formatDuration(ms)}`);
    const mapError = (e: unknown) => toUpstreamError(e, o, 'query');
    const bound = <T>(p: Promise<T>, onLate?: (v: T) => void) => race(p, ac, ms, timeout, mapError, onLate);
    let cursor: DriverCursor;
    try {
      cursor = await bound(
        s.query(sql, batchSize, ac.signal, { statementTimeoutMs: ms, bulk }),
        (c) => void c.cancel(),
      );
    } catch (e) {
      unlink();
      dropSession();
      throw e;
    }
    let ended = false;
    return {
      async next(): Promise<Row[] | undefined> {
        const rows = await bound(cursor.next());
        if (!rows) ended = true;
        return rows;
      },
      /** The next batch column by column (from the rows when the driver has no columnar read). */
      async nextColumns(): Promise<ColumnBatch | undefined> {
        const batch = cursor.nextColumns
          ? await bound(cursor.nextColumns())
          : columnsOfRows(await this.next());
        if (!batch) ended = true;
        return batch;
      },
      columns: () => bound(cursor.columns()),
      /**
       * Cancels what is left of the query; after a failure the connection is dropped too. After a timeout
       * or the caller's abort the cancel is given a short grace only (the connection is dropped anyway),
       * so that an API request answers within its deadline.
       */
      async finish(failed: boolean) {
        unlink();
        if (!ended) await stop(cursor, ac.signal.aborted ? ABORTED_CANCEL_GRACE_MS : CANCEL_GRACE_MS);
        if (failed) dropSession();
      },
    };
  }

  /** A whole result in batches (rows or columns, as `take` reads them); stopping early cancels it. */
  async function* batchesOf<T extends { length: number }>(
    sql: string,
    opts: StreamOptions,
    take: (q: Awaited<ReturnType<typeof openQuery>>) => Promise<T | undefined>,
  ): AsyncGenerator<T> {
    const batchSize = Math.floor(opts.batchSize);
    if (!(batchSize >= 1)) throw new RangeError('batchSize must be at least 1');
    if (opts.signal?.aborted) throw new UpstreamError('query cancelled');
    const q = await openQuery(sql, batchSize, o.queryTimeoutMs, opts.signal, 'query', opts.bulk ?? true);
    let failed = false;
    try {
      for (;;) {
        const batch = await take(q);
        if (!batch) return;
        if (batch.length) yield batch;
        if (opts.signal?.aborted) throw new UpstreamError('query cancelled');
      }
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      await q.finish(failed);
    }
  }

  return {
    dialect: o.dialect ?? DIALECTS.pgsql,

    async test() {
      const started = Date.now();
      await connect(o.timeoutMs);
      const left = Math.max(1, o.timeoutMs - (Date.now() - started));
      const q = await openQuery(driver.testSql, 1, left, undefined, 'test query');
      let failed = false;
      try {
        await q.next();
      } catch (e) {
        failed = true;
        throw e;
      } finally {
        await q.finish(failed);
      }
    },

    async preview(sql: string, limit = 10): Promise<PreviewResult> {
      // At most PREVIEW_MAX_ROWS rows leave the server: the batch size is the cursor's fetch size.
      const n = Math.max(1, Math.min(Math.floor(limit) || PREVIEW_MAX_ROWS, PREVIEW_MAX_ROWS));
      const q = await openQuery(sql, n, o.queryTimeoutMs, undefined, 'preview query');
      let failed = false;
      try {
        const rows = (await q.next()) ?? [];
        const columns = await q.columns();
        return { columns, rows: rows.slice(0, n).map(jsonSafe) };
      } catch (e) {
        failed = true;
        throw e;
      } finally {
        await q.finish(failed);
      }
    },

    stream: (sql: string, opts: StreamOptions) => batchesOf(sql, opts, (q) => q.next()),

    streamColumns: (sql: string, opts: StreamOptions) => batchesOf(sql, opts, (q) => q.nextColumns()),

    async close() {
      closed = true;
      const pending = connecting;
      dropSession();
      if (pending)
        await pending.then(
          (s) => s.close(),
          () => {},
        );
    },
  };
}

/** A batch of row objects column by column (the keys of its first row). */
export function columnsOfRows(rows: Row[] | undefined): ColumnBatch | undefined {
  if (!rows) return undefined;
  const names = rows.length ? Object.keys(rows[0]) : [];
  return { names, columns: names.map((k) => rows.map((r) => r[k])), length: rows.length };
}

/** BigInt is not JSON; a preview goes straight into an HTTP answer. */
function jsonSafe(row: Row): Row {
  let copy: Row | undefined;
  for (const k in row) {
    const v = row[k];
    if (typeof v === 'bigint') {
      copy ??= { ...row };
      copy[k] = v.toString();
    }
  }
  return copy ?? row;
}
