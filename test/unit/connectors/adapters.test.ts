/**
 * The mssql, oracle and snowflake sessions driven by stand-in connections (no server runs here): they
 * must batch rows, report columns, surface errors mid-stream and cancel what they started, and keep a
 * query from writing: the statements around it are issued in order, and a write is refused before it is
 * sent or runs inside a transaction that is rolled back (docs/security.md, "Source queries").
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBatch } from '../../../lib/connectors/sources/batches';
import type { Row } from '../../../lib/connectors/sources/driver';
import { BATCH_PREFIX, MssqlSession } from '../../../lib/connectors/sources/mssql';
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
function fakeMssqlPool(total: number, opts: { failAfter?: number; textEndsTransaction?: boolean } = {}) {
  const mssql = require('mssql');
  const log = { cancelled: false, maxBuffered: 0, statements: [] as string[], closed: false };
  const request = () => {
    const req = new mssql.Request({ config: {} });
    req._query = (sql: string, callback: (err: unknown, ...rest: unknown[]) => void) => {
      log.statements.push(sql);
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
  };
  const pool = {
    transaction: () => ({
      async begin() {
        log.statements.push('BEGIN TRANSACTION');
      },
      request,
      async rollback() {
        log.statements.push('ROLLBACK');
        // What mssql answers when the batch's own COMMIT left nothing to roll back.
        if (opts.textEndsTransaction)
          throw new Error('The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.');
      },
    }),
    close: async () => {
      log.closed = true;
    },
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

  it('cancels the request when the cursor is cancelled, then rolls back', async () => {
    const { pool, log } = fakeMssqlPool(1_000_000);
    const cursor = await new MssqlSession(pool as never).query('select n', 100, new AbortController().signal);
    await cursor.next();
    await cursor.cancel();
    expect(log.cancelled).toBe(true);
    expect(log.statements).toEqual(['BEGIN TRANSACTION', `${BATCH_PREFIX}select n`, 'ROLLBACK']);
    expect(log.closed).toBe(false);
  });

  it('runs the batch inside a transaction and rolls it back after the last row', async () => {
    const { pool, log } = fakeMssqlPool(10);
    const cursor = await new MssqlSession(pool as never).query(
      'delete from sales; select n from t',
      100,
      new AbortController().signal,
    );
    expect(await drain(() => cursor.next())).toEqual([10]);
    // The delete ran, inside the transaction: it is rolled back, never committed.
    expect(log.statements).toEqual([
      'BEGIN TRANSACTION',
      `${BATCH_PREFIX}delete from sales; select n from t`,
      'ROLLBACK',
    ]);
  });

  it('rolls back after an error mid-stream too', async () => {
    const { pool, log } = fakeMssqlPool(5_000, { failAfter: 1_200 });
    const cursor = await new MssqlSession(pool as never).query(
      'select x',
      1_000,
      new AbortController().signal,
    );
    await expect(drain(() => cursor.next())).rejects.toThrow("Invalid column name 'x'.");
    expect(log.statements.at(-1)).toBe('ROLLBACK');
  });

  it.each([
    ['commit; delete from sales; select 1 as n', 'COMMIT'],
    ['select 1 as n; ROLLBACK TRAN', 'ROLLBACK'],
    ["exec('com' + 'mit'); select 1 as n", 'EXECUTE (procedures and dynamic SQL)'],
    ["EXECUTE sp_executesql N'delete from sales'", 'EXECUTE (procedures and dynamic SQL)'],
    ['save transaction s; select 1 as n', 'SAVE TRANSACTION'],
    ['begin tran; select 1 as n', 'BEGIN TRANSACTION'],
    ['select 1 as n /* a /* nested */ comment */ commit', 'COMMIT'],
  ])('refuses %j before anything reaches the server', async (sql, what) => {
    const { pool, log } = fakeMssqlPool(10);
    await expect(
      new MssqlSession(pool as never).query(sql, 100, new AbortController().signal),
    ).rejects.toThrow(`${what} is refused`);
    expect(log.statements).toEqual([]);
  });

  it('fails the query when the batch ended the transaction itself, so a load does not use it', async () => {
    const { pool } = fakeMssqlPool(10, { textEndsTransaction: true });
    const cursor = await new MssqlSession(pool as never).query('select n', 100, new AbortController().signal);
    await expect(drain(() => cursor.next())).rejects.toThrow(/ended the transaction it runs in/);
  });

  it('lets keywords through inside strings, comments and quoted names', async () => {
    const { pool, log } = fakeMssqlPool(1);
    const sql =
      "select 'commit; exec x' as [rollback], n as \"exec\" -- commit\nfrom t where note <> 'it''s; commit'";
    const cursor = await new MssqlSession(pool as never).query(sql, 100, new AbortController().signal);
    await drain(() => cursor.next());
    expect(log.statements).toEqual(['BEGIN TRANSACTION', `${BATCH_PREFIX}${sql}`, 'ROLLBACK']);
  });
});

