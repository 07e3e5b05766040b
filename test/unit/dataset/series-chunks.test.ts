import { describe, expect, it } from 'vitest';
import { fillRow } from '../../../lib/dataset/gap-fill';
import {
  CHUNK_DAYS,
  chunkOf,
  chunkStart,
  packChunk,
  packSeries,
  unpackChunk,
} from '../../../lib/dataset/series-chunks';

describe('series chunks', () => {
  it('cut epoch days into chunks of 112 days', () => {
    expect(CHUNK_DAYS).toBe(112);
    expect(chunkOf(0)).toBe(0);
    expect(chunkOf(111)).toBe(0);
    expect(chunkOf(112)).toBe(1);
    expect(chunkOf(-1)).toBe(-1);
    expect(chunkStart(3)).toBe(336);
  });

  it('pack the days with data, their stats, and unpack them where they belong', () => {
    const values = new Float64Array(CHUNK_DAYS);
    const cnts = new Float64Array(CHUNK_DAYS);
    const present = new Uint8Array(CHUNK_DAYS);
    for (const [t, v, c] of [
      [3, 1.5, 2],
      [9, -7.25, 1],
      [10, 0, 0],
    ])
      [values[t], cnts[t], present[t]] = [v, c, 1];
    values[50] = 99; // not present: not stored
    const row = packChunk(7, 4, values, cnts, present, 0)!;
    expect(row).toMatchObject({
      seriesId: 7,
      chunk: 4,
      days: 3,
      first: 3,
      last: 10,
      sumValue: -5.75,
      sumCnt: 3,
    });
    // Bitmap: days 3, 9, 10; value bytes end at the last day with data (float8send's byte order).
    expect(Array.from(row.present.subarray(0, 2))).toEqual([0b1000, 0b110]);
    expect(row.value.length).toBe(11 * 8);
    expect(Buffer.from(row.value).readDoubleBE(9 * 8)).toBe(-7.25);
    const out = { v: new Float64Array(20), c: new Float64Array(20), p: new Uint8Array(20) };
    // Shifted by -5: day 3 falls before the window, days 9 and 10 at 4 and 5; written from base 10.
    unpackChunk(row.present, row.value, row.cnt, -5, 10, 10, out.v, out.c, out.p);
    expect(Array.from(out.p)).toEqual([...Array(14).fill(0), 1, 1, 0, 0, 0, 0]);
    expect([out.v[14], out.c[14], out.v[15]]).toEqual([-7.25, 1, 0]);
  });

  it('store no chunk without data and no count without a count column', () => {
    const none = new Uint8Array(CHUNK_DAYS);
    expect(packChunk(1, 0, new Float64Array(CHUNK_DAYS), null, none, 0)).toBeUndefined();
    const rows = packSeries(2, chunkStart(5) - 2, [1, 2, 3, 4], null, [1, 0, 1, 1]);
    expect(rows.map((r) => [r.chunk, r.days, r.first, r.last, r.cnt])).toEqual([
      [4, 1, CHUNK_DAYS - 2, CHUNK_DAYS - 2, null],
      [5, 2, 0, 1, null],
    ]);
  });
});

describe('gap filling as series are read', () => {
  // Days 0..7: data on 1 (10), 4 (40) and 5 (20); the view ends on day 6; day 7 is past its end.
  const fill = (method: 'zero' | 'previous' | 'linear', before?: number, after?: number) => {
    const v = new Float64Array([0, 10, 0, 0, 40, 20, 0, 0]);
    const c = new Float64Array([0, 1, 0, 0, 4, 2, 0, 0]);
    const p = new Uint8Array([0, 1, 0, 0, 1, 1, 0, 0]);
    fillRow(
      method,
      v,
      c,
      p,
      0,
      8,
      7,
      before === undefined ? undefined : { t: -2, value: before, cnt: 0 },
      after === undefined ? undefined : { t: 9, value: after, cnt: 8 },
    );
    return { v: Array.from(v), c: Array.from(c), p: Array.from(p) };
  };

  it('zero: the missing days between the first day with data and the view end are 0', () => {
    expect(fill('zero').v).toEqual([0, 10, 0, 0, 40, 20, 0, 0]);
  });

  it('previous: the last known value, also after the last day with data', () => {
    expect(fill('previous').v).toEqual([0, 10, 10, 10, 40, 20, 20, 0]);
    expect(fill('previous').c).toEqual([0, 1, 1, 1, 4, 2, 2, 0]);
  });

  it('linear: the line between the known days; the last value after the last one', () => {
    expect(fill('linear').v).toEqual([0, 10, 20, 30, 40, 20, 20, 0]);
    expect(fill('linear').c).toEqual([0, 1, 2, 3, 4, 2, 2, 0]);
  });

  it('takes known days outside the row: before it and after it', () => {
    // Day -2 known (4): days 0 is between -2 and 1.
    expect(fill('linear', 4).v[0]).toBe(8);
    expect(fill('previous', 4).v[0]).toBe(4);
    // Day 9 known (60): day 6 lies on the line from day 5 (20) to day 9; day 7 is past the view's end.
    expect(fill('linear', undefined, 60).v.slice(5)).toEqual([20, 30, 0]);
  });

  it('leaves presence as it is: filled days are not present', () => {
    expect(fill('linear').p).toEqual([0, 1, 0, 0, 1, 1, 0, 0]);
  });
});
