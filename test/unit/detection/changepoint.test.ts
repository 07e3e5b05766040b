import { describe, expect, it } from 'vitest';
import { detectSeries } from '../../../lib/detection/detect';
import { dateOf, flat, series, weekly, withDays } from './helpers';

function noisy(values: Float64Array, pct = 2): Float64Array {
  return values.map((v, t) => v * (1 + ((t % 2 === 0 ? 1 : -1) * pct) / 100));
}

describe('changepoint', () => {
  it('finds a lasting shift from 100 to 150 and reports the segment after it', () => {
    const values = flat(140, 100);
    values.fill(150, 70);
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'ChangePoint',
      startDate: dateOf(70),
      duration: 14,
      result: 'Positive',
    });
    expect(anomalies[0].changePct).toBeCloseTo(50, 0);
  });

  it('finds a shift under weekly seasonality', () => {
    const values = weekly(140, [100, 100, 100, 100, 100, 50, 40]);
    for (let t = 70; t < 140; t++) values[t] *= 0.6;
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies.map((a) => [a.startDate, a.result])).toEqual([[dateOf(70), 'Negative']]);
  });

  it('finds a shift and its return, each once', () => {
    const values = flat(210, 100);
    values.fill(150, 70, 140);
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies.map((a) => [a.startDate, a.result])).toEqual([
      [dateOf(70), 'Positive'],
      [dateOf(140), 'Negative'],
    ]);
  });

  it('does not mistake a one-day spike for a change of level', () => {
    const values = withDays(noisy(flat(140, 100)), { 70: 300 });
    expect(detectSeries(series(values), [{ type: 'changepoint' }])).toEqual([]);
  });

  it('ignores shifts below minChangePct', () => {
    const values = flat(140, 100);
    values.fill(106, 70);
    expect(detectSeries(series(noisy(values, 0.5)), [{ type: 'changepoint' }])).toEqual([]);
    expect(
      detectSeries(series(noisy(values, 0.5)), [{ type: 'changepoint', params: { minChangePct: 5 } }]),
    ).toHaveLength(1);
  });
});
