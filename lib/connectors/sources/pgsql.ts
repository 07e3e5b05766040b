/**
 * PostgreSQL adapter on postgres.js: a server-side portal read in batches (`cursor`), inside a READ ONLY
 * transaction with a server-side `statement_timeout`, rolled back at the end. The extended protocol takes one
 * statement per query, so `SELECT 1; DELETE …` is refused by the server.
 * A load's whole-result read (`bulk`) goes through `COPY (query) TO STDOUT` (text format) on a real
 * PostgreSQL server, parsed here into the rows the cursor gives (same postgres.js type parsers); a
 * statement that COPY does not take, and PGlite, fall back to the cursor.
 */
import { StringDecoder } from 'node:string_decoder';
import type { PgConfig } from '../conn-string/index';
import type { ColumnInfo } from '../source-port';
import type { ColumnBatch, Driver, DriverCursor, DriverSession, QueryOptions, Row } from './driver';
import { type CopyColumn, copyColumnsParser, copyFieldValue } from './pgsql-columns';

export type { CopyColumn } from './pgsql-columns';

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

/**
 * The COPY statement of a bulk read is bounded server-side as a whole (a cursor's bound is per fetch):
 * this many times the per-round-trip bound. The runner still bounds every batch client-side.
 */
export const BULK_TIMEOUT_FACTOR = 6;

/**
 * Turns the text of `COPY … TO STDOUT` (default text format: tab-separated, `\N` for NULL) into rows
 * keyed and typed as postgres.js gives a cursor's rows. Feed decoded text in any pieces with `push`;
 * `end` returns what a last line without its newline holds.
 */
export function copyTextParser(columns: ReadonlyArray<CopyColumn>) {
  const n = columns.length;
  const names = columns.map((c) => c.name);
  let rest = '';
  const field = (f: string, i: number): unknown => (f === '\\N' ? null : copyFieldValue(columns[i], f));
  const lines = (buf: string, out: Row[], final: boolean) => {
    let pos = 0;
    const len = buf.length;
    while (pos < len) {
      let nl = buf.indexOf('\n', pos);
      if (nl < 0) {
        if (!final) break;
        nl = len;
      }
      const row: Row = {};
      let start = pos;
      for (let i = 0; i < n; i++) {
        let end = i === n - 1 ? nl : buf.indexOf('\t', start);
        if (end < 0 || end > nl) end = nl;
        row[names[i]] = field(buf.slice(start, end), i);
        start = end + 1;
      }
      out.push(row);
      pos = nl + 1;
    }
    return pos >= len ? '' : buf.slice(pos);
  };
  return {
    push(text: string, out: Row[]): void {
      rest = lines(rest.length ? rest + text : text, out, false);
    },
    end(out: Row[]): void {
      if (rest.length) lines(rest, out, true);
      rest = '';
    },
  };
}

/**
 * Whether a server (by its `version()`) streams COPY (query) TO STDOUT and takes the savepoint around it:
 * PostgreSQL itself, not PGlite behind its socket server (no COPY to a client) nor servers that only
 * speak the protocol (Redshift: no savepoints; CockroachDB and others).
 */
export function copyableServer(version: string): boolean {
  return /^PostgreSQL \d/.test(version) && !/PGlite|Redshift/i.test(version);
}

/** A statement as the body of COPY ( … ): without trailing semicolons and whitespace. */
function copyBody(text: string): string {
  return text.replace(/[\s;]+$/, '');
}

/**
 * postgres.js pauses the socket when a COPY stream's buffer is full and resumes it only from the stream's
 * `read()`; when CopyDone arrives in the same socket chunk, the stream ends with the socket still paused
 * and the connection never reads another answer (the next statement hangs: porsager/postgres#499, #917).
 * The stream's own `_read` is that resume; it is called once the stream is done or given up.
 */
function resumeSocket(stream: unknown): void {
  const read = (stream as { _read?: (size: number) => void } | undefined)?._read;
  if (typeof read === 'function') read.call(stream, 0);
}

/** What copyStreamCursor needs of the session's COPY: its end, its state and its cancel. */
interface CopyControl {
  finish(): Promise<void>;
  done(): boolean;
  setDone(): void;
  cancel(): Promise<void>;
}

/** The cursor over a COPY text answer: rows (next) or columns (nextColumns), in batches of `batchSize`. */
function copyStreamCursor(
  stream: NodeJS.ReadableStream,
  described: CopyColumn[],
  batchSize: number,
  control: CopyControl,
): DriverCursor {
  const columns = columnsOf(described);
  const it = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  /** Feeds pieces to `push` until `enough()` or the end (then `last()`); false once nothing is left. */
  const read = async (enough: () => boolean, push: (b: Buffer) => void, last: () => void) => {
    while (!control.done() && !enough()) {
      let r: IteratorResult<Buffer>;
      try {
        r = await it.next();
      } catch (e) {
        control.setDone();
        resumeSocket(stream);
        throw e;
      }
      if (r.done) {
        control.setDone();
        resumeSocket(stream);
        last();
        break;
      }
      push(r.value);
    }
  };
  const rowParser = copyTextParser(described);
  const decoder = new StringDecoder('utf8');
  let pending: Row[] = [];
  const colParser = copyColumnsParser(described);
  return {
    async next() {
      await read(
        () => pending.length >= batchSize,
        (b) => rowParser.push(decoder.write(b), pending),
        () => {
          rowParser.push(decoder.end(), pending);
          rowParser.end(pending);
        },
      );
      if (pending.length === 0) {
        await control.finish();
        return undefined;
      }
      const batch = pending.length <= batchSize ? pending : pending.slice(0, batchSize);
      pending = pending.length <= batchSize ? [] : pending.slice(batchSize);
      return batch;
    },
    async nextColumns(): Promise<ColumnBatch | undefined> {
      await read(
        () => colParser.pending >= batchSize,
        (b) => colParser.push(b),
        () => colParser.end(),
      );
      if (colParser.pending === 0) {
        await control.finish();
        return undefined;
      }
      return colParser.take(batchSize);
    },
    async columns() {
      return columns;
    },
    async cancel() {
      if (control.done()) return control.finish();
      await control.cancel();
    },
  };
}

