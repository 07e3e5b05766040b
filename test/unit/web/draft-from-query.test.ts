/** The "New view from a query" page's readings of a draft: parent chains, column kinds, choices kept. */
import { describe, expect, it } from 'vitest';
import {
  categoryColumns,
  choicesOf,
  type ColumnProfile,
  type DraftFromQuery,
  dateColumns,
  dayText,
  draftDetectors,
  measureColumns,
  parentChains,
} from '../../../web/src/lib/draft-from-query';

const col = (name: string, kind: ColumnProfile['kind']): ColumnProfile => ({
  name,
  kind,
  distinct: 3,
  nulls: 0,
  integer: kind !== 'text',
});
const COLUMNS = [
  col('day', 'day'),
  col('country', 'text'),
  col('region', 'text'),
  col('city', 'text'),
  col('channel', 'text'),
  col('revenue', 'number'),
  col('orders', 'number'),
];

describe('parentChains', () => {
  it('reads the links from the most detailed category up, one chain per leaf', () => {
    const chains = parentChains([
      { name: 'country' },
      { name: 'region', parent: 'country' },
      { name: 'city', parent: 'region' },
      { name: 'channel' },
    ]);
    expect(chains).toEqual([['city', 'region', 'country']]);
  });

  it('gives one chain per branch and none without links', () => {
    const tree = [
      { name: 'country' },
      { name: 'region', parent: 'country' },
      { name: 'store', parent: 'region' },
      { name: 'warehouse', parent: 'country' },
    ];
    expect(parentChains(tree)).toEqual([
      ['store', 'region', 'country'],
      ['warehouse', 'country'],
    ]);
    expect(parentChains([{ name: 'a' }, { name: 'b' }])).toEqual([]);
  });
});

describe('column choices', () => {
  it('offers days as dates, numbers (and days) as measures, the rest as categories', () => {
    expect(dateColumns(COLUMNS)).toEqual(['day']);
    expect(measureColumns(COLUMNS)).toEqual(['day', 'revenue', 'orders']);
    expect(
      categoryColumns(COLUMNS, { dateColumn: 'day', valueColumn: 'revenue', countColumn: 'orders' }),
    ).toEqual(['country', 'region', 'city', 'channel']);
    expect(
      categoryColumns(COLUMNS, { dateColumn: 'day', valueColumn: 'revenue', countColumn: null }),
    ).toContain('orders');
  });

  it("keeps the service's suggestion as the choices, no count as null", () => {
    const draft = {
      suggestion: { dateColumn: 'day', valueColumn: 'revenue', categories: ['country', 'city'] },
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
    } as unknown as DraftFromQuery;
    expect(choicesOf(draft)).toEqual({
      dateColumn: 'day',
      valueColumn: 'revenue',
      countColumn: null,
      categories: ['country', 'city'],
    });
  });

  it('reads the days and the detectors of a draft', () => {
    expect(dayText(20240526)).toBe('2024-05-26');
    expect(dayText(null)).toBe('');
    expect(draftDetectors({ analysis: { detectors: [{ type: 'dod' }, { type: 'gap' }] } })).toEqual([
      'dod',
      'gap',
    ]);
    expect(draftDetectors(null)).toEqual([]);
  });
});
