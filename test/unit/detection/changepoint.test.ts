import { describe, expect, it } from 'vitest';
import { detectSeries } from '../../../lib/detection/detect';
import { buildSpecialCalendar } from '../../../lib/calendar/special-calendar';
import { dateOf, flat, MONDAY, series, weekly, withDays } from './helpers';

function noisy(values: Float64Array, pct = 2): Float64Array {
  return values.map((v, t) => v * (1 + ((t % 2 === 0 ? 1 : -1) * pct) / 100));
}

describe('changepoint', () => {
  it('reports a lasting shift from 100 to 150 as one anomaly from the change to the end of the data', () => {
    const values = flat(140, 100);
    values.fill(150, 70);
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'ChangePoint',
      startDate: dateOf(70),
      duration: 70,
      result: 'Positive',
    });
    expect(anomalies[0].changePct).toBeCloseTo(50, 0);
  });

  it('reports a level shift of 8 weeks as one anomaly of 8 weeks, and not its return', () => {
    const values = flat(210, 1000);
    values.fill(600, 70, 126);
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies.map((a) => [a.startDate, a.duration, a.result])).toEqual([[dateOf(70), 56, 'Negative']]);
  });

  it('does not report the end of an unreported excursion as a new level (a return to the weeks before)', () => {
    // 100 for 10 weeks, a slow climb to 140 that no single day qualifies as a change point, three
    // weeks at 140, then back to 100 at once: the drop returns to the level before the excursion.
    const values = flat(231, 100);
    for (let t = 70; t < 112; t++) values[t] = 100 + (40 * (t - 70)) / 42;
    values.fill(140, 112, 133);
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies.filter((a) => a.result === 'Negative')).toEqual([]);
    // The same drop from a level the series had held for months is a change.
    const held = flat(231, 140);
    held.fill(100, 133);
    const found = detectSeries(series(noisy(held)), [{ type: 'changepoint' }]);
    expect(found.map((a) => [a.startDate, a.result])).toEqual([[dateOf(133), 'Negative']]);
  });

  it("ends a shift when the level returns to last year's season, not when the season has fallen past the midpoint", () => {
    // Two years of a yearly wave (±30 %); in the second year a 20 % drop for four weeks from day 514,
    // as the season falls. After the drop the series is back on its season, which keeps falling
    // below the midpoint of the drop for months: without last year's season that read as the drop
    // lasting into spring.
    const season = (t: number) => 100 * (1 + 0.3 * Math.sin((2 * Math.PI * t) / 364));
    const values = Float64Array.from({ length: 728 }, (_, t) => season(t) * (t >= 514 && t < 542 ? 0.8 : 1));
    const anomalies = detectSeries(series(noisy(values, 1)), [{ type: 'changepoint' }]);
    const drops = anomalies.filter((a) => a.result === 'Negative');
    expect(drops.map((a) => a.startDate)).toEqual([dateOf(514)]);
    expect(drops[0].duration).toBeLessThanOrEqual(35);
  });

  it('ends an anomaly where a further shift starts a new one', () => {
    const values = flat(210, 1000);
    values.fill(700, 70);
    values.fill(300, 126);
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies.map((a) => [a.startDate, a.duration, a.result])).toEqual([
      [dateOf(70), 56, 'Negative'],
      [dateOf(126), 84, 'Negative'],
    ]);
  });

  it('finds a shift under weekly seasonality', () => {
    const values = weekly(140, [100, 100, 100, 100, 100, 50, 40]);
    for (let t = 70; t < 140; t++) values[t] *= 0.6;
    const anomalies = detectSeries(series(noisy(values)), [{ type: 'changepoint' }]);
    expect(anomalies.map((a) => [a.startDate, a.result])).toEqual([[dateOf(70), 'Negative']]);
  });

  it('suppresses a shift that special days of its direction explain', () => {
    const values = flat(210, 1000);
    values.fill(600, 70, 126);
    const calendar = buildSpecialCalendar(
      {
        specialDates: Array.from({ length: 14 }, (_, i) => ({
          date: dateOf(70 + i),
          impact: 'negative' as const,
        })),
      },
      MONDAY,
      MONDAY + 210,
    );
    const found = detectSeries(
      series(noisy(values)),
      [{ type: 'changepoint', params: { useSpecialDates: true } }],
      {
        calendar,
      },
    );
    expect(found.filter((a) => a.result === 'Negative')).toEqual([]);
    // Without the special dates the same shift is reported.
    expect(detectSeries(series(noisy(values)), [{ type: 'changepoint' }])).toHaveLength(1);
  });

  it('holds a shift to the Poisson noise of the events: a lucky fortnight of 50 a day is not a new level', () => {
    // 50 a day (Poisson noise 7): +25 % over two weeks would be 9 standard errors of a smooth series,
    // 3.5 of the events' own noise.
    const values = flat(140, 50);
    values.fill(62.5, 70);
    expect(detectSeries(series(noisy(values, 0.5)), [{ type: 'changepoint' }])).toEqual([]);
    // The same shift in a series of 5,000 a day is one.
    expect(
      detectSeries(
        series(
          noisy(
            values.map((v) => v * 100),
            0.5,
          ),
        ),
        [{ type: 'changepoint' }],
      ),
    ).toHaveLength(1);
  });

  it('does not take a step that continues a slope (a season) for a new level; one after a flat stretch is', () => {
    // 10,000 a day rising 0.5 % a day: every fortnight ~7 % above the one before.
    const slope = Float64Array.from({ length: 200 }, (_, t) => 10_000 * 1.005 ** t);
    expect(
      detectSeries(series(noisy(slope, 0.5)), [{ type: 'changepoint', params: { minChangePct: 5 } }]),
    ).toEqual([]);
    const step = flat(200, 10_000);
    step.fill(10_700, 100);
    expect(
      detectSeries(series(noisy(step, 0.5)), [{ type: 'changepoint', params: { minChangePct: 5 } }]),
    ).toHaveLength(1);
  });

  it('judges a fall and the rise back by the same Poisson noise', () => {
    // A leaf selling 10 a day halves for eight weeks: 4.2 standard errors of its events either way,
    // so neither the fall nor the return is a change point (the rise used to be judged at the low
    // level's noise: 5.9, a "doubling" lasting to the end of the data).
    const values = Float64Array.from({ length: 300 }, (_, t) => (t >= 100 && t < 156 ? 5 : 10));
    expect(detectSeries(series(values), [{ type: 'changepoint' }])).toEqual([]);
  });

  it('takes the end of an excursion whose start special days hid for a return, not a new level', () => {
    // 10,000 a day, halved from day 100 to day 170; days 93-120 are special (left out), so no
    // segment sees the fall. The 56 days before the last fortnight are all low; of the 16 weeks
    // before it, 7 are at the old level and 5 low (4 are special).
    const values = Float64Array.from({ length: 300 }, (_, t) => (t >= 100 && t < 170 ? 5_000 : 10_000));
    const calendar = buildSpecialCalendar(
      {
        specialDates: Array.from({ length: 28 }, (_, i) => ({
          date: dateOf(93 + i),
          impact: 'both' as const,
        })),
      },
      MONDAY,
      MONDAY + 300,
    );
    const found = detectSeries(
      series(noisy(values, 0.5)),
      [{ type: 'changepoint', params: { useSpecialDates: true } }],
      { calendar },
    );
    expect(found.filter((a) => a.result === 'Positive')).toEqual([]);
  });

  it('ends a drop where the series comes back, even below the midpoint of a level that has since fallen', () => {
    // 10,000 a day, falling 0.5 % a day from day 100 (a season); days 100-149 at 60 % of that. On day
    // 150 the series comes back to its fallen level (7,780: below the midpoint 8,000 of the drop).
    const values = Float64Array.from({ length: 260 }, (_, t) => {
      const normal = t < 100 ? 10_000 : 10_000 * 0.995 ** (t - 100);
      return t >= 100 && t < 150 ? 0.6 * normal : normal;
    });
    const found = detectSeries(series(noisy(values, 0.5)), [{ type: 'changepoint' }]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ result: 'Negative', startDate: dateOf(100) });
    expect(found[0].duration).toBeLessThanOrEqual(50);
  });

  it('does not mistake a one-day spike for a change of level', () => {
    const values = withDays(noisy(flat(140, 100)), { 70: 300 });
    expect(detectSeries(series(values), [{ type: 'changepoint' }])).toEqual([]);
  });

  it('ignores shifts below minChangePct', () => {
    // A level of 10,000 events a day: Poisson noise 1 %, far below the 15 % step.
    const values = flat(140, 10_000);
    values.fill(11_500, 70);
    expect(detectSeries(series(noisy(values, 0.5)), [{ type: 'changepoint' }])).toEqual([]);
    expect(
      detectSeries(series(noisy(values, 0.5)), [{ type: 'changepoint', params: { minChangePct: 10 } }]),
    ).toHaveLength(1);
  });
});
