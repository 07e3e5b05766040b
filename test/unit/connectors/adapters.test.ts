/**
 * The mssql, oracle and snowflake sessions driven by stand-in connections (no server runs here): they
 * must batch rows, report columns, surface errors mid-stream and cancel what they started.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBatch } from '../../../lib/connectors/sources/batches';
import type { Row } from '../../../lib/connectors/sources/driver';
import { MssqlSession } from '../../../lib/connectors/sources/mssql';
import { OracleSession } from '../../../lib/connectors/sources/oracle';
import { SnowflakeSession } from '../../../lib/connectors/sources/snowflake';

const require = createRequire(import.meta.url);
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ n: i + 1 }));

async function drain(next: () => Promise<Row[] | undefined>): Promise<number[]> {
  const sizes: number[] = [];
  for (let b = await next(); b; b = await next()) sizes.push(b.length);
  return sizes;
}

describe('reading batches from a row stream', () => {
  it('fills each batch before handing it over and ends with undefined', async () => {
    const r = Readable.from(rows(25), { objectMode: true });
    expect(await drain(() => readBatch(r, 10))).toEqual([10, 10, 5]);
  });

  it('rejects with the error the stream fails with, after the rows before it', async () => {
    const r = new Readable({ objectMode: true, read() {} });
    r.on('error', () => {});
    r.push({ n: 1 });
    setTimeout(() => r.destroy(new Error('Arithmetic overflow')), 5);
    await expect(readBatch(r, 10)).rejects.toThrow('Arithmetic overflow');
  });
});

/** A real mssql Request whose wire is replaced: rows are emitted while the request is not paused. */
function fakeMssqlPool(total: number, opts: { failAfter?: number } = {}) {
  const mssql = require('mssql');
  const log = { cancelled: false, maxBuffered: 0 };
  const pool = {
    request() {
      const req = new mssql.Request({ config: {} });
      req._query = (_sql: string, callback: (err: unknown, ...rest: unknown[]) => void) => {
        req.emit('recordset', { n: { index: 0, name: 'n', type: mssql.Int } });
        let i = 0;
        const pump = () => {
          if (req.canceled) {
            log.cancelled = true;
            return callback(Object.assign(new Error('Canceled.'), { code: 'ECANCEL' }));
          }
          if (opts.failAfter !== undefined && i >= opts.failAfter) {
            return callback(Object.assign(new Error("Invalid column name 'x'."), { code: 'EREQUEST' }));
          }
          while (!req.paused && i < total) req.emit('row', { n: ++i });
          if (i >= total) return callback(null, [], {}, [total], {});
          setImmediate(pump);
        };
        setImmediate(pump);
      };
      return req;
    },
    close: async () => {},
  };
  return { pool, log };
}

describe('the SQL Server session', () => {
  it('streams rows in batches and names the columns with their SQL types', async () => {
    const { pool } = fakeMssqlPool(2_500);
    const cursor = await new MssqlSession(pool as never).query(
      'select n',
      1_000,
      new AbortController().signal,
    );
    expect(await drain(() => cursor.next())).toEqual([1_000, 1_000, 500]);
    expect(await cursor.columns()).toEqual([{ name: 'n', type: 'int' }]);
  });

  it('passes on an error raised mid-stream', async () => {
    const { pool } = fakeMssqlPool(5_000, { failAfter: 1_200 });
    const cursor = await new MssqlSession(pool as never).query(
      'select x',
      1_000,
      new AbortController().signal,
    );
    await expect(drain(() => cursor.next())).rejects.toThrow("Invalid column name 'x'.");
  });

  it('cancels the request when the cursor is cancelled', async () => {
    const { pool, log } = fakeMssqlPool(1_000_000);
    const cursor = await new MssqlSession(pool as never).query('select n', 100, new AbortController().signal);
    await cursor.next();
    await cursor.cancel();
    await new Promise((r) => setTimeout(r, 20));
    expect(log.cancelled).toBe(true);
  });
});

describe('the Oracle session', () => {
  function fakeConnection(total: number) {
    const log = { breaks: 0, closedResultSet: false, fetchArraySize: 0 };
    let given = 0;
    const conn = {
      async execute(_sql: string, _binds: unknown[], options: Record<string, number>) {
        log.fetchArraySize = options.fetchArraySize;
        return {
          metaData: [{ name: 'N', dbTypeName: 'NUMBER' }],
          resultSet: {
            async getRows(n: number) {
              const out = rows(Math.min(n, total - given)).map((r) => ({ N: r.n + given }));
              given += out.length;
              return out;
            },
            async close() {
              log.closedResultSet = true;
            },
          },
        };
      },
      async break() {
        log.breaks++;
      },
      async close() {},
    };
    const db = { OUT_FORMAT_OBJECT: 4002, STRING: 2001, BUFFER: 2006 };
    return { session: new OracleSession(db as never, conn as never), log };
  }

  it('reads the result set in batches and closes it at the end', async () => {
    const { session, log } = fakeConnection(2_500);
    const cursor = await session.query(
      'select level n from dual connect by level <= 2500',
      1_000,
      new AbortController().signal,
    );
    expect(await drain(() => cursor.next())).toEqual([1_000, 1_000, 500]);
    expect(await cursor.columns()).toEqual([{ name: 'N', type: 'NUMBER' }]);
    expect(log).toMatchObject({ closedResultSet: true, fetchArraySize: 1_000, breaks: 0 });
  });

  it('breaks the running call when cancelled early', async () => {
    const { session, log } = fakeConnection(10_000);
    const cursor = await session.query('select …', 100, new AbortController().signal);
    await cursor.next();
    await cursor.cancel();
    expect(log).toMatchObject({ breaks: 1, closedResultSet: true });
  });
});

describe('the Snowflake session', () => {
  function fakeConnection(total: number) {
    const log = { cancelled: false, parameters: undefined as unknown };
    const conn = {
      execute(options: { complete: (err: unknown, stmt: unknown) => void; parameters?: unknown }) {
        log.parameters = options.parameters;
        const stmt = {
          getColumns: () => [{ getName: () => 'N', getType: () => 'fixed' }],
          streamRows: () => Readable.from(rows(total), { objectMode: true, highWaterMark: 64 }),
          cancel: (cb: () => void) => {
            log.cancelled = true;
            cb();
          },
        };
        setImmediate(() => options.complete(undefined, stmt));
        return stmt;
      },
      destroy: (cb: () => void) => cb(),
    };
    return { session: new SnowflakeSession(conn as never), log };
  }

  it('waits for the statement, then streams its rows in batches', async () => {
    const { session, log } = fakeConnection(2_500);
    const cursor = await session.query('select …', 1_000, new AbortController().signal);
    expect(log.parameters).toEqual({ MULTI_STATEMENT_COUNT: 1 });
    expect(await cursor.columns()).toEqual([{ name: 'N', type: 'fixed' }]);
    expect(await drain(() => cursor.next())).toEqual([1_000, 1_000, 500]);
  });

  it('cancels the statement when the caller stops early', async () => {
    const { session, log } = fakeConnection(5_000);
    const cursor = await session.query('select …', 100, new AbortController().signal);
    await cursor.next();
    await cursor.cancel();
    expect(log.cancelled).toBe(true);
  });
});
