import { describe, expect, it } from 'vitest';
import type { Lattice } from '../../../lib/incidents/lattice';
import { leafChanges, type LeafDays } from '../../../lib/incidents/leaf-window';
import { explainChange } from '../../../lib/incidents/root-cause';

// 8 weeks of history, then a 7-day window (days 56..62). Weekly profile: Saturdays double.
const DAYS = 63;
const WINDOW = { from: 0, start: 56, end: 62, weeks: 4 };
const profile = (t: number) => (t % 7 === 5 ? 2 : 1);

function leaf(codes: number[], level: number, during: (t: number) => number = () => 1): LeafDays {
  return {
    codes,
    unit: 1,
    values: Float64Array.from({ length: DAYS }, (_, t) => level * profile(t) * (t >= 56 ? during(t) : 1)),
  };
}

describe('leaves over a window', () => {
  it('expects each day of the window from its weekday in the four weeks before', () => {
    const [x] = leafChanges([leaf([1, 1], 10)], WINDOW);
    // Six ordinary days of 10 and a Saturday of 20.
    expect(x.expected).toBeCloseTo(80);
    expect(x.actual).toBeCloseTo(80);
  });

  it('never takes the window’s own days as its baseline: a long drop stays a drop', () => {
    const [x] = leafChanges([leaf([1, 1], 10, () => 0.5)], WINDOW);
    expect(x.actual).toBeCloseTo(40);
    expect(x.expected).toBeCloseTo(80);
  });

  it('scales the leaves together to the detector’s expected total', () => {
    const out = leafChanges([leaf([1, 1], 10), leaf([1, 2], 30)], { ...WINDOW, expectedTotal: 400 });
    expect(out.map((l) => l.expected)).toEqual([expect.closeTo(100), expect.closeTo(300)]);
  });

  it('counts at least the Poisson noise of the events a value stands for', () => {
    const [events] = leafChanges([leaf([1, 1], 10)], WINDOW);
    const [amounts] = leafChanges([{ ...leaf([1, 1], 10), unit: 50 }], WINDOW);
    expect(events.variance).toBeGreaterThanOrEqual(80);
    expect(amounts.variance).toBeGreaterThanOrEqual(50 * events.variance * 0.99);
  });
});

describe('a ratio (value per event) over a window', () => {
  const lattice: Lattice = { categories: ['channel'], parents: [-1] };
  /** Value and events of one channel: `orders` a day at `price`, both possibly changed in the window. */
  function channel(
    code: number,
    orders: number,
    price: number,
    change: { orders?: number; price?: number } = {},
  ): LeafDays {
    const counts = Float64Array.from(
      { length: DAYS },
      (_, t) => orders * (t >= 56 ? (change.orders ?? 1) : 1),
    );
    const values = Float64Array.from(counts, (c, t) => c * price * (t >= 56 ? (change.price ?? 1) : 1));
    return { codes: [code], unit: price, values, counts };
  }

  it('finds a price cut where it happened, at the events that happened', () => {
    const leaves = [channel(1, 40, 100), channel(2, 30, 120, { price: 0.8 }), channel(3, 20, 90)];
    const changes = leafChanges(leaves, WINDOW);
    const x = explainChange(lattice, [0], changes);
    expect(x.causes.map((c) => Array.from(c.codes))).toEqual([[2]]);
    expect(x.causes[0].changePct).toBeCloseTo(-20);
  });

  it('explains nothing when only the volume moved at the usual prices', () => {
    const leaves = [channel(1, 40, 100, { orders: 1.6 }), channel(2, 30, 120), channel(3, 20, 90)];
    const changes = leafChanges(leaves, WINDOW);
    expect(changes.reduce((s, l) => s + l.actual - l.expected, 0)).toBeCloseTo(0);
  });
});
