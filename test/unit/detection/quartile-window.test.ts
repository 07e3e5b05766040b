import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuartileWindow } from '../../../lib/detection/quartile-window';

/** DT's rule computed the plain way: quartiles of a sorted copy, fences k·IQR (at least minIqr) out. */
function reference(window: number[], value: number, k: number, minIqr: number): number {
  const s = [...window].sort((a, b) => a - b);
  const quantile = (q: number) => {
    const pos = q * (s.length - 1);
    const lo = Math.floor(pos);
    return pos === lo ? s[lo] : s[lo] + (s[lo + 1] - s[lo]) * (pos - lo);
  };
  const q1 = quantile(0.25);
  const q3 = quantile(0.75);
  const iqr = Math.max(q3 - q1, minIqr);
  return value > q3 + k * iqr ? 1 : value < q1 - k * iqr ? -1 : 0;
}

/** The exact upper fence of the window, so that tests can probe values right at it. */
function upperFence(window: number[], k: number, minIqr: number): number {
  const s = [...window].sort((a, b) => a - b);
  const at = (q: number) => {
    const pos = q * (s.length - 1);
    const lo = Math.floor(pos);
    return pos === lo ? s[lo] : s[lo] + (s[lo + 1] - s[lo]) * (pos - lo);
  };
  return at(0.75) + k * Math.max(at(0.75) - at(0.25), minIqr);
}

describe('quartile window', () => {
  it('flags values outside the Tukey fences of the last `capacity` values', () => {
    const w = new QuartileWindow(8);
    w.reset(8, 3, 0);
    for (const v of [1, 2, 3, 4, 5, 6, 7, 8]) w.push(v); // Q1 2.75, Q3 6.25, IQR 3.5
    expect(w.flag(6.25 + 3 * 3.5)).toBe(0);
    expect(w.flag(6.25 + 3 * 3.5 + 1e-9)).toBe(1);
    expect(w.flag(2.75 - 3 * 3.5 - 1e-9)).toBe(-1);
    expect(w.flag(4)).toBe(0);
    w.push(100); // 1 falls out: Q3 7.25, IQR 3.5
    expect(w.flag(17.9)).toBe(1);
  });

  it('uses the minimum IQR when the window is flat', () => {
    const w = new QuartileWindow(8);
    w.reset(8, 3, 0.01);
    for (let i = 0; i < 8; i++) w.push(0);
    expect(w.flag(0.03)).toBe(0);
    expect(w.flag(0.031)).toBe(1);
    expect(w.flag(-0.031)).toBe(-1);
  });

  it('forgets the newest values on request', () => {
    const w = new QuartileWindow(8);
    w.reset(6, 3, 0);
    for (const v of [1, 2, 3, 4, 50, 60, 70]) w.push(v); // 1 falls out
    w.popNewest(3); // window 2, 3, 4
    expect(w.size).toBe(3);
    expect(w.flag(4 + 3 * 1 + 0.01)).toBe(1); // Q1 2.5, Q3 3.5
    w.push(5); // 2, 3, 4, 5
    expect(w.flag(7.5)).toBe(0);
  });
});

describe('quartile window against a plain sorted copy', () => {
  const values = fc.oneof(
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.integer({ min: -3, max: 3 }), // ties, which the pivot counts must get right
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
  );

  it('flags the same values after any pushes and pops, also right at the fences', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 130 }),
        fc.array(values, { maxLength: 400 }),
        fc.array(fc.nat(8), { maxLength: 10 }),
        fc.constantFrom(0.5, 1.5, 3),
        (capacity, pushes, pops, k) => {
          const w = new QuartileWindow(4);
          w.reset(capacity, k, 0.01);
          let ref: number[] = [];
          pushes.forEach((v, i) => {
            if (ref.length > 0) {
              const fence = upperFence(ref, k, 0.01);
              for (const probe of [v, fence, fence + 1e-12, v * 1e-3]) {
                expect(w.flag(probe)).toBe(reference(ref, probe, k, 0.01));
              }
            }
            w.push(v);
            ref.push(v);
            if (ref.length > capacity) ref = ref.slice(1);
            if (i % 23 === 22 && pops.length > 0) {
              const n = pops[((i / 23) % pops.length) | 0];
              w.popNewest(n);
              ref = ref.slice(0, Math.max(0, ref.length - n));
            }
            expect(w.size).toBe(ref.length);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('flags right after a long drift judged only by values inside the fences', () => {
    // Inside values need only the inner pivots: the outer ones drift out of place unchecked until
    // a value near a fence asks for them.
    const w = new QuartileWindow(64);
    w.reset(56, 3, 0.01);
    const ref: number[] = [];
    for (let t = 0; t < 400; t++) {
      const v = t / 100 + ((t * 37) % 11) / 100;
      if (ref.length >= 28) expect(w.flag(v)).toBe(0);
      w.push(v);
      ref.push(v);
      if (ref.length > 56) ref.shift();
    }
    const fence = upperFence(ref, 3, 0.01);
    for (const probe of [fence, fence + 1e-9, -fence, ref[0] - 10]) {
      expect(w.flag(probe)).toBe(reference(ref, probe, 3, 0.01));
    }
  });

  it('flags the same values over a long drifting series (pivots re-placed many times)', () => {
    const w = new QuartileWindow(64);
    w.reset(56, 3, 0.01);
    const ref: number[] = [];
    let seed = 7;
    const rand = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    let disagreements = 0;
    for (let t = 0; t < 20000; t++) {
      // A noise level and centre that drift, plus rare outliers.
      const v =
        Math.sin(t / 500) + (0.05 + 0.04 * Math.sin(t / 97)) * (rand() - 0.5) + (rand() < 0.01 ? 3 : 0);
      if (ref.length >= 28) {
        const probe = rand() < 0.5 ? v : upperFence(ref, 3, 0.01);
        if (w.flag(probe) !== reference(ref, probe, 3, 0.01)) disagreements++;
      }
      w.push(v);
      ref.push(v);
      if (ref.length > 56) ref.shift();
      if (t % 401 === 400) {
        w.popNewest(5);
        ref.splice(ref.length - 5, 5);
      }
    }
    expect(disagreements).toBe(0);
  });
});
