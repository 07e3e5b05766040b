import { describe, expect, it } from 'vitest';
import { detectSeries } from '../../../lib/detection/detect';
import { dateOf, flat, MONDAY, series, weekly, withDays } from './helpers';

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

  it('takes two days in a row beyond threshold / sqrt(2) as one anomaly, and one such day alone as noise', () => {
    // A count of 100 a day: Poisson noise 10 for the day and 6 for its expectation (a mean of weeks),
    // 11.7 together, so 60 is 3.4 noise units (below 4, above 4 / sqrt(2) = 2.83).
    const twice = withDays(noisy(flat(80, 100)), { 60: 60, 61: 60 });
    const pair = detectSeries(series(twice), [{ type: 'spike' }]);
    expect(pair.map((a) => [a.startDate, a.duration, a.result])).toEqual([[dateOf(60), 2, 'Negative']]);
    const once = withDays(noisy(flat(80, 100)), { 60: 60 });
    expect(detectSeries(series(once), [{ type: 'spike' }])).toEqual([]);
    // Two such days of opposite directions are not a pair.
    const opposite = withDays(noisy(flat(80, 100)), { 60: 60, 61: 140 });
    expect(detectSeries(series(opposite), [{ type: 'spike' }])).toEqual([]);
  });

  it('flags drops as negative spikes', () => {
    const values = withDays(noisy(flat(80, 100)), { 60: 40 });
    expect(detectSeries(series(values), [{ type: 'spike' }])[0]).toMatchObject({ result: 'Negative' });
  });

  it('ignores moves that are many noise units but smaller than minChangePct', () => {
    const values = withDays(noisy(flat(80, 100_000), 0.5), { 60: 108_000 }); // 8 % on 0.5 % noise
    expect(detectSeries(series(values), [{ type: 'spike' }])).toEqual([]);
    expect(detectSeries(series(values), [{ type: 'spike', params: { minChangePct: 5 } }])).toHaveLength(1);
  });

  it('holds a count to its Poisson noise: 100 → 130 a day is not a spike, 10,000 → 13,000 is', () => {
    const small = withDays(flat(80, 100), { 60: 130 });
    expect(detectSeries(series(small), [{ type: 'spike' }])).toEqual([]);
    const large = withDays(flat(80, 10_000), { 60: 13_000 });
    expect(detectSeries(series(large), [{ type: 'spike' }])).toHaveLength(1);
  });

  it('reports a spike and its recovery as one anomaly, not a second opposite one', () => {
    const values = withDays(noisy(flat(100, 1000)), { 60: 3000 });
    const anomalies = detectSeries(series(values), [{ type: 'spike' }, { type: 'dod' }, { type: 'wow' }]);
    expect(anomalies.map((a) => [a.type, a.startDate, a.result])).toEqual([
      ['Spike', dateOf(60), 'Positive'],
      ['DOD', dateOf(60), 'Positive'],
      ['WOW', dateOf(60), 'Positive'],
    ]);
  });

  it('ignores moves that are large but within a noisy series’ usual range', () => {
    const values = withDays(noisy(flat(80, 100), 20), { 60: 125 }); // 25 % on ±20 % noise
    expect(detectSeries(series(values), [{ type: 'spike' }])).toEqual([]);
  });

  it('judges a change by the trimmed noise when an earlier spike inflates the window', () => {
    // ±6 % noise: residuals of 6, and one of 100 from the spike on day 50. At day 62 the plain
    // mean of the residuals would put the band near 73; the trimmed noise (at least the Poisson noise
    // of the day and its expectation, 11.7) near 47.
    const withChange = (value: number) => withDays(noisy(flat(100, 100), 6), { 50: 200, 62: value });
    const days = (value: number) =>
      detectSeries(series(withChange(value)), [{ type: 'spike' }]).map((a) => a.startDate);
    expect(days(152)).toEqual([dateOf(50), dateOf(62)]);
    expect(days(140)).toEqual([dateOf(50)]);
  });

  it('needs `window` days of history before it judges', () => {
    const values = withDays(noisy(flat(80, 100)), { 20: 200 });
    expect(detectSeries(series(values), [{ type: 'spike' }])).toEqual([]);
  });
});

describe('dt', () => {
  const profile = [100, 100, 100, 100, 100, 50, 40];

  it('follows weekly seasonality: a Saturday at 80 is far above its usual 50', () => {
    const values = withDays(noisy(weekly(112, profile).map((v) => v * 100)), { 96: 8000 }); // day 96 is a Saturday
    const anomalies = detectSeries(series(values), [{ type: 'dt' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({ type: 'DT', startDate: dateOf(96), result: 'Positive' });
  });

  it('keeps a weekday at 80 inside a band learned for weekdays (a drop of 20 %) when sensitivity is wide', () => {
    const big = weekly(112, profile).map((v) => v * 100);
    const values = withDays(noisy(big, 5), { 92: 8000 });
    expect(detectSeries(series(values), [{ type: 'dt' }])).toEqual([]);
    expect(detectSeries(series(values), [{ type: 'dt', params: { sensitivity: 1 } }])).toHaveLength(1);
  });
});

describe('the series’ usual bursts', () => {
  /** ±2 % noise at 10,000 a day with a ×2.5 burst every 10th day. */
  const bursty = (n: number) => noisy(flat(n, 10_000)).map((v, t) => (t % 10 === 5 ? v * 2.5 : v));

  it('are not news on a bursty series, while they are on a quiet one', () => {
    const quiet = withDays(noisy(flat(200, 10_000)), { 185: 25_000 });
    expect(detectSeries(series(quiet), [{ type: 'spike' }]).map((a) => a.startDate)).toEqual([dateOf(185)]);
    expect(
      detectSeries(series(bursty(200)), [{ type: 'spike' }]).filter((a) => a.startDay >= MONDAY + 150),
    ).toEqual([]);
  });

  it('a fall to a tenth is still news on the bursty series (a halving is as large as a doubling)', () => {
    const values = withDays(bursty(200), { 183: 1_000 });
    const found = detectSeries(series(values), [{ type: 'spike' }]).filter((a) => a.startDay >= MONDAY + 150);
    expect(found.map((a) => [a.startDate, a.result])).toEqual([[dateOf(183), 'Negative']]);
  });
});
