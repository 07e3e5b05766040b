import { describe, expect, it } from 'vitest';
import { groupingSets } from '../../../lib/pipeline/grouping';

const names = (sets: ReturnType<typeof groupingSets>, cats: string[]) =>
  sets.map((g) => g.members.map((i) => cats[i]).join('+') || 'total');

describe('which category combinations are series', () => {
  it('takes every subset of independent categories', () => {
    const cats = ['hotel', 'channel'];
    expect(names(groupingSets(cats.map((name) => ({ name }))), cats)).toEqual([
      'total',
      'hotel',
      'channel',
      'hotel+channel',
    ]);
  });

  it('takes only the prefixes of a parent chain', () => {
    const cats = ['country', 'region', 'city'];
    const sets = groupingSets([
      { name: 'country' },
      { name: 'region', parent: 'country' },
      { name: 'city', parent: 'region' },
    ]);
    expect(names(sets, cats)).toEqual(['total', 'country', 'country+region', 'country+region+city']);
  });

  it('combines a chain with an independent category: 3 levels × 2 = 6', () => {
    const cats = ['country', 'city', 'channel'];
    const sets = groupingSets([
      { name: 'country' },
      { name: 'city', parent: 'COUNTRY' },
      { name: 'channel' },
    ]);
    expect(names(sets, cats)).toEqual([
      'total',
      'country',
      'channel',
      'country+city',
      'country+channel',
      'country+city+channel',
    ]);
  });

  it("gives PostgreSQL's GROUPING() bit pattern and the category removed to reach the parent", () => {
    const sets = groupingSets([
      { name: 'country' },
      { name: 'city', parent: 'country' },
      { name: 'channel' },
    ]);
    const by = Object.fromEntries(sets.map((g) => [g.members.join(','), g]));
    expect(by['']).toMatchObject({ mask: 0b111, removed: null });
    expect(by['0']).toMatchObject({ mask: 0b011, removed: 0 });
    expect(by['0,1']).toMatchObject({ mask: 0b001, removed: 1 });
    // country has a child (city) in the set, so the last childless member is channel.
    expect(by['0,1,2']).toMatchObject({ mask: 0b000, removed: 2 });
    expect(by['0,2']).toMatchObject({ mask: 0b010, removed: 2 });
  });
});
