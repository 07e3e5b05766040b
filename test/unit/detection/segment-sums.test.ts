import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunInput } from '../../../lib/detection/detector';
import { weekdayOf } from '../../../lib/detection/kernels';
import { segmentMeans, segmentSums, shiftPasses } from '../../../lib/detection/segment-sums';
import { Workspace } from '../../../lib/detection/workspace';

/** The sums the plain way: one day at a time, indexing the weights by weekday. */
function plainSums(input: RunInput, m: number) {
  const { x, special, start, end } = input;
  const wd0 = weekdayOf(input.dayIndex0 + start);
  const sums = new Float64Array(7);
  const days = new Float64Array(7);
  let total = 0;
  let totalDays = 0;
  for (let u = start; u < end; u++) {
    if (special !== null && special[u] !== 0) continue;
    sums[(wd0 + u - start) % 7] += x[u];
    days[(wd0 + u - start) % 7]++;
    total += x[u];
    totalDays++;
  }
  const overall = totalDays > 0 ? total / totalDays : 0;
  const w = Array.from(sums, (s, d) => {
    const mean = days[d] > 0 ? s / days[d] : 0;
    return mean > 0 && overall > 0 ? overall / mean : 1;
  });
  const ok = (u: number) => special === null || special[u] === 0;
  const sumX = [0];
  const cntX = [0];
  const sumD = [0];
  const cntD = [0];
  for (let u = start; u < end; u++) {
    const wu = w[(wd0 + u - start) % 7];
    const last = sumX.length - 1;
    sumX.push(ok(u) ? sumX[last] + x[u] * wu : sumX[last]);
    cntX.push(cntX[last] + (ok(u) ? 1 : 0));
    const pair = ok(u) && u - 7 >= start && ok(u - 7);
    sumD.push(pair ? sumD[last] + Math.abs(x[u] - x[u - 7]) * wu : sumD[last]);
    cntD.push(cntD[last] + (pair ? 1 : 0));
  }
  const means = [];
  for (let i = 0; i + m < sumX.length; i++) means.push((sumX[i + m] - sumX[i]) / (cntX[i + m] - cntX[i]));
  return { w, sumX, cntX, sumD, cntD, means };
}

const bits = (v: number) => (Object.is(v, -0) ? '-0' : String(v));

describe('segment sums', () => {
  it('are the plain day-by-day sums to the bit, with and without special days', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 9 })), {
          minLength: 30,
          maxLength: 120,
        }),
        fc.nat(6),
        fc.nat(9),
        fc.boolean(),
        fc.nat(),
        (values, weekday, startAt, withSpecial, seed) => {
          const x = Float64Array.from(values);
          const start = Math.min(startAt, x.length - 29);
          const special = withSpecial ? Uint8Array.from(x, (_, t) => Number((t * 7 + seed) % 5 === 0)) : null;
          const input: RunInput = {
            x,
            daySigma: 0,
            dayMean: 0,
            unit: 1,
            material: 0,
            weights: undefined,
            weightRef: 0,
            present: undefined,
            special,
            start,
            end: x.length,
            dayIndex0: weekday,
          };
          const m = 14;
          const ws = new Workspace();
          ws.ensure(x.length);
          segmentSums(input, ws);
          const out = new Int32Array(x.length);
          const n = segmentMeans(
            ws.prefixA,
            special === null ? null : ws.prefixB,
            start,
            x.length,
            m,
            0.1,
            ws.clean,
            out,
          );
          const ref = plainSums(input, m);
          expect(Array.from(ws.weekSum, bits)).toEqual(ref.w.map(bits));
          const at = (a: Float64Array, k: number) => Array.from(a.subarray(start, start + k), bits);
          expect(at(ws.prefixA, ref.sumX.length)).toEqual(ref.sumX.map(bits));
          expect(at(ws.prefixC, ref.sumD.length)).toEqual(ref.sumD.map(bits));
          if (special !== null) {
            expect(at(ws.prefixB, ref.cntX.length)).toEqual(ref.cntX.map(bits));
            expect(at(ws.prefixD, ref.cntD.length)).toEqual(ref.cntD.map(bits));
          }
          expect(at(ws.clean, ref.means.length)).toEqual(ref.means.map(bits));
          const shifts = ref.means.flatMap((mean, i) =>
            i >= m && shiftPasses(ref.means[i - m], mean, 0.1) ? [start + i] : [],
          );
          expect(Array.from(out.subarray(0, n))).toEqual(shifts);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('size test: a shift of at least minRel of the earlier mean, any shift from zero, none from NaN', () => {
    expect(shiftPasses(100, 110, 0.1)).toBe(true);
    expect(shiftPasses(100, 109, 0.1)).toBe(false);
    expect(shiftPasses(100, 90, 0.1)).toBe(true);
    expect(shiftPasses(0, 1e-9, 0.1)).toBe(true);
    expect(shiftPasses(0, 0, 0.1)).toBe(false);
    expect(shiftPasses(Number.NaN, 5, 0.1)).toBe(false);
  });
});
