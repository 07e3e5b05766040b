/** The rate/mix decomposition of a ratio's change, and the causes of a ratio named from it. */
import { describe, expect, it } from 'vitest';
import type { Lattice } from '../../../lib/incidents/lattice';
import { type RatioLeaf, ratioContributions } from '../../../lib/incidents/ratio-contributions';
import { rateMix } from '../../../lib/incidents/rate-mix';
import { ROOT_CAUSE_DEFAULTS } from '../../../lib/incidents/root-cause';

const part = (expectedEvents: number, expectedRate: number, events: number, rate: number) => ({
  value: events * rate,
  events,
  expectedValue: expectedEvents * expectedRate,
  expectedEvents,
});

describe('rate and mix effects', () => {
  it('sum to the change of the ratio, a rate change at the old mix, a shift of shares at the rate against the old average', () => {
    // Two hotels: 100 nights at 100 and 100 at 200 (average 150); then 100 at 110 and 300 at 200.
    const { totals, parts } = rateMix([part(100, 100, 100, 110), part(100, 200, 300, 200)]);
    expect(totals.expected).toBeCloseTo(150);
    expect(totals.actual).toBeCloseTo((11_000 + 60_000) / 400);
    expect(parts[0].rateEffect).toBeCloseTo(0.5 * 10);
    expect(parts[1].rateEffect).toBeCloseTo(0);
    expect(parts[0].mixEffect).toBeCloseTo((0.25 - 0.5) * (110 - 150));
    expect(parts[1].mixEffect).toBeCloseTo((0.75 - 0.5) * (200 - 150));
    const sum = parts.reduce((s, p) => s + p.rateEffect + p.mixEffect, 0);
    expect(sum).toBeCloseTo(totals.change, 9);
  });

  it('a segment that appears or disappears moves only the mix', () => {
    const { totals, parts } = rateMix([part(0, 0, 50, 300), part(100, 100, 100, 100), part(40, 80, 0, 0)]);
    expect(parts.map((p) => p.rateEffect)).toEqual([0, 0, 0]);
    expect(parts.reduce((s, p) => s + p.mixEffect, 0)).toBeCloseTo(totals.change, 9);
    expect(parts[2].expectedRate).toBe(80);
    expect(parts[2].rate).toBe(80);
  });
});

describe('the causes of a ratio', () => {
  const lattice: Lattice = { categories: ['hotel', 'channel'], parents: [-1, -1] };
  const TOTAL = new Int32Array([0, 0]);
  // 4 hotels × 3 channels; hotel h sells at 80 + 40·h, each leaf about 200 nights in the window.
  const leaves = (f: (h: number, c: number) => { nights: number; rate: number }): RatioLeaf[] => {
    const out: RatioLeaf[] = [];
    for (let h = 1; h <= 4; h++)
      for (let c = 1; c <= 3; c++) {
        const r0 = 80 + 40 * h;
        const now = f(h, c);
        out.push({
          codes: new Int32Array([h, c]),
          part: part(200, r0, now.nights, now.rate),
          perEventVariance: (0.1 * r0) ** 2,
          baselineEvents: 800,
        });
      }
    return out;
  };

  it('names the hotel whose rate moved, its rate effect explaining the change', () => {
    const x = ratioContributions(
      lattice,
      TOTAL,
      leaves((h) => ({ nights: 200, rate: (80 + 40 * h) * (h === 3 ? 0.7 : 1) })),
      { limit: 10, rootCause: ROOT_CAUSE_DEFAULTS },
    );
    expect(x.change).toBeLessThan(0);
    expect(x.rateEffect).toBeCloseTo(x.change, 6);
    expect(Math.abs(x.mixEffect)).toBeLessThan(1e-9);
    expect(x.explanation.broad).toBe(false);
    expect(x.explanation.causes).toHaveLength(1);
    expect(x.explanation.causes[0]).toMatchObject({ effect: 'rate', codes: new Int32Array([3, 0]) });
    const hotel = x.dimensions.find((d) => d.category === 0)!;
    expect(hotel.values[0].codes[0]).toBe(3);
    expect(hotel.values.reduce((s, v) => s + v.explainsPct, 0)).toBeCloseTo(100, 6);
  });

  it('says the mix moved when the dear hotel sold more at the usual rates, naming the category', () => {
    const x = ratioContributions(
      lattice,
      TOTAL,
      leaves((h) => ({ nights: h === 4 ? 600 : 200, rate: 80 + 40 * h })),
      { limit: 10, rootCause: ROOT_CAUSE_DEFAULTS },
    );
    expect(x.change).toBeGreaterThan(0);
    expect(x.mixEffect).toBeCloseTo(x.change, 6);
    expect(x.explanation.causes).toHaveLength(1);
    expect(x.explanation.causes[0]).toMatchObject({ effect: 'mix', mixOf: 'hotel', explainsPct: 100 });
    const hotel = x.dimensions.find((d) => d.category === 0)!;
    expect(hotel.mixEffect).toBeCloseTo(x.change, 6);
    expect(hotel.values[0]).toMatchObject({ rateEffect: 0 });
    expect(hotel.values[0].shareDuring).toBeGreaterThan(hotel.values[0].shareBefore);
  });

  it('a change of nothing but noise names no segment: broad', () => {
    const x = ratioContributions(
      lattice,
      TOTAL,
      leaves((h, c) => ({ nights: 200, rate: (80 + 40 * h) * (1 + 0.002 * (((h * 3 + c) % 5) - 2)) })),
      { limit: 10, rootCause: ROOT_CAUSE_DEFAULTS },
    );
    expect(x.explanation.broad).toBe(true);
  });
});
