/**
 * The split load's queries (its probe of the first row, its grouped passes and its parts' day predicates)
 * through the sessions of every connector type but pgsql, on stand-in connections (as adapters.test.ts
 * builds them) that refuse what their database refuses: LIMIT on SQL Server and Fabric, LIMIT, TOP and a
 * derived table named with AS on Oracle, and everywhere a `;` before the closing parenthesis (a query
 * ending in `;` wrapped as it is). pgsql runs for real against PGlite and PostgreSQL in
 * test/integration/pipeline/load-split-bounds.test.ts.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../lib/connectors/dialect';
import type { Row } from '../../../lib/connectors/sources/driver';
import { BATCH_PREFIX, MssqlSession } from '../../../lib/connectors/sources/mssql';
import { OracleSession } from '../../../lib/connectors/sources/oracle';
import { createSource } from '../../../lib/connectors/sources/runner';
import { SnowflakeSession } from '../../../lib/connectors/sources/snowflake';
import type { ConnectorType } from '../../../lib/connectors/types';
import { partQuery, planParts, sourceLeaves } from '../../../lib/pipeline/load-split-plan';
import { Dictionary } from '../../../lib/pipeline/stage';

const require = createRequire(import.meta.url);
type StandIn = Exclude<ConnectorType, 'pgsql'>;

const DAYS = [20240105, 20240301, 99991231];

/** What the stand-in database answers, or the error its server would give for the statement. */
function serve(type: StandIn, sql: string, day: unknown): Row[] {
  if (/;\s*\)/.test(sql)) throw new Error(`syntax error near ')'`);
  if ((type === 'mssql' || type === 'fabric') && /\bLIMIT\b|\bFETCH\s+FIRST\b/i.test(sql))
    throw new Error("Incorrect syntax near 'LIMIT'.");
  if (type === 'oracle' && (/\bLIMIT\b|\bTOP\b/i.test(sql) || /\)\s*AS\s+q\b/i.test(sql)))
    throw new Error('ORA-00933: SQL command not properly ended');
  // Oracle and Snowflake give unquoted names in upper case.
  const k = (name: string) => (type === 'oracle' || type === 'snowflake' ? name.toUpperCase() : name);
  if (sql.includes('"__d"')) return DAYS.map((d) => ({ __d: d }));
  if (sql.includes('"__lo"'))
    return [
      { [k('shop')]: 'north', __lo: day, __n: 3 },
      { [k('shop')]: 'south', __lo: day, __n: 2 },
    ];
  if (sql.includes('WHERE q.')) return [];
  return [{ [k('day')]: day, [k('shop')]: 'north', [k('amount')]: 5 }];
}

function mssqlSession(type: StandIn, day: unknown, log: string[]) {
  const mssql = require('mssql');
  const request = () => {
    const req = new mssql.Request({ config: {} });
    req._query = (sql: string, callback: (err: unknown, ...rest: unknown[]) => void) => {
      const text = sql.startsWith(BATCH_PREFIX) ? sql.slice(BATCH_PREFIX.length) : sql;
      log.push(text);
      let rows: Row[];
      try {
        rows = serve(type, text, day);
      } catch (e) {
        setImmediate(() => callback(Object.assign(e as Error, { code: 'EREQUEST' })));
        return;
      }
      const names = Object.keys(rows[0] ?? {});
      req.emit('recordset', Object.fromEntries(names.map((name, index) => [name, { index, name }])));
      setImmediate(() => {
        for (const r of rows) req.emit('row', r);
        callback(null, [], {}, [rows.length], {});
      });
    };
    return req;
  };
  const pool = {
    transaction: () => ({ begin: async () => {}, request, rollback: async () => {} }),
    close: async () => {},
  };
  return new MssqlSession(pool as never);
}

function oracleSession(day: unknown, log: string[]) {
  const conn = {
    async execute(sql: string) {
      if (sql === 'SET TRANSACTION READ ONLY') return {};
      log.push(sql);
      const rows = serve('oracle', sql, day);
      let given = 0;
      return {
        metaData: Object.keys(rows[0] ?? {}).map((name) => ({ name })),
        resultSet: {
          async getRows(n: number) {
            const out = rows.slice(given, given + n);
            given += out.length;
            return out;
          },
          async close() {},
        },
      };
    },
    break: async () => {},
    rollback: async () => {},
    close: async () => {},
  };
  const db = { OUT_FORMAT_OBJECT: 4002, STRING: 2001, BUFFER: 2006 };
  return new OracleSession(db as never, conn as never);
}

