import { describe, expect, it } from 'vitest';
import { detectSeries } from '../../../lib/detection/detect';
import { dateOf, flat, series } from './helpers';

/** Presence flags: 1 everywhere except the listed [from, to] ranges (inclusive). */
function presence(n: number, ...missing: [number, number][]): Uint8Array {
  const p = new Uint8Array(n).fill(1);
  for (const [a, b] of missing) p.fill(0, a, b + 1);
  return p;
}

describe('gap', () => {
  it('reports three missing days as one negative Gap of three days, measured before gap filling', () => {
    const values = flat(60, 100);
    values.fill(0, 20, 23); // zero-filled
    const anomalies = detectSeries(series(values, { present: presence(60, [20, 22]) }), [{ type: 'gap' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'Gap',
      startDate: dateOf(20),
      endDate: dateOf(22),
      duration: 3,
      actualValue: 0,
      predictedValue: 100,
      change: -100,
      changePct: -100,
      changeCum: -300,
      result: 'Negative',
    });
  });

  it('sees the gap even when the filled values look normal', () => {
    const anomalies = detectSeries(series(flat(60, 100), { present: presence(60, [30, 30]) }), [
      { type: 'gap' },
    ]);
    expect(anomalies.map((a) => a.startDate)).toEqual([dateOf(30)]);
  });

  it('longerThan and shorterThan bound the run length', () => {
    const input = series(flat(90, 100), { present: presence(90, [30, 30], [50, 52], [70, 74]) });
    const lengths = (params: Record<string, number>) =>
      detectSeries(input, [{ type: 'gap', params }]).map((a) => a.duration);
    expect(lengths({})).toEqual([1, 3, 5]);
    expect(lengths({ longerThan: 1 })).toEqual([3, 5]);
    expect(lengths({ longerThan: 3 })).toEqual([5]);
    expect(lengths({ shorterThan: 3 })).toEqual([1]);
    expect(lengths({ longerThan: 1, shorterThan: 5 })).toEqual([3]);
  });

  it('days before the first data are not a gap, days after the last data are', () => {
    const input = series(flat(60, 100), { present: presence(60, [0, 9], [55, 59]) });
    const anomalies = detectSeries(input, [{ type: 'gap' }]);
    expect(anomalies.map((a) => [a.startDate, a.duration])).toEqual([[dateOf(55), 5]]);
  });

  it('reports only silences unlikely for the series: a sparse series with many empty days has none', () => {
    // Every third day without data: a run of one or two missing days is common here.
    const present = Uint8Array.from({ length: 120 }, (_, t) => (t % 3 === 0 ? 0 : 1));
    present.fill(0, 100, 106); // six days without data: (1/3)^6 < 1 %
    const anomalies = detectSeries(series(flat(120, 100), { present }), [{ type: 'gap' }]);
    expect(anomalies.map((a) => [a.startDate, a.duration])).toEqual([[dateOf(99), 7]]);
  });

  it('is skipped without presence flags', () => {
    expect(detectSeries(series(flat(60, 100)), [{ type: 'gap' }])).toEqual([]);
  });
});