describe('the Oracle session', () => {
  function fakeConnection(total: number, opts: { failWith?: string } = {}) {
    const log = { breaks: 0, closedResultSet: false, fetchArraySize: 0, statements: [] as string[] };
    let given = 0;
    const conn = {
      async execute(sql: string, _binds: unknown[], options: Record<string, number>) {
        log.statements.push(sql);
        if (sql === 'SET TRANSACTION READ ONLY') return {};
        // What Oracle answers when a query's function writes inside a read-only transaction.
        if (opts.failWith) throw new Error(opts.failWith);
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
      async rollback() {
        log.statements.push('ROLLBACK');
      },
      async close() {},
    };
    const db = { OUT_FORMAT_OBJECT: 4002, STRING: 2001, BUFFER: 2006 };
    return { session: new OracleSession(db as never, conn as never), log };
  }

  it('reads the result set in batches inside a read-only transaction, rolled back at the end', async () => {
    const { session, log } = fakeConnection(2_500);
    const sql = 'select level n from dual connect by level <= 2500';
    const cursor = await session.query(sql, 1_000, new AbortController().signal);
    expect(await drain(() => cursor.next())).toEqual([1_000, 1_000, 500]);
    expect(await cursor.columns()).toEqual([{ name: 'N', type: 'NUMBER' }]);
    expect(log).toMatchObject({ closedResultSet: true, fetchArraySize: 1_000, breaks: 0 });
    expect(log.statements).toEqual(['SET TRANSACTION READ ONLY', sql, 'ROLLBACK']);
  });

  it('breaks the running call when cancelled early, then rolls back', async () => {
    const { session, log } = fakeConnection(10_000);
    const cursor = await session.query('select …', 100, new AbortController().signal);
    await cursor.next();
    await cursor.cancel();
    expect(log).toMatchObject({ breaks: 1, closedResultSet: true });
    expect(log.statements).toEqual(['SET TRANSACTION READ ONLY', 'select …', 'ROLLBACK']);
  });

  it('rolls back when the server refuses a write inside the query', async () => {
    const error = 'ORA-14551: cannot perform a DML operation inside a query';
    const { session, log } = fakeConnection(10, { failWith: error });
    const sql = 'select write_audit_row() as n from dual';
    await expect(session.query(sql, 100, new AbortController().signal)).rejects.toThrow(error);
    expect(log.statements).toEqual(['SET TRANSACTION READ ONLY', sql, 'ROLLBACK']);
  });

  it.each([
    ['insert into sales values (1)', /must be one SELECT .* starts with INSERT/],
    ['begin delete from sales; commit; end;', /starts with BEGIN/],
    ['/* hi */ truncate table sales', /starts with TRUNCATE/],
    ['create table x as select * from sales', /starts with CREATE/],
    [
      'with function f return number is pragma autonomous_transaction; begin delete from sales; commit; return 1; end; select f from dual',
      /may not declare PL\/SQL \(WITH FUNCTION\)/,
    ],
  ])('refuses %j before anything reaches the server', async (sql, message) => {
    const { session, log } = fakeConnection(10);
    await expect(session.query(sql, 100, new AbortController().signal)).rejects.toThrow(message);
    expect(log.statements).toEqual([]);
  });

  it('accepts a query that starts with comments, parentheses or WITH', async () => {
    const { session, log } = fakeConnection(1);
    const sql = '-- daily\n(with t as (select 1 n from dual) select n from t)';
    await drain(await session.query(sql, 100, new AbortController().signal).then((c) => () => c.next()));
    expect(log.statements).toEqual(['SET TRANSACTION READ ONLY', sql, 'ROLLBACK']);
  });
});

describe('the Snowflake session', () => {
  function fakeConnection(total: number, opts: { failWith?: string } = {}) {
    const log = { cancelled: false, parameters: undefined as unknown, statements: [] as string[] };
    const conn = {
      execute(options: {
        sqlText: string;
        complete: (err: unknown, stmt: unknown) => void;
        parameters?: unknown;
      }) {
        log.statements.push(options.sqlText);
        log.parameters = options.parameters;
        const stmt = {
          getColumns: () => [{ getName: () => 'N', getType: () => 'fixed' }],
          streamRows: () => Readable.from(rows(total), { objectMode: true, highWaterMark: 64 }),
          cancel: (cb: () => void) => {
            log.cancelled = true;
            cb();
          },
        };
        const control = options.sqlText === 'BEGIN' || options.sqlText === 'ROLLBACK';
        const err = !control && opts.failWith ? new Error(opts.failWith) : undefined;
        setImmediate(() => options.complete(err, stmt));
        return stmt;
      },
      destroy: (cb: () => void) => cb(),
    };
    return { session: new SnowflakeSession(conn as never), log };
  }

  it('waits for the statement, then streams its rows in batches, inside a transaction rolled back after', async () => {
    const { session, log } = fakeConnection(2_500);
    const cursor = await session.query('select …', 1_000, new AbortController().signal);
    expect(log.parameters).toEqual({ MULTI_STATEMENT_COUNT: 1 });
    expect(await cursor.columns()).toEqual([{ name: 'N', type: 'fixed' }]);
    expect(await drain(() => cursor.next())).toEqual([1_000, 1_000, 500]);
    expect(log.statements).toEqual(['BEGIN', 'select …', 'ROLLBACK']);
  });

  it('cancels the statement when the caller stops early, then rolls back', async () => {
    const { session, log } = fakeConnection(5_000);
    const cursor = await session.query('select …', 100, new AbortController().signal);
    await cursor.next();
    await cursor.cancel();
    expect(log.cancelled).toBe(true);
    expect(log.statements).toEqual(['BEGIN', 'select …', 'ROLLBACK']);
  });

  it('rolls back when the statement fails', async () => {
    const { session, log } = fakeConnection(5, { failWith: 'Object does not exist or not authorized.' });
    await expect(session.query('select x from t', 100, new AbortController().signal)).rejects.toThrow(
      'not authorized',
    );
    expect(log.statements).toEqual(['BEGIN', 'select x from t', 'ROLLBACK']);
  });

  it.each([
    ['delete from sales', /must be one SELECT .* starts with DELETE/],
    ['create or replace table sales as select 1 n', /starts with CREATE/],
    ['call purge_sales()', /starts with CALL/],
    ['commit', /starts with COMMIT/],
  ])('refuses %j before anything reaches the server', async (sql, message) => {
    const { session, log } = fakeConnection(10);
    await expect(session.query(sql, 100, new AbortController().signal)).rejects.toThrow(message);
    expect(log.statements).toEqual([]);
  });
});