class PgSession implements DriverSession {
  /** Whether the server streams COPY TO STDOUT (PGlite does not); known after the first bulk read. */
  private copyable: boolean | undefined;
  /** A COPY given up mid-stream leaves the connection mid-answer: it is closed, the next query reconnects. */
  private dropped = false;
  constructor(
    private pool: Sql,
    private sql: ReservedSql,
    private readonly reopen: () => Promise<{ pool: Sql; sql: ReservedSql }>,
  ) {}

  async query(
    text: string,
    batchSize: number,
    signal: AbortSignal,
    options: QueryOptions = {},
  ): Promise<DriverCursor> {
    if (this.dropped) {
      ({ pool: this.pool, sql: this.sql } = await this.reopen());
      this.dropped = false;
    }
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
    if (options.bulk) {
      const copied = await this.copyCursor(text, batchSize, signal, end, options.statementTimeoutMs);
      if (copied) return copied;
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

  /**
   * The rows of `text` through COPY TO STDOUT, or undefined when COPY does not take the statement (the
   * transaction is back where it was, for the cursor to run it and report its own error).
   */
  private async copyCursor(
    text: string,
    batchSize: number,
    signal: AbortSignal,
    end: () => Promise<void>,
    statementTimeoutMs: number | undefined,
  ): Promise<DriverCursor | undefined> {
    const sql = this.sql;
    this.copyable ??= await sql
      .unsafe('SELECT version() AS v')
      .then((r) => copyableServer(String(r[0]?.v ?? '')))
      .catch(() => false);
    if (!this.copyable) return undefined;
    await sql.unsafe('SAVEPOINT bulk_read');
    let described: CopyColumn[];
    let q: ReturnType<ReservedSql['unsafe']> | undefined;
    let stream: NodeJS.ReadableStream;
    let done = false;
    // The server may hold the COPY's first answer until it has rows to send, so the abort path is in place
    // before it is awaited. postgres.js marks the statement done once it hands out the stream, and then
    // sends no cancel request for it: marked running again while the COPY has not ended, it does.
    const cancelOnServer = () => {
      if (done || !q) return;
      (q as unknown as { active: boolean }).active = true;
      void Promise.resolve(q.cancel()).catch(() => {});
    };
    const onAbort = () => cancelOnServer();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // Parsed alone first: the text is one statement, so wrapped in COPY ( … ) it stays one query and
      // cannot close the parenthesis to reach COPY's own options (TO PROGRAM, TO 'file').
      described = ((await sql.unsafe(text).describe()).columns ?? []) as unknown as CopyColumn[];
      if (statementTimeoutMs)
        await sql.unsafe(
          `SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(statementTimeoutMs * BULK_TIMEOUT_FACTOR))}`,
        );
      q = sql.unsafe(`COPY (\n${copyBody(text)}\n) TO STDOUT`);
      // postgres.js destroys the stream with the statement's error, on the next tick: when the whole
      // answer came in one socket chunk that is before this code holds the stream, and an 'error' event
      // nobody listens to is thrown. The listener goes on as postgres.js hands the stream out; the
      // iterator below still sees the error (the stream is destroyed with it).
      const handOut = q as unknown as { resolve: (x: unknown) => void };
      const resolve = handOut.resolve;
      handOut.resolve = (x) => {
        if (x && typeof (x as NodeJS.ReadableStream).on === 'function')
          (x as NodeJS.ReadableStream).on('error', () => {});
        resolve(x);
      };
      const opened = q.readable();
      // readable() switches to the simple protocol, which would take several statements: back to the
      // extended one (Parse/Bind/Execute: one statement), which streams COPY the same way.
      (q as unknown as { options: { simple: boolean } }).options.simple = false;
      stream = (await opened) as unknown as NodeJS.ReadableStream;
    } catch (e) {
      // Cancelled (the caller gave up): no cursor after it. Otherwise COPY did not take the statement.
      if (signal.aborted) throw e;
      signal.removeEventListener('abort', onAbort);
      await sql.unsafe('ROLLBACK TO SAVEPOINT bulk_read');
      return undefined;
    }
    const finish = async () => {
      signal.removeEventListener('abort', onAbort);
      await end();
    };
    const session = this;
    return copyStreamCursor(stream, described, batchSize, {
      finish,
      done: () => done,
      setDone: () => {
        done = true;
      },
      async cancel() {
        // Given up mid-stream: a cancel request stops the COPY on the server, and the connection, left
        // mid-answer, is closed (the next query reconnects, so the cancel cannot hit a later statement).
        signal.removeEventListener('abort', onAbort);
        cancelOnServer();
        done = true;
        session.dropped = true;
        await session.pool.end({ timeout: 0 }).catch(() => {});
      },
    });
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
        const reopen = async () => {
          const p = postgres(postgresOptions(config, timeoutMs));
          return { pool: p, sql: await p.reserve() };
        };
        return new PgSession(pool, await pool.reserve(), reopen);
      } catch (e) {
        await pool.end({ timeout: 0 }).catch(() => {});
        throw e;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
