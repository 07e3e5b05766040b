/** codeBatch: the load's per-batch check and coding gives what checkRow row by row gives, problems included. */
import { describe, expect, it } from 'vitest';
import {
  type CodedColumns,
  checkRow,
  codeBatch,
  resolveColumns,
  type RowShape,
} from '../../../lib/pipeline/rows';
import { Dictionary } from '../../../lib/pipeline/stage';

const shape: RowShape = {
  dateColumn: 'day',
  valueColumn: 'revenue',
  countColumn: 'orders',
  categories: ['country', 'city'],
};
const map = resolveColumns(shape, ['day', 'country', 'city', 'revenue', 'orders']);
const empty = (): CodedColumns => ({ days: [], codes: [[], []], values: [], cnts: [] });

/** The reference: checkRow on every row, then the dictionary, as the load did before codeBatch. */
function reference(rows: Record<string, unknown>[], first = 0) {
  const dict = new Dictionary(shape.categories, []);
  const out = empty();
  let n = first;
  for (const raw of rows) {
    const r = checkRow(raw, map, shape, ++n, 'load query');
    out.days.push(r.day);
    for (let i = 0; i < r.categories.length; i++) out.codes[i].push(dict.code(i, r.categories[i]));
    out.values.push(r.value);
    out.cnts.push(r.cnt);
  }
  return { out, entries: dict.newEntries() };
}

function coded(rows: Record<string, unknown>[], first = 0) {
  const dict = new Dictionary(shape.categories, []);
  const out = empty();
  codeBatch(rows, map, shape, dict, out, first, 'load query');
  return { out, entries: dict.newEntries() };
}

// A deterministic mix of the values drivers return: numbers, bigints, numeric text, digits as the day.
function rowsOf(n: number, seed = 7) {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const day = 20240101 + Math.floor(rnd() * 28);
    const k = rnd();
    rows.push({
      day: k < 0.1 ? BigInt(day) : k < 0.15 ? String(day) : day,
      country: ['CZ', 'DE', 'Ünïcödé\t'][Math.floor(rnd() * 3)],
      city: `city ${Math.floor(rnd() * 5)}`,
      revenue: k < 0.3 ? (rnd() * 100).toFixed(2) : k < 0.35 ? 5n : rnd() * 100,
      orders: k < 0.2 ? '3' : Math.floor(rnd() * 4),
    });
    // runs of the same day and categories, as sorted sources give them
    if (rnd() < 0.3) rows.push({ ...rows[rows.length - 1] });
  }
  return rows;
}

describe('codeBatch', () => {
  it('codes every row as checkRow and the dictionary do, whatever the value types', () => {
    const rows = rowsOf(2_000);
    const got = coded(rows);
    expect(got).toEqual(reference(rows));
    expect(got.out.days).toHaveLength(rows.length);
    expect(got.out.codes[0].every((c) => c >= 1 && c <= 3)).toBe(true);
  });

  it('keeps the codes of an existing dictionary and appends after earlier batches', () => {
    const dict = new Dictionary(shape.categories, [{ category: 'country', code: 7, value: 'DE' }]);
    const out = empty();
    codeBatch([{ day: 20240101, country: 'DE', city: 'x', revenue: 1, orders: 1 }], map, shape, dict, out, 0);
    codeBatch([{ day: 20240102, country: 'FR', city: 'x', revenue: 2, orders: 0 }], map, shape, dict, out, 1);
    expect(out).toEqual({
      days: [20240101, 20240102],
      codes: [
        [7, 8],
        [1, 1],
      ],
      values: [1, 2],
      cnts: [1, 0],
    });
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['a day in another form', { day: '01/31/2024' }, 'the date column day must be a date'],
    ['an impossible day', { day: 20230229 }, 'the date column day is not a real date'],
    ['a fractional day', { day: 20240101.5 }, 'the date column day must be an integer YYYYMMDD'],
    ['a NULL value', { revenue: null }, 'the value column revenue is NULL'],
    ['a text value', { revenue: '12 EUR' }, 'the value column revenue must be numeric'],
    ['an infinite value', { revenue: Number.POSITIVE_INFINITY }, 'must be numeric, got Infinity (number)'],
    ['a NaN count', { orders: Number.NaN }, 'the count column orders must be numeric'],
    ['a NULL count', { orders: undefined }, 'the count column orders is NULL'],
    ['a NULL category', { city: null }, 'the category column city is NULL'],
    ['a numeric category', { country: 42 }, 'the category column country must be text'],
  ];
  for (const [what, over, message] of bad) {
    it(`fails on ${what} with checkRow's problem, naming the row`, () => {
      const rows = rowsOf(50);
      rows.splice(37, 0, { ...rows[36], ...over });
      const expected = (() => {
        try {
          reference(rows, 100);
        } catch (e) {
          return e as Error;
        }
        throw new Error('the reference accepted the bad row');
      })();
      expect(expected.message).toContain(message);
      expect(expected.message).toContain('row 138 of the load query');
      const err = (() => {
        try {
          coded(rows, 100);
        } catch (e) {
          return e as Error;
        }
        throw new Error('codeBatch accepted the bad row');
      })();
      expect(err.constructor).toBe(expected.constructor);
      expect(err.message).toBe(expected.message);
      expect(err).toEqual(expected);
    });
  }
});
