/**
 * The one reader of a view's series: chunks written as the load writes them (series-writer.ts), read
 * back over windows of days, per measure, filled as the view says, on PGlite and PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { createDataset } from '../../../lib/dataset/ddl';
import { packSeries } from '../../../lib/dataset/series-chunks';
import {
  countVaries,
  type GapFill,
  PGLITE_READ_SERIES,
  readSeries,
  type SeriesMeasure,
  seriesPerDay,
  viewDays,
} from '../../../lib/dataset/series-store';
import { writeChunks } from '../../../lib/dataset/series-writer';
import type { Database } from '../../../lib/db/database';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';

const SCHEMA = 'dv_store_test';
const DAY0 = toEpochDay('2024-01-01');
const DAYS = 10;
const WINDOW = { dayIndex0: DAY0, days: DAYS };
const read = (
  db: Database,
  ids: number[],
  measures: SeriesMeasure[],
  window = WINDOW,
  fill: GapFill = 'zero',
) => readSeries(db, { schema: SCHEMA, fill }, ids, window, measures);
const row = (b: { values: Float64Array; days: number }, r: number) =>
  Array.from(b.values.subarray(r * b.days, (r + 1) * b.days));
const presentRow = (b: { present: Uint8Array; days: number }, r: number) =>
  Array.from(b.present.subarray(r * b.days, (r + 1) * b.days));

describe(`reading a view's series on ${backendName}`, () => {
  let t: TestDatabase;
  /** Writes series `id` from epoch day `from`: [value, count] per day, null for a day without data. */
  const put = (id: number, from: number, days: Array<[number, number] | null>) =>
    writeChunks(
      t.db,
      SCHEMA,
      'data',
      packSeries(
        id,
        from,
        days.map((d) => d?.[0] ?? 0),
        days.map((d) => d?.[1] ?? 0),
        days.map((d) => (d ? 1 : 0)),
      ),
    );

  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db.tx((tx) => createDataset(tx, SCHEMA, { categories: [{ name: 'c' }] }));
    // Series 1: days 1..9 with a gap on day 4, a count that varies. Series 2: a constant count, from the
    // day before the window to the day after it. Series 3: data only 12 days before the window. Series 4: none.
    await put(
      1,
      DAY0 + 1,
      Array.from({ length: 9 }, (_, i) => (i + 1 === 4 ? null : [10.5 * (i + 1), (i + 1) % 3])),
    );
    await put(
      2,
      DAY0 - 1,
      Array.from({ length: 12 }, (_, i) => [i === 0 || i === 11 ? 999 : i === 1 ? 0 : -1.25 * (i - 1), 2]),
    );
    await put(3, DAY0 - 12, [[5, 1]]);
    // The view's days: 12 days before the window to the day after it; how many series have data each day.
    const perDay = [
      [20231220, 1],
      [20231231, 1],
      ...Array.from({ length: 10 }, (_, d) => [20240101 + d, d === 0 || d === 4 ? 1 : 2]),
      [20240111, 1],
    ];
    await t.db.rows(
      sql.raw(`INSERT INTO ${SCHEMA}.days (day, series) VALUES ${perDay.map((d) => `(${d})`).join(', ')}`),
    );
  });
  afterAll(async () => {
    await t?.drop();
  });

  const ids = [3, 1, 4, 2];

  it('reads value and count at once exactly as one read per measure', async () => {
    const [value, count] = await read(t.db, ids, ['value', 'count']);
    expect(value).toEqual((await read(t.db, ids, ['value']))[0]);
    expect(count).toEqual((await read(t.db, ids, ['count']))[0]);
    // Series 1 (row 1) has no day 0 and a gap on day 4 (0, not present); series 4 (row 2) nothing.
    expect(row(value, 1)).toEqual([0, 10.5, 21, 31.5, 0, 52.5, 63, 73.5, 84, 94.5]);
    expect(row(count, 1)).toEqual([0, 1, 2, 0, 0, 2, 0, 1, 2, 0]);
    expect(presentRow(count, 1)).toEqual([0, 1, 1, 1, 0, 1, 1, 1, 1, 1]);
    expect(row(value, 3)).toEqual(Array.from({ length: DAYS }, (_, d) => (d === 0 ? 0 : -1.25 * d)));
    expect(row(count, 3)).toEqual(Array(DAYS).fill(2));
    // Series 3 has data before the window only: its days in the window are filled (0), not present.
    expect(presentRow(value, 0)).toEqual(Array(DAYS).fill(0));
    expect(presentRow(value, 2)).toEqual(Array(DAYS).fill(0));
    // Value per event only where the count varies (series 1), and only on the value block.
    expect(value.valuePerEvent?.[1]).toBeCloseTo((10.5 * 41) / 8, 12);
    expect(Array.from(value.valuePerEvent ?? []).filter((_, r) => r !== 1)).toEqual([0, 0, 0]);
    expect(count.valuePerEvent).toBeUndefined();
  });

  it('fills gaps as the view says, with the days on either side of the window', async () => {
    const [prev] = await read(t.db, ids, ['value'], WINDOW, 'previous');
    expect(row(prev, 1)[4]).toBe(31.5);
    // Series 3: its last value, 12 days before the window, carried to the view's last day.
    expect(row(prev, 0)).toEqual(Array(DAYS).fill(5));
    const [linear] = await read(t.db, ids, ['value'], WINDOW, 'linear');
    expect(row(linear, 1)[4]).toBe((31.5 + 52.5) / 2);
    // A window of days 2..3 of series 1: day 4's neighbours lie outside it (days 3 and 5).
    const narrow = { dayIndex0: DAY0 + 4, days: 1 };
    const [inner] = await read(t.db, [1], ['value'], narrow, 'linear');
    expect(Array.from(inner.values)).toEqual([42]);
    expect(Array.from(inner.present)).toEqual([0]);
  });

  it('reads across chunk boundaries and within one chunk alike', async () => {
    // A series across the boundary of two chunks (2024-07-31 | 2024-08-01), read whole and in a window
    // that ends in the first chunk, then starts in the second.
    const edge = toEpochDay('2024-07-29');
    await put(50, edge, [[1, 1], null, [3, 1], [4, 1], null, [6, 1]]);
    const edgeDays = '20240729, 20240731, 20240801, 20240803';
    await t.db.rows(sql.raw(`INSERT INTO ${SCHEMA}.days SELECT unnest('{${edgeDays}}'::int[]), 1`));
    const [across] = await read(t.db, [50], ['value'], { dayIndex0: edge, days: 6 }, 'linear');
    expect(row(across, 0)).toEqual([1, 2, 3, 4, 5, 6]);
    const [first] = await read(t.db, [50], ['value'], { dayIndex0: edge, days: 2 }, 'linear');
    expect(row(first, 0)).toEqual([1, 2]);
    const [second] = await read(t.db, [50], ['value'], { dayIndex0: edge + 4, days: 2 }, 'linear');
    expect(row(second, 0)).toEqual([5, 6]);
    await t.db.rows(sql.raw(`DELETE FROM ${SCHEMA}.data WHERE series_id = 50`));
    await t.db.rows(sql.raw(`DELETE FROM ${SCHEMA}.days WHERE day IN (${edgeDays})`));
    // A window wider than the series: nothing before its first day, nothing filled after the view's last day.
    const wide = { dayIndex0: DAY0 - 2, days: 200 };
    const [value] = await read(t.db, [2], ['value'], wide);
    expect(row(value, 0).slice(0, 4)).toEqual([0, 999, 0, -1.25]);
    expect(row(value, 0)[12]).toBe(999);
    expect(
      row(value, 0)
        .slice(13)
        .every((v) => v === 0),
    ).toBe(true);
    expect(await viewDays(t.db, { schema: SCHEMA, fill: 'zero' })).toEqual({
      dayIndex0: toEpochDay('2023-12-20'),
      days: 23,
    });
  });

  it('reads the measures in the order asked, once each', async () => {
    const [count, value] = await read(t.db, [2], ['count', 'value']);
    expect(Array.from(count.values)).toEqual(Array(DAYS).fill(2));
    expect(value.values[1]).toBe(-1.25);
    await expect(read(t.db, [2], ['value', 'value'])).rejects.toThrow(/distinct/);
    await expect(read(t.db, [2], [])).rejects.toThrow(/not empty/);
  });

  it('reads many series on PGlite in statements of their own, the same blocks as one statement (a binary COPY on PostgreSQL)', async () => {
    const many = Array.from({ length: 100 }, (_, i) => 101 + i);
    for (const id of many)
      await put(
        id,
        DAY0,
        Array.from({ length: DAYS }, (_, d) => [id * 10 + d, 1 + (d % 2)]),
      );
    const asked: string[] = [];
    const spy = (db: Database, kind: Database['kind']): Database => ({
      kind,
      orm: db.orm,
      close: () => db.close(),
      rows: (q) => {
        asked.push('statement');
        return db.rows(q);
      },
      tx: (fn) => db.tx((tx) => fn(spy(tx, kind))),
    });
    const reversed = [...many].reverse();
    const chunked = await read(spy(t.db, 'pglite'), reversed, ['value', 'count']);
    // The view's range, then every chunk of the view, in statements of PGLITE_READ_SERIES series.
    expect(asked.length).toBe(1 + Math.ceil(reversed.length / PGLITE_READ_SERIES));
    asked.length = 0;
    const whole = await read(spy(t.db, 'postgres'), reversed, ['value', 'count']);
    // On a PostgreSQL server the chunks come through a binary COPY (not a statement of `rows`).
    const chunkStatements = backendName === 'postgres' ? 0 : 1;
    expect(asked.length).toBe(1 + chunkStatements);
    expect(chunked).toEqual(whole);
    // Only the window's chunks: then the last chunk before them too (the window's chunk starts after the
    // view's first day), each in statements of PGLITE_READ_SERIES series.
    asked.length = 0;
    const only = (db: Database) =>
      readSeries(db, { schema: SCHEMA, fill: 'zero' }, reversed, WINDOW, ['value', 'count'], {
        windowOnly: true,
      });
    const windowed = await only(spy(t.db, 'pglite'));
    // Zero-filled gaps need no day before the window: no neighbour statements.
    expect(asked.length).toBe(1 + Math.ceil(reversed.length / PGLITE_READ_SERIES));
    asked.length = 0;
    expect(await only(spy(t.db, 'postgres'))).toEqual(windowed);
    expect(asked.length).toBe(1 + chunkStatements);
    expect(windowed).toEqual(whole);
    expect(chunked[0].values[0 * DAYS + 3]).toBe(200 * 10 + 3);
    expect(chunked[0].valuePerEvent?.[99]).toBeCloseTo((101 * 10 * DAYS + 45) / 15, 9);
  });

  it('takes the value per event over every day of a series, or over the window only when asked', async () => {
    // Series 60: one event of 5 twelve days before the window (another chunk), then 2 events of 10 a day
    // in the window: the count varies over the series, not within the window.
    await put(60, DAY0 - 12, [[5, 1]]);
    await put(
      60,
      DAY0,
      Array.from({ length: DAYS }, () => [10, 2] as [number, number]),
    );
    try {
      const [all] = await read(t.db, [60], ['value']);
      expect(all.valuePerEvent?.[0]).toBeCloseTo((5 + 10 * DAYS) / (1 + 2 * DAYS), 12);
      const [windowed] = await readSeries(t.db, { schema: SCHEMA, fill: 'zero' }, [60], WINDOW, ['value'], {
        windowOnly: true,
      });
      expect(windowed.valuePerEvent?.[0]).toBe(0);
      expect(windowed.values).toEqual(all.values);
    } finally {
      await t.db.rows(sql.raw(`DELETE FROM ${SCHEMA}.data WHERE series_id = 60`));
    }
  });

  it('gives empty blocks for no series or no days', async () => {
    const [value, count] = await read(t.db, [], ['value', 'count']);
    expect(value).toEqual((await read(t.db, [], ['value']))[0]);
    expect(count.values.length).toBe(0);
    const [none] = await read(t.db, [1], ['value'], { dayIndex0: DAY0, days: 0 });
    expect(none.values.length).toBe(0);
  });

  it('counts the series with data per day from a day on', async () => {
    const per = await seriesPerDay(t.db, { schema: SCHEMA, fill: 'zero' }, WINDOW, 3);
    expect(Array.from(per)).toEqual([0, 0, 0, 2, 1, 2, 2, 2, 2, 2]);
  });

  it("tells whether a series' count varies over its days with data", async () => {
    const source = { schema: SCHEMA, fill: 'zero' as const };
    expect(await countVaries(t.db, source, 1)).toBe(true);
    expect(await countVaries(t.db, source, 2)).toBe(false);
    expect(await countVaries(t.db, source, 4)).toBe(false);
    expect(await countVaries(t.db, source, null)).toBe(false);
  });
});
