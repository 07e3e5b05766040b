import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { createDataset } from '../../../lib/dataset/ddl';
import type { Database } from '../../../lib/db/database';
import {
  countVaries,
  PGLITE_READ_SERIES,
  readSeries,
  type SeriesMeasure,
  seriesPerDay,
} from '../../../lib/dataset/series-store';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';

const SCHEMA = 'dv_reader_test';
const DAY0 = toEpochDay('2024-01-01');
const DAYS = 10;
const SOURCE = { schema: SCHEMA, fill: 'zero' as const };
const WINDOW = { dayIndex0: DAY0, days: DAYS };
const read = (db: Database, ids: number[], measures: SeriesMeasure[], window = WINDOW) =>
  readSeries(db, SOURCE, ids, window, measures);

describe(`reading a view's series on ${backendName}`, () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db.tx((tx) => createDataset(tx, SCHEMA, { categories: [{ name: 'c' }] }));
    // Series 1: days 1..9 (day 0 has no row), day 4 gap-filled, a count that varies.
    // Series 2: a constant count, a row before and one after the view's days.
    // Series 3: every day gap-filled. Series 4 has no rows at all.
    const rows: string[] = [];
    const ymd = (t: number) => 20240101 + t;
    for (let d = 1; d < DAYS; d++)
      rows.push(`(1, ${ymd(d)}, ${d === 4 ? 0 : 10.5 * d}, ${d === 4 ? 0 : d % 3}, ${d === 4})`);
    for (let d = 0; d < DAYS; d++) rows.push(`(2, ${ymd(d)}, ${-1.25 * d}, 2, false)`);
    rows.push('(2, 20231231, 999, 2, false)', '(2, 20240111, 999, 2, false)');
    for (let d = 0; d < DAYS; d++) rows.push(`(3, ${ymd(d)}, 0, 0, true)`);
    await t.db.rows(
      sql.raw(`INSERT INTO ${SCHEMA}.data (series_id, day, value, cnt, filled) VALUES ${rows.join(', ')}`),
    );
  });
  afterAll(async () => {
    await t?.drop();
  });

  const ids = [3, 1, 4, 2];

  it('reads value and count in one query exactly as one query per measure does', async () => {
    const [value, count] = await read(t.db, ids, ['value', 'count']);
    const [v1] = await read(t.db, ids, ['value']);
    const [c1] = await read(t.db, ids, ['count']);
    expect(value).toEqual(v1);
    expect(count).toEqual(c1);
    // And what that is: series 1 (row 1) has no day 0, a filled day 4; series 4 (row 2) nothing.
    const row = (b: typeof value, r: number) => Array.from(b.values.subarray(r * DAYS, (r + 1) * DAYS));
    const present = (b: typeof value, r: number) => Array.from(b.present.subarray(r * DAYS, (r + 1) * DAYS));
    expect(row(value, 1)).toEqual([0, 10.5, 21, 31.5, 0, 52.5, 63, 73.5, 84, 94.5]);
    expect(row(count, 1)).toEqual([0, 1, 2, 0, 0, 2, 0, 1, 2, 0]);
    expect(present(count, 1)).toEqual([0, 1, 1, 1, 0, 1, 1, 1, 1, 1]);
    expect(row(value, 3)).toEqual(Array.from({ length: DAYS }, (_, d) => (d === 0 ? 0 : -1.25 * d)));
    expect(row(count, 3)).toEqual(Array(DAYS).fill(2));
    expect(present(value, 0)).toEqual(Array(DAYS).fill(0));
    expect(present(value, 2)).toEqual(Array(DAYS).fill(0));
    // Value per event only where the count varies (series 1), and only on the value block.
    expect(value.valuePerEvent?.[1]).toBeCloseTo((10.5 * 41) / 8, 12);
    expect(Array.from(value.valuePerEvent ?? []).filter((_, r) => r !== 1)).toEqual([0, 0, 0]);
    expect(count.valuePerEvent).toBeUndefined();
  });

  it('reads the measures in the order asked, once each', async () => {
    const [count, value] = await read(t.db, [2], ['count', 'value']);
    expect(Array.from(count.values)).toEqual(Array(DAYS).fill(2));
    expect(value.values[1]).toBe(-1.25);
    await expect(read(t.db, [2], ['value', 'value'])).rejects.toThrow(/distinct/);
    await expect(read(t.db, [2], [])).rejects.toThrow(/not empty/);
  });

  it('reads many series on PGlite in statements of their own, the same blocks as one statement', async () => {
    // 100 more series (ids 101..200), each day valued by its id: more than two PGlite statements.
    const many = Array.from({ length: 100 }, (_, i) => 101 + i);
    await t.db.rows(
      sql.raw(`INSERT INTO ${SCHEMA}.data (series_id, day, value, cnt, filled)
        SELECT id, 20240101 + d, id * 10 + d, 1 + d % 2, false FROM unnest('{${many.join(',')}}'::int[]) id,
          generate_series(0, ${DAYS - 1}) d`),
    );
    const asked: string[] = [];
    const spy = (db: Database, kind: Database['kind'], inTx = false): Database => ({
      kind,
      orm: db.orm,
      close: () => db.close(),
      rows: (q) => {
        asked.push(inTx ? 'tx' : 'alone');
        return db.rows(q);
      },
      tx: (fn) => db.tx((tx) => fn(spy(tx, kind, true))),
    });
    const ids = [...many].reverse();
    const chunked = await read(spy(t.db, 'pglite'), ids, ['value', 'count']);
    expect(asked).toEqual(Array(Math.ceil(ids.length / PGLITE_READ_SERIES)).fill('alone'));
    asked.length = 0;
    const whole = await read(spy(t.db, 'postgres'), ids, ['value', 'count']);
    expect(asked).toEqual(['tx', 'tx']);
    expect(chunked).toEqual(whole);
    expect(chunked[0].values[0 * DAYS + 3]).toBe(200 * 10 + 3);
    expect(chunked[0].valuePerEvent?.[99]).toBeCloseTo((101 * 10 * DAYS + 45) / 15, 9);
  });

  it('gives empty blocks for no series or no days', async () => {
    const [value, count] = await read(t.db, [], ['value', 'count']);
    expect(value).toEqual((await read(t.db, [], ['value']))[0]);
    expect(count.values.length).toBe(0);
    const [none] = await read(t.db, [1], ['value'], { dayIndex0: DAY0, days: 0 });
    expect(none.values.length).toBe(0);
  });

  it('counts the series with data per day from a day on', async () => {
    const per = await seriesPerDay(t.db, SOURCE, WINDOW, 3);
    // Day 3: series 1 and 2 (and the 100 series of the test before, when it ran); day 4: series 1 is filled.
    const many = per[9] - 2;
    expect(Array.from(per.subarray(0, 3))).toEqual([0, 0, 0]);
    expect(per[3]).toBe(2 + many);
    expect(per[4]).toBe(1 + many);
  });

  it("tells whether a series' count varies over its days with data", async () => {
    expect(await countVaries(t.db, SOURCE, 1)).toBe(true);
    expect(await countVaries(t.db, SOURCE, 2)).toBe(false);
    expect(await countVaries(t.db, SOURCE, 3)).toBe(false);
    expect(await countVaries(t.db, SOURCE, null)).toBe(true);
  });
});
