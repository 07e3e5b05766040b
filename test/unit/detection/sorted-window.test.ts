import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedWindow } from '../../../lib/detection/sorted-window';

describe('sorted window', () => {
  it('keeps the last `capacity` values and answers quantiles over them', () => {
    const w = new SortedWindow(8);
    w.reset(4);
    for (const v of [5, 1, 9, 3, 7]) w.push(v); // 5 falls out
    expect(w.size).toBe(4);
    expect(w.quantile(0)).toBe(1);
    expect(w.quantile(1)).toBe(9);
    expect(w.quantile(0.5)).toBe(5); // between 3 and 7
  });

  it('averages the smallest share of the values', () => {
    const w = new SortedWindow(8);
    w.reset(8);
    for (const v of [4, 1, 100, 2, 3, 50, 6, 5]) w.push(v);
    expect(w.lowerMean(0.75)).toBe((1 + 2 + 3 + 4 + 5 + 6) / 6);
  });

  it('gives the plain mean, never below the lower mean of non-negative values', () => {
    const w = new SortedWindow(8);
    w.reset(8);
    expect(w.mean()).toBeNaN();
    for (const v of [4, 1, 100, 2, 3, 50, 6, 5]) w.push(v);
    expect(w.mean()).toBe(171 / 8);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 60 }),
        (values) => {
          const x = new SortedWindow(4);
          x.reset(28);
          for (const v of values) x.push(v);
          expect(x.mean()).toBeGreaterThanOrEqual(x.lowerMean(0.75) * (1 - 1e-12));
        },
      ),
    );
  });

  it('removes the newest values on request', () => {
    const w = new SortedWindow(8);
    w.reset(5);
    for (const v of [10, 20, 30, 40]) w.push(v);
    w.popNewest(2);
    expect(w.size).toBe(2);
    expect([w.quantile(0), w.quantile(1)]).toEqual([10, 20]);
    w.push(5);
    expect(w.quantile(0)).toBe(5);
  });

  it('grows beyond its first capacity', () => {
    const w = new SortedWindow(2);
    w.reset(100);
    for (let i = 100; i > 0; i--) w.push(i);
    expect([w.size, w.quantile(0), w.quantile(1)]).toEqual([100, 1, 100]);
  });

  it('answers again after pushes that follow a query', () => {
    const w = new SortedWindow(8);
    w.reset(3);
    for (const v of [3, 1, 2]) w.push(v);
    expect(w.quantile(0)).toBe(1);
    w.push(0); // 3 falls out
    expect([w.quantile(0), w.quantile(1), w.lowerMean(1)]).toEqual([0, 2, 1]);
  });
});

describe('sorted window against a plain sorted copy', () => {
  it('answers the same quantiles and trimmed means after any pushes and pops', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.array(fc.oneof(fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.constantFrom(0, 1, 1, 2)), {
          maxLength: 300,
        }),
        fc.array(fc.nat(3), { maxLength: 10 }),
        (capacity, values, pops) => {
          const w = new SortedWindow(4);
          w.reset(capacity);
          let ref: number[] = [];
          values.forEach((v, i) => {
            w.push(v);
            ref.push(v);
            if (ref.length > capacity) ref = ref.slice(1);
            if (i % 9 === 8 && pops.length) {
              const k = pops[((i / 9) % pops.length) | 0];
              w.popNewest(k);
              ref = ref.slice(0, Math.max(0, ref.length - k));
            }
            const sorted = [...ref].sort((a, b) => a - b);
            expect(w.size).toBe(sorted.length);
            if (sorted.length) {
              // + 0 turns -0 into 0: their order among equal values does not matter.
              expect(w.quantile(0) + 0).toBe(sorted[0] + 0);
              expect(w.quantile(1) + 0).toBe(sorted[sorted.length - 1] + 0);
              const pos = 0.25 * (sorted.length - 1);
              const lo = Math.floor(pos);
              const q = pos === lo ? sorted[lo] : sorted[lo] + (sorted[lo + 1] - sorted[lo]) * (pos - lo);
              expect(w.quantile(0.25) + 0).toBe(q + 0);
              const k = Math.max(1, Math.floor(sorted.length * 0.75));
              const mean = sorted.slice(0, k).reduce((a, b) => a + b, 0) / k;
              expect(w.lowerMean(0.75)).toBeCloseTo(mean, 6);
            }
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
