import { describe, expect, it } from 'vitest';
import type { Lattice } from '../../../lib/incidents/lattice';
import { elementsOn, explainChange, generalise, type LeafChange } from '../../../lib/incidents/root-cause';
import { makeNormal, makeRng } from '../../../scripts/synthetic/rng';

// district (2) → hotel (2 each), room type (2), channel (3): 24 leaves. Codes start at 1 (0 = all).
const lattice: Lattice = { categories: ['district', 'hotel', 'room', 'channel'], parents: [-1, 0, -1, -1] };
const CHANNEL_SHARE = [0.5, 0.3, 0.2];
const ROOM_SHARE = [0.7, 0.3];
const HOTEL_SIZE = [400, 250, 300, 150]; // bookings over the window

interface LeafSpec {
  codes: number[];
  expected: number;
}

function leafSpecs(): LeafSpec[] {
  const out: LeafSpec[] = [];
  for (let h = 0; h < 4; h++)
    for (let r = 0; r < 2; r++)
      for (let c = 0; c < 3; c++)
        out.push({
          codes: [(h >> 1) + 1, h + 1, r + 1, c + 1],
          expected: HOTEL_SIZE[h] * ROOM_SHARE[r] * CHANNEL_SHARE[c],
        });
  return out;
}

/** Leaves whose actual is Poisson-like noise around expected × factor(leaf). */
function leaves(factor: (codes: number[]) => number, seed = 1): LeafChange[] {
  const normal = makeNormal(makeRng(seed));
  return leafSpecs().map(({ codes, expected }) => {
    const mean = expected * factor(codes);
    return {
      codes,
      expected,
      actual: Math.max(0, Math.round(mean + Math.sqrt(mean) * normal())),
      variance: expected,
    };
  });
}

const TOTAL = [0, 0, 0, 0];
const named = (codes: ArrayLike<number>) => Array.from(codes);

describe('root cause of a change', () => {
  it('sums the leaves by combination alike whatever the size of their codes', () => {
    const small = leaves(() => 1);
    // Codes too large to be one number per combination: the same sums, in the same order.
    const large = small.map((l) => ({ ...l, codes: Array.from(l.codes, (c) => c * 2 ** 20 + 7) }));
    for (const cuboid of [[1], [2, 3], [0, 1, 2, 3]]) {
      const a = elementsOn(TOTAL, cuboid, small);
      const b = elementsOn(TOTAL, cuboid, large);
      expect(b.map((e) => [e.actual, e.expected, e.weight])).toEqual(
        a.map((e) => [e.actual, e.expected, e.weight]),
      );
      expect(b.map((e) => named(e.codes))).toEqual(
        a.map((e) => named(e.codes).map((c) => (c ? c * 2 ** 20 + 7 : 0))),
      );
    }
  });

  it('names the channel when every leaf of that channel dropped alike', () => {
    for (const seed of [1, 2, 3]) {
      const x = explainChange(
        lattice,
        TOTAL,
        leaves((c) => (c[3] === 2 ? 0.5 : 1), seed),
      );
      expect(x.broad).toBe(false);
      expect(x.causes.map((c) => named(c.codes))).toEqual([[0, 0, 0, 2]]);
      expect(x.causes[0].explainsPct).toBeGreaterThan(80);
    }
  });

  it('names one leaf that went missing, though it is a small part of the total', () => {
    // Hotel 1, room type 2, channel 3: 400 × 0.3 × 0.2 = 24 bookings of 1,100 (2 %); the rest as expected.
    const x = explainChange(
      lattice,
      TOTAL,
      leafSpecs().map(({ codes, expected }) => ({
        codes,
        expected,
        actual: codes[1] === 1 && codes[2] === 2 && codes[3] === 3 ? 0 : expected,
        variance: expected,
      })),
    );
    expect(x.causes.map((c) => named(c.codes))).toEqual([[1, 1, 2, 3]]);
    expect(x.causes[0].explainsPct).toBeCloseTo(100);
  });

  it('names the hotel (with its district) when all its leaves dropped alike', () => {
    const x = explainChange(
      lattice,
      TOTAL,
      leaves((c) => (c[1] === 3 ? 0.4 : 1)),
    );
    expect(x.causes.map((c) => named(c.codes))).toEqual([[2, 3, 0, 0]]);
  });

  it('names a combination across dimensions: a district on one channel', () => {
    const x = explainChange(
      lattice,
      TOTAL,
      leaves((c) => (c[0] === 1 && c[3] === 1 ? 0.5 : 1)),
    );
    expect(x.causes.map((c) => named(c.codes))).toEqual([[1, 0, 0, 1]]);
  });

  it('names two channels when both dropped', () => {
    const x = explainChange(
      lattice,
      TOTAL,
      leaves((c) => (c[3] === 1 ? 0.6 : c[3] === 3 ? 0.3 : 1)),
    );
    expect(x.causes.map((c) => named(c.codes)).sort()).toEqual([
      [0, 0, 0, 1],
      [0, 0, 0, 3],
    ]);
  });

  it('climbs a chosen combination while its siblings moved with it, never over another cause', () => {
    // Room type 2 doubled on every channel; room type 1 rose by 30 % on channel 1 only. Chosen on room
    // type × channel, room type 2's channels are room type 2; room type 1 on channel 1 stays (channel 1
    // would swallow room type 2's part of it, which moved otherwise).
    const exact: LeafChange[] = leafSpecs().map(({ codes, expected }) => ({
      codes,
      expected,
      actual: expected * (codes[2] === 2 ? 2 : codes[2] === 1 && codes[3] === 1 ? 1.3 : 1),
      variance: expected,
    }));
    const elements = elementsOn(TOTAL, [2, 3], exact);
    const chosen = elements.filter((e) => e.codes[2] === 2 || e.codes[3] === 1);
    const totals = elementsOn(TOTAL, [], exact)[0];
    const general = generalise(lattice, chosen, totals, exact, 1, 6.6);
    expect(general.map((e) => named(e.codes)).sort()).toEqual([
      [0, 0, 1, 1],
      [0, 0, 2, 0],
    ]);
  });

  it('answers the broad series itself, marked broad, when every leaf moved alike', () => {
    for (const seed of [1, 2, 3, 4]) {
      const x = explainChange(
        lattice,
        TOTAL,
        leaves(() => 0.8, seed),
      );
      expect(x.broad).toBe(true);
      expect(x.causes).toHaveLength(1);
      expect(x.causes[0]).toMatchObject({ broad: true, explainsPct: 100 });
    }
  });

  it('explains within the broad series only: below a hotel, the leaf of that hotel', () => {
    const hotel = [2, 3, 0, 0];
    const below = leaves((c) => (c[2] === 1 && c[3] === 2 ? 0 : 1)).filter((l) => l.codes[1] === 3);
    const x = explainChange(lattice, hotel, below);
    expect(x.causes.map((c) => named(c.codes))).toEqual([[2, 3, 1, 2]]);
  });

  it('reports the change, its percent and what each cause explains', () => {
    const exact: LeafChange[] = leafSpecs().map(({ codes, expected }) => ({
      codes,
      expected,
      actual: codes[3] === 1 ? expected * 0.5 : expected,
      variance: expected,
    }));
    const x = explainChange(lattice, TOTAL, exact);
    expect(x.expected).toBeCloseTo(1100);
    expect(x.change).toBeCloseTo(-275);
    expect(x.changePct).toBeCloseTo(-25);
    expect(x.causes[0]).toMatchObject({ changePct: -50, explainsPct: 100 });
  });
});
