import { describe, expect, it } from 'vitest';
import { computeSignificance, type SignificanceInput } from '../../../lib/detection/significance';

const base = { dataViewId: 1, type: 'DOD', result: 'Positive' };

describe('significance', () => {
  it('normalises within the peer group and applies the SIN and SIM formulas', () => {
    const items: SignificanceInput[] = [
      { ...base, duration: 2, changePct: 50, sharePct: 10, recurrence: 0 },
      { ...base, duration: 4, changePct: -100, sharePct: 20, recurrence: 1 },
    ];
    const [a, b] = computeSignificance(items);
    // Group maxima: duration 4, |change %| 100, share 20.
    // a: norm_duration 2/4 = 0.5, norm_change 50/100 = 0.5, norm_share 10/20 = 0.5
    //    SIN = 2·0.5 + 0.5 + 1.5·0.5 = 2.25;  SIM = 0.5·0.5·0.5 / (1 + ln 1) = 0.125
    expect(a.sin).toBeCloseTo(2.25, 12);
    expect(a.sim).toBeCloseTo(0.125, 12);
    // b: all norms 1; SIN = 2 + 1 + 1.5 = 4.5;  SIM = 1 / (1 + ln 2) = 0.5906161091496412
    expect(b.sin).toBeCloseTo(4.5, 12);
    expect(b.sim).toBeCloseTo(1 / (1 + Math.log(2)), 12);
    expect(b.sim).toBeCloseTo(0.590616109, 8);
  });

  it('keeps data view, measure and result as separate peer groups; the type is not part of the group', () => {
    const items: SignificanceInput[] = [
      { ...base, duration: 10, changePct: 100, sharePct: 50, recurrence: 0 },
      { ...base, result: 'Negative', duration: 1, changePct: -10, sharePct: 5, recurrence: 0 },
      { ...base, dataViewId: 2, duration: 1, changePct: 10, sharePct: 5, recurrence: 0 },
      { ...base, measure: 'count', duration: 1, changePct: 10, sharePct: 5, recurrence: 0 },
      { ...base, duration: 5, changePct: 25, sharePct: 10, recurrence: 3 },
      // Another type of the same view, measure and result: compared with the first item, not alone.
      { ...base, type: 'QOQ', duration: 1, changePct: 10, sharePct: 5, recurrence: 0 },
    ];
    const out = computeSignificance(items);
    // Each single-member group is its own maximum: SIN 4.5, SIM 1.
    for (const i of [1, 2, 3]) expect(out[i]).toEqual({ sin: 4.5, sim: 1 });
    // Item 4 shares the first one's group: norms 5/10, 25/100, 10/50 = 0.5, 0.25, 0.2.
    // SIN = 2·0.2 + 0.25 + 1.5·0.5 = 1.4;  SIM = 0.5·0.25·0.2 / (1 + ln 4) = 0.025 / 2.386294361 = 0.010476
    expect(out[4].sin).toBeCloseTo(1.4, 12);
    expect(out[4].sim).toBeCloseTo(0.025 / (1 + Math.log(4)), 12);
    expect(out[4].sim).toBeCloseTo(0.0104765, 6);
    // The lone QOQ: norms 1/10, 10/100, 5/50 → SIN = 0.2 + 0.1 + 0.15 = 0.45, not 4.5.
    expect(out[5].sin).toBeCloseTo(0.45, 12);
    // An omitted measure is the value measure.
    const [v, explicit] = computeSignificance([
      { ...base, duration: 2, changePct: 10, sharePct: 1, recurrence: 0 },
      { ...base, measure: 'value', duration: 4, changePct: 20, sharePct: 2, recurrence: 0 },
    ]);
    expect(v.sin).toBeCloseTo(2 * 0.5 + 0.5 + 1.5 * 0.5, 12);
    expect(explicit.sin).toBeCloseTo(4.5, 12);
  });

  it('guards against a zero group maximum; a null or NaN change % contributes 0, never the maximum', () => {
    const out = computeSignificance([
      { ...base, duration: 3, changePct: null, sharePct: 0, recurrence: 0 },
      { ...base, duration: 3, changePct: 40, sharePct: null, recurrence: 0 },
      { ...base, duration: 3, changePct: Number.NaN, sharePct: null, recurrence: 0 },
    ]);
    // Share maximum is 0 → norm_share 0 for all; durations equal → norm_duration 1.
    // First: norm_change 0 (null);  SIN = 0 + 0 + 1.5 = 1.5, SIM = 0.
    // Second: norm_change 40/40 = 1; SIN = 2.5, SIM = 0.  Third (NaN) like the first.
    expect(out).toEqual([
      { sin: 1.5, sim: 0 },
      { sin: 2.5, sim: 0 },
      { sin: 1.5, sim: 0 },
    ]);
  });

  it('returns nothing for nothing', () => {
    expect(computeSignificance([])).toEqual([]);
  });
});
