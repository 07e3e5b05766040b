import { describe, expect, it } from 'vitest';
import { contributions, dimensionCuboid, surpriseOf } from '../../../lib/incidents/contributions';
import type { Lattice } from '../../../lib/incidents/lattice';
import { explainChange, type LeafChange } from '../../../lib/incidents/root-cause';

// district (2) → hotel (2 each), channel (2): 8 leaves with 100 expected bookings each. Codes start at 1.
const lattice: Lattice = { categories: ['district', 'hotel', 'channel'], parents: [-1, 0, -1] };

function leaves(actual: (codes: number[]) => number): LeafChange[] {
  const out: LeafChange[] = [];
  for (let h = 0; h < 4; h++)
    for (let c = 0; c < 2; c++) {
      const codes = [(h >> 1) + 1, h + 1, c + 1];
      out.push({ codes, expected: 100, actual: actual(codes), variance: 100 });
    }
  return out;
}

const TOTAL = [0, 0, 0];

describe('surprise of a shift of shares', () => {
  it('is 0 when a share did not move, and sums to 1 bit when every value lost all of its share', () => {
    expect(surpriseOf(0.25, 0.25)).toBe(0);
    // p = 0.5 → q = 0: ½ · 0.5 · log2(2) = 0.25.
    expect(surpriseOf(0.5, 0)).toBeCloseTo(0.25, 12);
    expect(surpriseOf(1, 0) + surpriseOf(0, 1)).toBeCloseTo(1, 12);
  });
});

describe('contributions to a change', () => {
  it('ranks the channel that dropped first, with its shares before and during, and names it as the cause', () => {
    // Channel 2 lost 60 bookings on every hotel: 240 of the total's 240.
    const x = contributions(
      lattice,
      TOTAL,
      leaves((c) => (c[2] === 2 ? 40 : 100)),
    );
    expect(x.change).toBe(-240);
    const channel = x.dimensions.find((d) => d.category === 2);
    expect(channel?.values.map((v) => [v.codes[2], v.change, v.explainsPct])).toEqual([
      [2, -240, 100],
      [1, 0, -0],
    ]);
    expect(channel?.values[0].shareBefore).toBe(50);
    expect(channel?.values[0].shareDuring).toBeCloseTo((160 / 560) * 100, 10);
    // The channel's shares moved; the districts' did not (each lost alike).
    const district = x.dimensions.find((d) => d.category === 0);
    expect(district?.surprise).toBeCloseTo(0, 12);
    expect(x.dimensions[0].category).toBe(2);
    expect(x.explanation.broad).toBe(false);
    expect(x.explanation.causes.map((c) => Array.from(c.codes))).toEqual([[0, 0, 2]]);
  });

  it('lists a hotel with its district, and agrees with the root cause of the same leaves', () => {
    const l = leaves((c) => (c[1] === 3 ? 10 : 100));
    const x = contributions(lattice, TOTAL, l);
    const hotel = x.dimensions.find((d) => d.category === 1);
    expect(Array.from(hotel?.values[0].codes ?? [])).toEqual([2, 3, 0]);
    expect(hotel?.count).toBe(4);
    const root = explainChange(lattice, TOTAL, l);
    expect(x.explanation.causes.map((c) => Array.from(c.codes))).toEqual(
      root.causes.map((c) => Array.from(c.codes)),
    );
    expect(x.explanation.causes.map((c) => Array.from(c.codes))).toEqual([[2, 3, 0]]);
  });

  it('leaves out the categories the series fixes, and keeps at most limit values per dimension', () => {
    const district1 = [1, 0, 0];
    const l = leaves(() => 100).filter((x) => x.codes[0] === 1);
    const x = contributions(lattice, district1, l, {
      limit: 1,
      rootCause: { target: 0.8, maxCauses: 5, alpha: 0.01, minExplained: 0.5 },
    });
    expect(x.dimensions.map((d) => d.category).sort()).toEqual([1, 2]);
    expect(x.dimensions.every((d) => d.values.length === 1 && d.count === 2)).toBe(true);
    // Nothing changed: no cause but the series itself.
    expect(x.change).toBe(0);
    expect(x.explanation.broad).toBe(true);
  });

  it('takes a child category together with the parents the series leaves at all', () => {
    expect(dimensionCuboid(lattice, TOTAL, 1)).toEqual([0, 1]);
    expect(dimensionCuboid(lattice, [1, 0, 0], 1)).toEqual([1]);
    expect(dimensionCuboid(lattice, TOTAL, 2)).toEqual([2]);
  });
});
