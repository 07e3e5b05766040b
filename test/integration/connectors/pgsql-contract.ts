/** One suite for the pgsql adapter, run against PGlite behind its socket server and against PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../../lib/connectors/index';
import { UpstreamError } from '../../../lib/shared/errors';

export interface PgTarget {
  /** conn_string of a role that may create a table in the default schema. */
  connString: string;
  /** Runs fixture SQL directly on the database; the rows of the last statement. */
  exec(sql: string): Promise<Record<string, unknown>[]>;
  /** A real server runs statements in parallel and honours cancel requests; PGlite does neither. */
  realServer: boolean;
  stop(): Promise<void>;
}

const ROWS = 2_500;

export function pgsqlContract(label: string, start: () => Promise<PgTarget>) {
  describe(`the pgsql connector on ${label}`, () => {
    let target: PgTarget;
    const table = `conn_test_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
    const open = (queryTimeoutMs?: number) =>
      openSource('pgsql', { conn_string: target.connString }, { timeoutMs: 5_000, queryTimeoutMs });

    beforeAll(async () => {
      target = await start();
      await target.exec(
        `create table ${table} (day integer, country text, amount numeric(12,2));
         insert into ${table} select 20240101 + g % 28, case when g % 2 = 0 then 'DE' else 'FR' end, g * 1.25
         from generate_series(1, ${ROWS}) g;`,
      );
    });

    afterAll(async () => {
      await target?.exec(`drop table if exists ${table}`).catch(() => {});
      await target?.stop();
    });

    it('passes the connection test', async () => {
      const src = open();
      await expect(src.test()).resolves.toBeUndefined();
      await src.close();
    });

    it('previews the first 10 rows with named, typed columns', async () => {
      const src = open();
      const result = await src.preview(`select day, country, amount from ${table} order by amount`);
      await src.close();
      expect(result.columns).toEqual([
        { name: 'day', type: 'int4' },
        { name: 'country', type: 'text' },
        { name: 'amount', type: 'numeric' },
      ]);
      expect(result.rows).toHaveLength(10);
      expect(result.rows[0]).toEqual({ day: 20240102, country: 'FR', amount: '1.25' });
    });

    it('previews the columns of a query without rows', async () => {
      const src = open();
      const result = await src.preview(`select day, amount from ${table} where false`);
      await src.close();
      expect(result).toEqual({
        columns: [
          { name: 'day', type: 'int4' },
          { name: 'amount', type: 'numeric' },
        ],
        rows: [],
      });
    });

    it('streams every row in batches of the requested size', async () => {
      const src = open();
      const sizes: number[] = [];
      let sum = 0;
      for await (const batch of src.stream(`select amount from ${table}`, { batchSize: 1_000 })) {
        sizes.push(batch.length);
        for (const r of batch) sum += Number(r.amount);
      }
      await src.close();
      expect(sizes).toEqual([1_000, 1_000, 500]);
      expect(sum).toBeCloseTo((1.25 * ROWS * (ROWS + 1)) / 2, 2);
    });

    it('reports bad SQL with the database message as an UpstreamError', async () => {
      const src = open();
      const err = await src.preview('select * from no_such_table_here').catch((e) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err.message).toBe('relation "no_such_table_here" does not exist');
      // and the connector is still usable afterwards
      await expect(src.preview('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
      await src.close();
    });

    it('stops reading when the consumer stops, and keeps working', async () => {
      const src = open();
      let seen = 0;
      for await (const batch of src.stream(`select * from ${table}`, { batchSize: 100 })) {
        seen += batch.length;
        if (seen >= 300) break;
      }
      expect(seen).toBe(300);
      await expect(src.preview(`select count(*)::int as n from ${table}`)).resolves.toMatchObject({
        rows: [{ n: ROWS }],
      });
      await src.close();
    });

    it('ends a stream with "query cancelled" when its signal aborts', async () => {
      const src = open();
      const ac = new AbortController();
      let batches = 0;
      const run = (async () => {
        for await (const _ of src.stream(`select * from ${table}`, { batchSize: 100, signal: ac.signal })) {
          batches++;
          if (batches === 2) ac.abort();
        }
      })();
      await expect(run).rejects.toThrow('query cancelled');
      expect(batches).toBe(2);
      await expect(src.test()).resolves.toBeUndefined();
      await src.close();
    });

    it('cancels a statement that outlives the query timeout, on the server too', async ({ skip }) => {
      if (!target.realServer) skip('PGlite runs one statement at a time and ignores cancel requests');
      const src = open(500);
      const started = Date.now();
      await expect(src.preview('select pg_sleep(10) as slept')).rejects.toThrow(
        'preview query timed out after 500 ms',
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      await new Promise((r) => setTimeout(r, 300));
      const running = await target.exec(
        "select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(10) as slept%' and state = 'active'",
      );
      expect(running).toEqual([{ n: 0 }]);
      await expect(src.preview('select 2 as two')).resolves.toMatchObject({ rows: [{ two: 2 }] });
      await src.close();
    });

    it('runs queries read-only, one statement at a time, with a server-side statement timeout', async () => {
      const src = open(4_000);
      const writes = [
        `insert into ${table} values (1, 'XX', 1) returning day`,
        `with d as (delete from ${table} returning 1) select count(*) from d`,
        `select 1 as one; delete from ${table}`,
        `create table ${table}_evil (x int)`,
      ];
      for (const sql of writes) {
        const err = await src.preview(sql).catch((e) => e);
        expect(err, sql).toBeInstanceOf(UpstreamError);
        expect(String(err.message), sql).toMatch(/read-only transaction|multiple commands/);
      }
      const streamed = (async () => {
        for await (const _ of src.stream(`delete from ${table} returning day`, { batchSize: 10 })) void _;
      })();
      await expect(streamed).rejects.toThrow(/read-only transaction/);
      const twice = (async () => {
        for await (const _ of src.stream(`select 1 as one; delete from ${table}`, { batchSize: 10 })) void _;
      })();
      await expect(twice).rejects.toThrow(/multiple commands/);
      expect(await target.exec(`select count(*)::int as n from ${table}`)).toEqual([{ n: ROWS }]);
      const settings = await src.preview(
        "select current_setting('transaction_read_only') as ro, current_setting('statement_timeout') as timeout",
      );
      expect(settings.rows).toEqual([{ ro: 'on', timeout: '4s' }]);
      // The session is left outside any transaction: later queries still work.
      await expect(src.preview('select 3 as three')).resolves.toMatchObject({ rows: [{ three: 3 }] });
      await src.close();
    });

    it('fetches at most 10 rows for a preview, whatever limit is asked', async () => {
      const src = open();
      const result = await src.preview(`select day from ${table}`, 10_000);
      expect(result.rows).toHaveLength(10);
      await src.close();
    });
  });
}