function snowflakeSession(day: unknown, log: string[]) {
  const conn = {
    execute(options: { sqlText: string; complete: (err: unknown, stmt: unknown) => void }) {
      const control = options.sqlText === 'BEGIN' || options.sqlText === 'ROLLBACK';
      if (!control) log.push(options.sqlText);
      let rows: Row[] = [];
      let err: unknown;
      try {
        if (!control) rows = serve('snowflake', options.sqlText, day);
      } catch (e) {
        err = e;
      }
      const stmt = {
        getColumns: () =>
          Object.keys(rows[0] ?? {}).map((n) => ({ getName: () => n, getType: () => 'text' })),
        streamRows: () => Readable.from(rows, { objectMode: true }),
        cancel: (cb: () => void) => cb(),
      };
      setImmediate(() => options.complete(err, stmt));
      return stmt;
    },
    destroy: (cb: () => void) => cb(),
  };
  return new SnowflakeSession(conn as never);
}

/** A source of `type` over its stand-in session, with the dialect openSource gives that type. */
function standInSource(type: StandIn, day: unknown) {
  const log: string[] = [];
  const session =
    type === 'oracle'
      ? oracleSession(day, log)
      : type === 'snowflake'
        ? snowflakeSession(day, log)
        : mssqlSession(type, day, log);
  const source = createSource(
    { testSql: 'select 1', connect: async () => session },
    { target: 'stand-in', secrets: [], timeoutMs: 2_000, queryTimeoutMs: 5_000, dialect: DIALECTS[type] },
  );
  return { source, log };
}

const QUERY = 'SELECT day, shop, amount FROM sales;\n';
const SHAPE = { dateColumn: 'day', valueColumn: 'amount', categories: ['shop'] };
const FIRST_ROW: Record<StandIn, string> = {
  mssql: 'SELECT TOP 1 * FROM (\nSELECT day, shop, amount FROM sales\n) q',
  fabric: 'SELECT TOP 1 * FROM (\nSELECT day, shop, amount FROM sales\n) q',
  oracle: 'SELECT * FROM (\nSELECT day, shop, amount FROM sales\n) q FETCH FIRST 1 ROWS ONLY',
  snowflake: 'SELECT * FROM (\nSELECT day, shop, amount FROM sales\n) q LIMIT 1',
};
/** The first part's lower bound for a DATE column, in each database's own date literal. */
const DATE_FROM: Record<StandIn, string> = {
  mssql: ">= CAST('20231221' AS date)",
  fabric: ">= CAST('20231221' AS date)",
  oracle: ">= DATE '2023-12-21'",
  snowflake: ">= DATE '2023-12-21'",
};

describe.each(['mssql', 'fabric', 'oracle', 'snowflake'] as const)('a split load on %s', (type) => {
  it('probes the first row its own way, plans from the days present and reads a part', async () => {
    const { source, log } = standInSource(type, 20240105);
    const found = await sourceLeaves(source, QUERY, SHAPE, new Dictionary(['shop'], []), 100);
    expect(log[0]).toBe(FIRST_ROW[type]);
    expect(found).toMatchObject({ rows: 5, days: DAYS, dayKind: 'integer', leaves: [[1], [2]] });
    // One chunk of 2024 and one far away (the sentinel 9999-12-31): two parts, not ~26,000.
    const parts = planParts(found!.days, 1);
    expect(parts).toHaveLength(2);
    const part = partQuery(QUERY, found!.dateKey, parts[0], found!.dayKind, source.dialect);
    for await (const _ of source.stream(part, { batchSize: 100 })) {
      // no rows: the stand-in only checks the statement
    }
    expect(log.at(-1)).toBe(part);
    await source.close();
  });

  it('compares a DATE column with its own date literal', async () => {
    const { source, log } = standInSource(type, new Date('2024-01-05T00:00:00Z'));
    const found = await sourceLeaves(source, QUERY, SHAPE, new Dictionary(['shop'], []), 100);
    expect(found?.dayKind).toBe('date');
    const part = partQuery(
      QUERY,
      found!.dateKey,
      planParts(found!.days, 1)[0],
      found!.dayKind,
      source.dialect,
    );
    expect(part).toContain(DATE_FROM[type]);
    for await (const _ of source.stream(part, { batchSize: 100 })) {
      // no rows
    }
    expect(log.at(-1)).toBe(part);
    await source.close();
  });
});
