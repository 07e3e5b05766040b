/**
 * Migration 0014: views deployed before the series were stored in chunks get their `data` converted
 * (one row per series and day → one row per series and chunk) and a `days` table, and read the same.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { readSeries, seriesPerDay } from '../../../lib/dataset/series-store';
import seriesChunks from '../../../lib/db/migrations/0014-series-chunks';
import { createTestDatabase, type TestDatabase } from '../../support/db';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

const OLD_DATA =
  'series_id integer NOT NULL, day integer NOT NULL, value double precision NOT NULL, cnt double precision NOT NULL DEFAULT 0, filled boolean NOT NULL DEFAULT false';

it.each([
  ['a plain table', false],
  ['a table partitioned by series (an embedded build)', true],
])('converts data stored by day in %s, and can run again', async (_, partitioned) => {
  const s = partitioned ? 'dv_9078' : 'dv_9079';
  await t.db.rows(sql.raw(`CREATE SCHEMA ${s}`));
  if (partitioned) {
    await t.db.rows(sql.raw(`CREATE TABLE ${s}.data (${OLD_DATA}) PARTITION BY RANGE (series_id)`));
    await t.db.rows(sql.raw(`CREATE TABLE ${s}.data_x_p0 PARTITION OF ${s}.data FOR VALUES FROM (1) TO (2)`));
    await t.db.rows(
      sql.raw(`CREATE TABLE ${s}.data_x_p1 PARTITION OF ${s}.data FOR VALUES FROM (2) TO (10)`),
    );
    await t.db.rows(sql.raw(`ALTER TABLE ${s}.data ADD CONSTRAINT data_pkey PRIMARY KEY (series_id, day)`));
  } else {
    await t.db.rows(
      sql.raw(`CREATE TABLE ${s}.data (${OLD_DATA}, CONSTRAINT data_pkey PRIMARY KEY (series_id, day))`),
    );
  }
  // Series 1: 2024-07-29 .. 08-03 across a chunk boundary (07-31 | 08-01), gaps filled with zeros on
  // the 30th and the 2nd. Series 2: one day, a negative value.
  await t.db.rows(
    sql.raw(`INSERT INTO ${s}.data (series_id, day, value, cnt, filled) VALUES
      (1, 20240729, 1.5, 1, false), (1, 20240730, 0, 0, true), (1, 20240731, 3, 2, false),
      (1, 20240801, 4, 1, false), (1, 20240802, 0, 0, true), (1, 20240803, 6.25, 3, false),
      (2, 20240801, -2, 5, false), (2, 20240802, 0, 0, true), (2, 20240803, 0, 0, true)`),
  );
  const statement = seriesChunks.trim().replace(/;$/, '');
  await t.db.rows(sql.raw(statement));
  await t.db.rows(sql.raw(statement));
  const chunks = await t.db.rows(
    sql.raw(`SELECT series_id, chunk, days, first_offset, last_offset, sum_value, sum_cnt, length(value) AS bytes
      FROM ${s}.data ORDER BY 1, 2`),
  );
  const c = Math.floor(toEpochDay('2024-07-29') / 112);
  expect(chunks).toEqual([
    {
      series_id: 1,
      chunk: c,
      days: 2,
      first_offset: 109,
      last_offset: 111,
      sum_value: 4.5,
      sum_cnt: 3,
      bytes: 112 * 8,
    },
    {
      series_id: 1,
      chunk: c + 1,
      days: 2,
      first_offset: 0,
      last_offset: 2,
      sum_value: 10.25,
      sum_cnt: 4,
      bytes: 24,
    },
    {
      series_id: 2,
      chunk: c + 1,
      days: 1,
      first_offset: 0,
      last_offset: 0,
      sum_value: -2,
      sum_cnt: 5,
      bytes: 8,
    },
  ]);
  const source = { schema: s, fill: 'linear' as const };
  const window = { dayIndex0: toEpochDay('2024-07-29'), days: 6 };
  const [value, count] = await readSeries(t.db, source, [1, 2], window, ['value', 'count']);
  expect(Array.from(value.values)).toEqual([1.5, 2.25, 3, 4, 5.125, 6.25, 0, 0, 0, -2, -2, -2]);
  expect(Array.from(value.present)).toEqual([1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0]);
  expect(Array.from(count.values.subarray(0, 6))).toEqual([1, 1.5, 2, 1, 2, 3]);
  expect(Array.from(await seriesPerDay(t.db, source, window, 0))).toEqual([1, 0, 1, 2, 0, 1]);
  await t.db.rows(sql.raw(`DROP SCHEMA ${s} CASCADE`));
});
