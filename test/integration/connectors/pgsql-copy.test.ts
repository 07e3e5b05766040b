/**
 * A load's stream from PostgreSQL goes through COPY … TO STDOUT: the rows must be those the cursor gives
 * (same keys, same JavaScript types and values), whatever the text holds; the connection must stay usable
 * after every way a COPY can end. Runs only against a real server (DATABASE_URL).
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../../lib/connectors/index';
import { skippedBecause } from '../../support/skip';

const databaseUrl = process.env.DATABASE_URL;

// Every type postgres.js parses by default, and text that COPY's text format must escape.
const EDGE_SELECT = (
  table: string,
) => `select id, i2, i4, i8, f4, f8, num, flag, txt, d, ts, tstz, j, jb, ints, texts, bin, u, iv
  from ${table} order by id`;

const EDGE_ROWS = `
  (1, 1::int2, 20240131, 9007199254740993::int8, 1.5::float4, 0.1::float8, 12345678901234567890.123456789::numeric, true,
   'plain', date '2024-02-29', timestamp '2024-02-29 13:14:15.123456', timestamptz '2024-02-29 13:14:15.5+02',
   '{"a": [1, "x\\ty"]}'::json, '{"b": null, "c": "é"}'::jsonb, '{1,NULL,3}'::int4[], '{"a b","c,d","e\\"f",NULL,"g\\\\h"}'::text[],
   '\\x00ff10'::bytea, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, interval '1 day 02:03:04'),
  (2, '-32768'::int2, -2147483648, -1::int8, 'NaN'::float4, 'Infinity'::float8, -0.5::numeric, false,
   E'tab\\there\\nnewline\\r\\nCRLF back\\\\slash \\b\\f\\x0b\\x01 end', date '0001-01-01', timestamp '1999-12-31 23:59:59',
   timestamptz '1970-01-01 00:00:00+00', '[]'::json, '"s"'::jsonb, '{}'::int4[], '{}'::text[],
   '\\x'::bytea, '00000000-0000-0000-0000-000000000000'::uuid, interval '-1 year'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 0::int2, 0, 0::int8, '-Infinity'::float4, 1e308::float8, 0::numeric, true,
   'quotes '' " and \\N and \\\\N and NULL and ''NULL''', date '2024-01-01', timestamp '2024-01-01 00:00:00',
   timestamptz '2024-06-30 23:00:00-07', 'null'::json, '{"k": "\\u00e9\\n"}'::jsonb, '{{1,2},{3,4}}'::int4[], '{"",""}'::text[],
   '\\x5c'::bytea, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid, interval '0'),
  (5, 7::int2, 7, 7::int8, 7::float4, 7::float8, 7::numeric, false,
   'Ünïcödé ✓ 日本語 😀 ‮rtl', date '2024-12-31', timestamp '2024-12-31 12:00:00', timestamptz '2024-12-31 12:00:00Z',
   '{"emoji": "😀"}'::json, '{"日本": "語"}'::jsonb, '{-1}'::int4[], '{"😀","日本"}'::text[],
   '\\xdeadbeef'::bytea, '12345678-1234-1234-1234-123456789abc'::uuid, interval '3 months'),
  (6, 0::int2, 0, 0::int8, 0::float4, 0::float8, 0::numeric, true, '', date '2024-01-02', timestamp '2024-01-02 00:00:00',
   timestamptz '2024-01-02 00:00:00Z', '{}'::json, '{}'::jsonb, '{NULL}'::int4[], '{NULL,"NULL"}'::text[],
   '\\x'::bytea, NULL, NULL)`;

if (!databaseUrl) {
  skippedBecause(
    'runs only when DATABASE_URL points at a PostgreSQL server (postgres://…)',
    'the pgsql connector reads loads with COPY on PostgreSQL',
  );
} else {
  describe('the pgsql connector reads loads with COPY on PostgreSQL', () => {
    const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const table = `copy_test_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
    const wide = `${table}_wide`;
    const open = () => openSource('pgsql', { conn_string: databaseUrl }, { timeoutMs: 5_000 });
    const streamAll = async (sql: string, batchSize = 1_000) => {
      const src = open();
      const rows: Record<string, unknown>[] = [];
      const sizes: number[] = [];
      try {
        for await (const b of src.stream(sql, { batchSize })) {
          sizes.push(b.length);
          rows.push(...b);
        }
      } finally {
        await src.close();
      }
      return { rows, sizes };
    };

    /** The same read column by column (a load's read), as row objects again. */
    const streamColumnsAll = async (sql: string, batchSize = 1_000) => {
      const src = open();
      const rows: Record<string, unknown>[] = [];
      const sizes: number[] = [];
      try {
        for await (const b of src.streamColumns(sql, { batchSize })) {
          sizes.push(b.length);
          for (let r = 0; r < b.length; r++)
            rows.push(Object.fromEntries(b.names.map((n, i) => [n, b.columns[i][r]])));
        }
      } finally {
        await src.close();
      }
      return { rows, sizes };
    };

    beforeAll(async () => {
      await admin.unsafe(`create table ${table} (id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, num numeric,
        flag bool, txt text, d date, ts timestamp, tstz timestamptz, j json, jb jsonb, ints int4[], texts text[],
        bin bytea, u uuid, iv interval)`);
      await admin.unsafe(`insert into ${table} values ${EDGE_ROWS}`);
      // Rows long enough to span many socket chunks, multi-byte characters cut anywhere.
      await admin.unsafe(`create table ${wide} as select g as id, 20240101 + g % 28 as day,
        repeat('ü€😀\t\\', 1 + g % 7) || g as label, (g * 0.25)::float8 as amount
        from generate_series(1, 30000) g`);
    });

    afterAll(async () => {
      await admin.unsafe(`drop table if exists ${table}, ${wide}`).catch(() => {});
      await admin.end({ timeout: 1 });
    });

    it('goes through COPY (the statement the server runs is the COPY)', async () => {
      const { rows } = await streamAll('select current_query() as q');
      expect(String(rows[0].q)).toMatch(/^COPY \(\nselect current_query\(\) as q\n\) TO STDOUT$/);
    });

    it('gives every edge value exactly as the cursor gives it (types, NULLs, escapes, non-ASCII)', async () => {
      const { rows } = await streamAll(EDGE_SELECT(table));
      const expected = [...(await admin.unsafe(EDGE_SELECT(table)))];
      expect(rows).toHaveLength(6);
      expect(rows).toEqual(expected);
      // a few values spelled out, so the comparison above cannot pass on two equally wrong readers
      expect(rows[1].txt).toBe('tab\there\nnewline\r\nCRLF back\\slash \b\f\v\x01 end');
      expect(rows[2]).toMatchObject({ i4: null, txt: null, ints: null, j: null });
      expect(rows[3].txt).toBe(`quotes ' " and \\N and \\\\N and NULL and 'NULL'`);
      expect(rows[4].txt).toBe('Ünïcödé ✓ 日本語 😀 ‮rtl');
      expect(rows[5].txt).toBe('');
      expect(rows[0]).toMatchObject({ i2: 1, i4: 20240131, i8: '9007199254740993', f8: 0.1, flag: true });
      expect(rows[0].num).toBe('12345678901234567890.123456789');
      expect(rows[0].d).toBeInstanceOf(Date);
      expect(rows[0].jb).toEqual({ b: null, c: 'é' });
      expect((rows[0].texts as string[]).filter((_, i) => i !== 3)).toEqual(['a b', 'c,d', 'e"f', 'g\\h']);
      expect(rows[1].f4).toBeNaN();
      expect(rows[3].ints).toEqual([
        [1, 2],
        [3, 4],
      ]);
    });

    it('gives every edge value column by column exactly as the cursor gives it', async () => {
      const { rows } = await streamColumnsAll(EDGE_SELECT(table));
      const expected = [...(await admin.unsafe(EDGE_SELECT(table)))];
      expect(rows).toHaveLength(6);
      expect(rows).toEqual(expected);
      expect(rows[4].txt).toBe('Ünïcödé ✓ 日本語 😀 ‮rtl');
      expect(rows[0]).toMatchObject({ i2: 1, i4: 20240131, i8: '9007199254740993', f8: 0.1 });
    });

    it('reads long results column by column in batches of the requested size, as the cursor', async () => {
      const sql = `select id, day, label, amount, label as again from ${wide} order by id`;
      const { rows, sizes } = await streamColumnsAll(sql, 7_000);
      expect(sizes).toEqual([7_000, 7_000, 7_000, 7_000, 2_000]);
      expect(rows).toEqual([...(await admin.unsafe(sql))]);
    });

    it('reads results that span many chunks, in batches of the requested size', async () => {
      const sql = `select id, day, label, amount from ${wide} order by id`;
      const { rows, sizes } = await streamAll(sql, 7_000);
      expect(sizes).toEqual([7_000, 7_000, 7_000, 7_000, 2_000]);
      const expected = [...(await admin.unsafe(sql))];
      expect(rows).toEqual(expected);
      expect(rows[29_999]).toEqual({
        id: 30_000,
        day: 20240101 + (30_000 % 28),
        label: expect.any(String),
        amount: 7_500,
      });
    });

    it('keeps the connection usable after many COPY reads of every size on one connector', async () => {
      const src = open();
      try {
        for (const n of [0, 1, 10, 500, 2_000, 5_000, 30_000, 3, 30_000, 0]) {
          let seen = 0;
          for await (const b of src.stream(`select id, label from ${wide} where id <= ${n}`, {
            batchSize: 1_000,
          }))
            seen += b.length;
          expect(seen, `rows of ${n}`).toBe(n);
          await expect(src.preview('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
        }
      } finally {
        await src.close();
      }
    });

    it('keeps working after a stream given up in the middle, and after a failing one', async () => {
      const src = open();
      try {
        let seen = 0;
        for await (const b of src.stream(`select * from ${wide}`, { batchSize: 100 })) {
          seen += b.length;
          if (seen >= 300) break;
        }
        expect(seen).toBe(300);
        const failing = (async () => {
          for await (const _ of src.stream(`select 1 / (id - 20000) as x from ${wide} order by id`, {
            batchSize: 1_000,
          }))
            void _;
        })();
        await expect(failing).rejects.toThrow('division by zero');
        const { rows } = await src.preview(`select count(*)::int as n from ${wide}`);
        expect(rows).toEqual([{ n: 30_000 }]);
      } finally {
        await src.close();
      }
    });

    it('bounds a COPY that outlives the query timeout and stops it on the server', async () => {
      const src = openSource(
        'pgsql',
        { conn_string: databaseUrl },
        { timeoutMs: 5_000, queryTimeoutMs: 500 },
      );
      try {
        const started = Date.now();
        const run = (async () => {
          for await (const _ of src.stream('select pg_sleep(10) as copy_slept', { batchSize: 10 })) void _;
        })();
        await expect(run).rejects.toThrow('query timed out after 500 ms');
        expect(Date.now() - started).toBeLessThan(3_000);
        await new Promise((r) => setTimeout(r, 300));
        const running = await admin.unsafe(
          "select count(*)::int as n from pg_stat_activity where query like 'COPY (%copy_slept%' and state = 'active'",
        );
        expect([...running]).toEqual([{ n: 0 }]);
        await expect(src.preview('select 4 as four')).resolves.toMatchObject({ rows: [{ four: 4 }] });
      } finally {
        await src.close();
      }
    });

    it('never lets a query reach COPY options or a second statement', async () => {
      const attempts = [
        `select 1 as one) to stdout with (format csv, header) --`,
        `select 1 as one) to stdout; select (2`,
        `select 1 as one; select 2 as two`,
      ];
      for (const sql of attempts) {
        const err = await streamAll(sql).catch((e) => e);
        expect(err, sql).toBeInstanceOf(Error);
        expect(String(err.message), sql).toMatch(/syntax error|multiple commands/);
      }
    });
  });
}
