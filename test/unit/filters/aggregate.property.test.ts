import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateAnomalies } from '../../../lib/filters/aggregate';
import { categoryOverlap, graphGroups } from '../../../lib/filters/aggregate-graph';
import { hierarchicalGroups } from '../../../lib/filters/aggregate-hierarchical';
import type { AnomalyRecord } from '../../../lib/filters/types';
import { anomaly } from './fixtures';

const DAY = 86_400_000;
const value = (values: string[]) => fc.option(fc.constantFrom(...values), { nil: null, freq: 3 });
const rowArb = fc.record({
  start: fc.integer({ min: 0, max: 12 }),
  length: fc.integer({ min: 0, max: 3 }),
  categories: fc.record({
    Region: value(['EU', 'US']),
    Country: value(['DE', 'FR', 'US', 'CA']),
    Product: value(['Shoes', 'Hats', 'Bags']),
    Channel: value(['Web', 'Shop']),
  }),
});
const day = (d: number) => new Date(Date.UTC(2024, 1, 25) + d * DAY).toISOString().slice(0, 10);
const setArb = fc.array(rowArb, { maxLength: 40 }).map((rows) =>
  rows.map((r, i) =>
    anomaly({
      id: i + 1,
      startDate: day(r.start),
      endDate: day(r.start + r.length),
      duration: r.length + 1,
      categories: r.categories,
    }),
  ),
);
const weightsArb = fc.record(
  {
    Region: fc.constantFrom(0, 0.5, 1, 2),
    Country: fc.constantFrom(0, 1, 3),
    Product: fc.constantFrom(1, 2),
  },
  { requiredKeys: [] },
);

/** True when every group of `fine` lies inside one group of `coarse`. */
function refines(fine: number[][], coarse: number[][]): boolean {
  const groupOf = new Map<number, number>();
  coarse.forEach((g, gi) => {
    for (const i of g) groupOf.set(i, gi);
  });
  return fine.every((g) => g.every((i) => groupOf.get(i) === groupOf.get(g[0])));
}

/** The obvious quadratic components, to check the indexed version against. */
function bruteForce(rows: AnomalyRecord[], threshold: number, weights: Record<string, number>): number[][] {
  const parent = rows.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i];
    return i;
  };
  for (let i = 0; i < rows.length; i++) {
    for (let j = i + 1; j < rows.length; j++) {
      const overlapInTime = rows[i].startDate <= rows[j].endDate && rows[j].startDate <= rows[i].endDate;
      if (overlapInTime && categoryOverlap(rows[i].categories, rows[j].categories, weights) >= threshold) {
        parent[find(i)] = find(j);
      }
    }
  }
  const groups = new Map<number, number[]>();
  rows.forEach((_, i) => {
    groups.set(find(i), [...(groups.get(find(i)) ?? []), i]);
  });
  return [...groups.values()];
}

const canonical = (groups: number[][]) =>
  groups.map((g) => [...g].sort((x, y) => x - y)).sort((x, y) => x[0] - y[0]);

describe('hierarchical aggregation properties', () => {
  it('a higher minCommonCategories only splits groups: more, smaller aggregates', () => {
    fc.assert(
      fc.property(setArb, fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), (rows, x, y) => {
        const [low, high] = x <= y ? [x, y] : [y, x];
        const coarse = hierarchicalGroups(rows, low);
        const fine = hierarchicalGroups(rows, high);
        expect(refines(fine, coarse)).toBe(true);
        expect(fine.length).toBeGreaterThanOrEqual(coarse.length);
      }),
    );
  });

  it('every group of two or more shares at least minCommonCategories concrete values', () => {
    fc.assert(
      fc.property(setArb, fc.integer({ min: 1, max: 4 }), (rows, k) => {
        const aggs = aggregateAnomalies(rows, {
          aggregationMode: 'Hierarchical',
          minCommonCategories: k,
          graphThreshold: 0,
          graphWeights: {},
        });
        for (const agg of aggs)
          if (agg.n > 1) expect(Object.keys(agg.commonCategories).length).toBeGreaterThanOrEqual(k);
      }),
    );
  });
});

describe('graph aggregation properties', () => {
  it('finds exactly the connected components of the pairwise rule', () => {
    fc.assert(
      fc.property(
        setArb,
        fc.constantFrom(0, 0.2, 1 / 3, 0.5, 0.6, 2 / 3, 0.75, 1),
        weightsArb,
        (rows, t, weights) => {
          expect(canonical(graphGroups(rows, t, weights))).toEqual(canonical(bruteForce(rows, t, weights)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a higher threshold only splits clusters: more, smaller ones', () => {
    fc.assert(
      fc.property(
        setArb,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        weightsArb,
        (rows, x, y, w) => {
          const [low, high] = x <= y ? [x, y] : [y, x];
          const coarse = graphGroups(rows, low, w);
          const fine = graphGroups(rows, high, w);
          expect(refines(fine, coarse)).toBe(true);
          expect(fine.length).toBeGreaterThanOrEqual(coarse.length);
        },
      ),
    );
  });
});

describe('aggregation properties for both modes', () => {
  it('puts every anomaly in exactly one aggregate', () => {
    fc.assert(
      fc.property(
        setArb,
        fc.constantFrom('Hierarchical', 'Graph') as fc.Arbitrary<'Hierarchical' | 'Graph'>,
        (rows, mode) => {
          const aggs = aggregateAnomalies(rows, {
            aggregationMode: mode,
            minCommonCategories: 2,
            graphThreshold: 0.5,
            graphWeights: {},
          });
          const members = aggs.flatMap((a) => a.members.map((m) => m.id)).sort((x, y) => x - y);
          expect(members).toEqual(rows.map((r) => r.id));
          expect(aggs.reduce((s, a) => s + a.n, 0)).toBe(rows.length);
        },
      ),
    );
  });
});
