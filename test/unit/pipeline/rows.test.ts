import { describe, expect, it } from 'vitest';
import { checkRow, resolveColumns, type RowShape, toDay, toMeasure } from '../../../lib/pipeline/rows';

const shape: RowShape = {
  dateColumn: 'day',
  valueColumn: 'revenue',
  countColumn: 'orders',
  categories: ['Country', 'city'],
};
const map = resolveColumns(shape, ['day', 'country', 'city', 'revenue', 'orders']);
const row = (over: Record<string, unknown> = {}) => ({
  day: 20240131,
  country: 'CZ',
  city: 'Brno',
  revenue: '12.50',
  orders: 3n,
  ...over,
});

describe('the source query rules', () => {
  it('accepts a day as an integer, a bigint or eight digits, and only real dates', () => {
    expect(toDay(20240229)).toBe(20240229);
    expect(toDay(20240229n)).toBe(20240229);
    expect(toDay('20240229')).toBe(20240229);
    expect(toDay(20230229)).toBe('is not a real date in the form YYYYMMDD');
    expect(toDay(20241301)).toBe('is not a real date in the form YYYYMMDD');
    expect(toDay(20240101.5)).toBe('must be an integer YYYYMMDD');
    expect(toDay('29.02.2024')).toMatch(/^must be a date: a DATE or TIMESTAMP, ISO text/);
  });

  it('accepts numbers, bigints and numeric text as measures, nothing else', () => {
    expect(toMeasure(1.5)).toBe(1.5);
    expect(toMeasure(7n)).toBe(7);
    expect(toMeasure('-12.50')).toBe(-12.5);
    expect(toMeasure('1e3')).toBe(1000);
    expect(toMeasure('12 EUR')).toBeUndefined();
    expect(toMeasure(Number.NaN)).toBeUndefined();
    expect(toMeasure(true)).toBeUndefined();
  });

  it('finds columns by exact name first and then in any case', () => {
    expect(map.categories).toEqual(['country', 'city']);
    expect(
      resolveColumns(shape, ['day', 'Country', 'country', 'city', 'revenue', 'orders']).categories[0],
    ).toBe('Country');
  });

  it('names every column the query lacks and the columns it returns', () => {
    expect(() => resolveColumns(shape, ['day', 'city', 'amount'])).toThrow(
      'The load query returns no column revenue (source.valueColumn), orders (source.countColumn), Country (category); it returns day, city, amount.',
    );
  });

  it('turns a good row into a day, category values and measures', () => {
    expect(checkRow(row(), map, shape, 1)).toEqual({
      day: 20240131,
      categories: ['CZ', 'Brno'],
      value: 12.5,
      cnt: 3,
    });
  });

  it('says which row broke which rule and what to change', () => {
    expect(() => checkRow(row({ day: '31.01.2024' }), map, shape, 7)).toThrow(
      "row 7 of the load query: the date column day must be a date: a DATE or TIMESTAMP, ISO text (YYYY-MM-DD, a time after it ignored) or an integer YYYYMMDD, got '31.01.2024' (text); convert it to a date in the SELECT, e.g. CAST(day AS date) or to_date(day, 'DD.MM.YYYY')",
    );
    expect(() => checkRow(row({ revenue: null }), map, shape, 2)).toThrow(
      'row 2 of the load query: the value column revenue is NULL; return a number (e.g. COALESCE(revenue, 0))',
    );
    expect(() => checkRow(row({ orders: 'many' }), map, shape, 3)).toThrow(
      "row 3 of the load query: the count column orders must be numeric, got 'many' (text)",
    );
    expect(() => checkRow(row({ city: 42 }), map, shape, 4)).toThrow(
      'row 4 of the load query: the category column city must be text, got 42 (number); cast it in the SELECT (e.g. CAST(city AS varchar))',
    );
    expect(() => checkRow(row({ country: null }), map, shape, 5, 'custom load query')).toThrow(
      "row 5 of the custom load query: the category column Country is NULL; return a text value (e.g. COALESCE(Country, 'unknown'))",
    );
  });

  it('sets the count to 0 when the view has no count column', () => {
    const noCount = { ...shape, countColumn: undefined };
    const m = resolveColumns(noCount, ['day', 'country', 'city', 'revenue']);
    expect(checkRow(row(), m, noCount, 1).cnt).toBe(0);
  });
});
