import { describe, expect, it } from 'vitest';
import { detectSeries } from '../../../lib/detection/detect';
import { dateOf, flat, series, weekly, withDays } from './helpers';

describe('dod', () => {
  it('a flat 100 series with one day at 200 gives one positive DOD of one day, change 100 (100 %)', () => {
    const anomalies = detectSeries(series(withDays(flat(60, 100), { 40: 200 })), [{ type: 'dod' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'DOD',
      startDate: dateOf(40),
      endDate: dateOf(40),
      duration: 1,
      actualValue: 200,
      predictedValue: 100,
      change: 100,
      changePct: 100,
      changeCum: 100,
      result: 'Positive',
      recurrence: 0,
    });
  });

  it('a day at 50 is a negative DOD of -50 %', () => {
    const [a] = detectSeries(series(withDays(flat(60, 100), { 40: 50 })), [{ type: 'dod' }]);
    expect(a).toMatchObject({ result: 'Negative', change: -50, changePct: -50 });
  });

  it('does not flag the return to normal after a one-day spike', () => {
    const anomalies = detectSeries(series(withDays(flat(60, 100), { 40: 200 })), [{ type: 'dod' }]);
    expect(anomalies.map((a) => a.startDate)).toEqual([dateOf(40)]);
  });

  it('compares like weekdays: a weekly profile with quiet weekends has no DOD anomaly', () => {
    const values = weekly(84, [100, 100, 100, 100, 100, 50, 40]);
    expect(detectSeries(series(values), [{ type: 'dod' }])).toEqual([]);
  });

  it('still flags a Saturday that doubles its usual weekend level', () => {
    const values = withDays(weekly(84, [100, 100, 100, 100, 100, 50, 40]), { 61: 100 }); // day 61 is a Saturday
    const anomalies = detectSeries(series(values), [{ type: 'dod' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({ startDate: dateOf(61), predictedValue: 50, result: 'Positive' });
  });

  it('honours percentualChange', () => {
    const values = withDays(flat(60, 10_000), { 40: 12_500 });
    expect(detectSeries(series(values), [{ type: 'dod' }])).toEqual([]);
    expect(detectSeries(series(values), [{ type: 'dod', params: { percentualChange: 20 } }])).toHaveLength(1);
  });

  it('does not judge a day whose expected value is below minVolume', () => {
    const values = withDays(flat(60, 5), { 40: 50 });
    expect(detectSeries(series(values), [{ type: 'dod' }])).toEqual([]);
    expect(detectSeries(series(values), [{ type: 'dod', params: { minVolume: 0 } }])).toHaveLength(1);
  });

  it('reports the onset of a level shift that later returns, and not the return', () => {
    const values = flat(160, 1000).map((v, t) => v * (1 + (t % 2 === 0 ? 0.02 : -0.02)));
    for (let t = 70; t < 126; t++) values[t] *= 0.4;
    for (const type of ['dod', 'wow', 'spike', 'dt'] as const) {
      const found = detectSeries(series(values), [{ type }]);
      expect(found.map((a) => [a.type, a.startDate, a.result])).toEqual([
        [found[0]?.type, dateOf(70), 'Negative'],
      ]);
    }
  });

  it('reports a level shift as one anomaly of adaptAfterDays days, then takes the new level as normal', () => {
    const values = flat(80, 100);
    values.fill(150, 40);
    const anomalies = detectSeries(series(values), [{ type: 'dod' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      startDate: dateOf(40),
      duration: 7,
      actualValue: 150,
      predictedValue: 100,
      changeCum: 350,
    });
  });
});

describe('wow', () => {
  it('compares a day with the same weekday a week before', () => {
    const values = withDays(weekly(70, [1000, 1200, 1100, 1300, 1500, 600, 400]), { 45: 1800 }); // a Thursday, usually 1300
    const anomalies = detectSeries(series(values), [{ type: 'wow' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'WOW',
      startDate: dateOf(45),
      actualValue: 1800,
      predictedValue: 1300,
    });
  });

  it('does not flag the same weekday a week after a spike', () => {
    const values = withDays(weekly(70, [1000, 1200, 1100, 1300, 1500, 600, 400]), { 45: 1800 });
    const anomalies = detectSeries(series(values), [{ type: 'wow' }]);
    expect(anomalies.map((a) => a.startDate)).toEqual([dateOf(45)]);
  });
});

describe('recovery from an unreported outlier', () => {
  // A series whose usual bursts (×2.3 every two weeks) make a fall to a quarter usual too: the fall on
  // day 80 passes the business threshold but not the noise test, so it is not reported.
  const bursty = () => {
    const v = flat(120, 100).map((x, t) => x * (1 + (t % 2 === 0 ? 0.02 : -0.02)));
    for (const t of [30, 44, 58, 72]) v[t] = 230;
    v[80] = 25;
    return v;
  };

  it('DOD compares the next day with what the outlier was expected to be, not with the outlier', () => {
    const v = bursty();
    v[81] = 130;
    const anomalies = detectSeries(series(v), [{ type: 'dod' }]);
    expect(anomalies.filter((a) => a.startDate === dateOf(81))).toEqual([]);
  });

  it('WOW compares the same weekday a week later with what the outlier was expected to be', () => {
    const v = bursty();
    v[87] = 115;
    const anomalies = detectSeries(series(v), [{ type: 'wow' }]);
    expect(anomalies.filter((a) => a.startDate === dateOf(80) || a.startDate === dateOf(87))).toEqual([]);
  });
});
