import { describe, expect, it } from 'vitest';
import { detectSeries } from '../../../lib/detection/detect';
import { dateOf, flat, series, weekly, withDays } from './helpers';

/** A level with ±2 % alternating noise, so that noise scales are not zero. */
function noisy(values: Float64Array, pct = 2): Float64Array {
  return values.map((v, t) => v * (1 + ((t % 2 === 0 ? 1 : -1) * pct) / 100));
}

describe('spike', () => {
  it('flags one day far outside the recent noise', () => {
    const values = withDays(noisy(flat(80, 100)), { 60: 200 });
    const anomalies = detectSeries(series(values), [{ type: 'spike' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'Spike',
      startDate: dateOf(60),
      duration: 1,
      result: 'Positive',
    });
    expect(anomalies[0].predictedValue).toBeCloseTo(100, 0);
  });

  it('flags drops as negative spikes', () => {
    const values = withDays(noisy(flat(80, 100)), { 60: 40 });
    expect(detectSeries(series(values), [{ type: 'spike' }])[0]).toMatchObject({ result: 'Negative' });
  });

  it('ignores moves that are many noise units but smaller than minChangePct', () => {
    const values = withDays(noisy(flat(80, 100), 0.5), { 60: 115 }); // 15 % on 0.5 % noise
    expect(detectSeries(series(values), [{ type: 'spike' }])).toEqual([]);
    expect(detectSeries(series(values), [{ type: 'spike', params: { minChangePct: 10 } }])).toHaveLength(1);
  });

  it('ignores moves that are large but within a noisy series’ usual range', () => {
    const values = withDays(noisy(flat(80, 100), 20), { 60: 125 }); // 25 % on ±20 % noise
    expect(detectSeries(series(values), [{ type: 'spike' }])).toEqual([]);
  });

  it('judges a change by the trimmed noise when an earlier spike inflates the window', () => {
    // ±6 % noise: residuals of 6, and one of 100 from the spike on day 50. At day 62 the plain
    // mean of the residuals would put the band near 64; the trimmed noise puts it near 41.
    const withChange = (value: number) => withDays(noisy(flat(100, 100), 6), { 50: 200, 62: value });
    const days = (value: number) =>
      detectSeries(series(withChange(value)), [{ type: 'spike' }]).map((a) => a.startDate);
    expect(days(145)).toEqual([dateOf(50), dateOf(62)]);
    expect(days(135)).toEqual([dateOf(50)]);
  });

  it('needs `window` days of history before it judges', () => {
    const values = withDays(noisy(flat(80, 100)), { 20: 200 });
    expect(detectSeries(series(values), [{ type: 'spike' }])).toEqual([]);
  });
});

describe('dt', () => {
  const profile = [100, 100, 100, 100, 100, 50, 40];

  it('follows weekly seasonality: a Saturday at 80 is far above its usual 50', () => {
    const values = withDays(noisy(weekly(112, profile)), { 96: 80 }); // day 96 is a Saturday
    const anomalies = detectSeries(series(values), [{ type: 'dt' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({ type: 'DT', startDate: dateOf(96), result: 'Positive' });
  });

  it('keeps a weekday at 80 inside a band learned for weekdays (a drop of 20 %) when sensitivity is wide', () => {
    const values = withDays(noisy(weekly(112, profile), 5), { 92: 80 });
    expect(detectSeries(series(values), [{ type: 'dt' }])).toEqual([]);
    expect(detectSeries(series(values), [{ type: 'dt', params: { sensitivity: 1 } }])).toHaveLength(1);
  });
});
