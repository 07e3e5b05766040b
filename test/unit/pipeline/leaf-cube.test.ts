import { describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { CHUNK_DAYS, chunkOf, chunkStart } from '../../../lib/dataset/series-chunks';
import { groupingSets } from '../../../lib/pipeline/grouping';
import { LeafCube } from '../../../lib/pipeline/leaf-cube';
import { assignIds, seriesKey, seriesOfLeaves } from '../../../lib/pipeline/series-set';

// country (1 CZ, 2 DE) → city (1 Prague, 2 Brno, 3 Berlin), channel (1 web, 2 shop), as in the series build test.
const CATEGORIES = [{ name: 'country' }, { name: 'city', parent: 'country' }, { name: 'channel' }];
const ROWS = {
  days: [20240101, 20240101, 20240101, 20240102, 20240103, 20240103, 20240103],
  codes: [
    [1, 1, 2, 1, 1, 2, 1],
    [1, 2, 3, 1, 1, 3, 2],
    [1, 1, 2, 2, 1, 2, 1],
  ],
  values: [10, 4, 6, 2, 12, 8, 2],
  cnts: [1, 1, 2, 1, 3, 1, 1],
};
const day = (ymd: string) => toEpochDay(ymd) - chunkStart(chunkOf(toEpochDay('2024-01-01')));

describe('the series of the leaves', () => {
  const leaves = [
    [1, 1, 1],
    [1, 2, 1],
    [2, 3, 2],
    [1, 1, 2],
  ];
  const set = seriesOfLeaves(leaves, groupingSets(CATEGORIES));
  const codesOf = (s: number) => Array.from(set.codes.subarray(s * 3, s * 3 + 3));
  const find = (codes: number[]) =>
    Array.from({ length: set.count }, (_, s) => s).find((s) => codesOf(s).join() === codes.join());

  it('are every combination the parent link allows, once each', () => {
    // Country sets × channel sets: {}, {country}, {country, city} × {}, {channel}.
    const all = Array.from({ length: set.count }, (_, s) => codesOf(s).join('/')).sort();
    expect(all).toEqual(
      [
        '0/0/0',
        '0/0/1',
        '0/0/2',
        '1/0/0',
        '1/0/1',
        '1/0/2',
        '2/0/0',
        '2/0/2',
        '1/1/0',
        '1/1/1',
        '1/1/2',
        '1/2/0',
        '1/2/1',
        '2/3/0',
        '2/3/2',
      ].sort(),
    );
  });

  it('know their parent and level', () => {
    const pragueWeb = find([1, 1, 1]) as number;
    expect(set.level[pragueWeb]).toBe(3);
    // The parent of a leaf drops the last category no other member hangs on: the channel.
    expect(codesOf(set.parent[pragueWeb])).toEqual([1, 1, 0]);
    expect(codesOf(set.parent[find([1, 1, 0]) as number])).toEqual([1, 0, 0]);
    expect(codesOf(set.parent[find([0, 0, 2]) as number])).toEqual([0, 0, 0]);
    expect(set.parent[find([0, 0, 0]) as number]).toBe(-1);
  });

  it('map each leaf to its series of each grouping set', () => {
    for (let g = 0; g < set.sets; g++)
      for (let l = 0; l < leaves.length; l++) {
        const s = set.leafSeries[g * leaves.length + l];
        const codes = codesOf(s);
        for (let i = 0; i < 3; i++) expect([0, leaves[l][i]]).toContain(codes[i]);
      }
  });

  it('keep the ids of known series keys and number new ones by level, then key', () => {
    const keys = ['[null]', '["b"]', '["a"]', '["c"]'];
    expect(Array.from(assignIds(keys, [0, 1, 1, 1], new Map([['["c"]', 7]]), 9))).toEqual([10, 12, 11, 7]);
    expect(seriesKey([null, 'Pra"gue', 'a\nb'])).toBe('[null,"Pra\\"gue","a\\nb"]');
  });
});

describe('the leaf cube', () => {
  it('sums rows per leaf and day, and rolls a chunk up into every series', () => {
    const cube = new LeafCube(3);
    expect(cube.add(ROWS)).toBe(true);
    expect(cube.leaves).toBe(4);
    expect(cube.chunks()).toEqual([chunkOf(toEpochDay('2024-01-01'))]);
    const set = seriesOfLeaves(cube.leafCodes, groupingSets(CATEGORIES));
    const chunk = cube.rollup(cube.chunks()[0], set);
    const series = (codes: number[]) => {
      const s = Array.from({ length: set.count }, (_, x) => x).find(
        (x) => Array.from(set.codes.subarray(x * 3, x * 3 + 3)).join() === codes.join(),
      ) as number;
      const at = (t: number) => s * CHUNK_DAYS + day('2024-01-01') + t;
      return {
        values: [0, 1, 2].map((t) => chunk.values[at(t)]),
        cnts: [0, 1, 2].map((t) => chunk.cnts[at(t)]),
        present: [0, 1, 2].map((t) => chunk.present[at(t)]),
      };
    };
    expect(series([0, 0, 0])).toEqual({ values: [20, 2, 22], cnts: [4, 1, 5], present: [1, 1, 1] });
    expect(series([1, 0, 1])).toEqual({ values: [14, 0, 14], cnts: [2, 0, 4], present: [1, 0, 1] });
    expect(series([1, 1, 2]).values).toEqual([0, 2, 0]);
    expect(series([1, 1, 2]).present).toEqual([0, 1, 0]);
  });

  it('sums only the chunks it accepts, and answers false beyond its bound', () => {
    const accepted = new LeafCube(3, { accept: () => false });
    expect(accepted.add(ROWS)).toBe(true);
    expect(accepted.rows).toBe(0);
    // Room for one chunk of 64 leaves: a second chunk does not fit.
    const bounded = new LeafCube(3, { maxCells: 64 * CHUNK_DAYS });
    expect(bounded.add(ROWS)).toBe(true);
    expect(bounded.add({ ...ROWS, days: ROWS.days.map(() => 20250101) })).toBe(false);
  });

  it('keys leaves of large codes as text, the same sums', () => {
    const big = { ...ROWS, codes: ROWS.codes.map((c) => c.map((x) => x + 2 ** 20)) };
    const cube = new LeafCube(3);
    cube.add(big);
    expect(cube.leaves).toBe(4);
    const small = new LeafCube(3);
    small.add(ROWS);
    const c = cube.chunks()[0];
    const a = cube.rollup(c, seriesOfLeaves(cube.leafCodes, groupingSets(CATEGORIES)));
    const b = small.rollup(c, seriesOfLeaves(small.leafCodes, groupingSets(CATEGORIES)));
    expect(Array.from(a.values)).toEqual(Array.from(b.values));
  });
});
