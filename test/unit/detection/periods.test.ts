import { describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { buildSpecialCalendar } from '../../../lib/calendar/special-calendar';
import { detectSeries } from '../../../lib/detection/detect';
import { flat, series, weekly } from './helpers';

const JAN_2024 = toEpochDay('2024-01-01');

/** A series from `from` to `to` (inclusive) with value(date) chosen per ISO date. */
function byDate(from: string, to: string, value: (iso: string, t: number) => number) {
  const a = toEpochDay(from);
  const n = toEpochDay(to) - a + 1;
  const values = new Float64Array(n);
  for (let t = 0; t < n; t++) values[t] = value(new Date((a + t) * 86_400_000).toISOString().slice(0, 10), t);
  return { seriesId: 'p', dayIndex0: a, values };
}

describe('mom', () => {
  it('flags a month 50 % above the previous one as one anomaly covering the month', () => {
    // Three normal months before give the noise of month-over-month residuals.
    const input = byDate('2023-12-01', '2024-05-31', (d) => (d.startsWith('2024-04') ? 150 : 100));
    const anomalies = detectSeries(input, [{ type: 'mom' }]);
    // Actual and predicted are per day; change cum is the total change over the month.
    expect(anomalies[0]).toMatchObject({
      type: 'MOM',
      startDate: '2024-04-01',
      endDate: '2024-04-30',
      duration: 30,
      actualValue: 150,
      predictedValue: 100,
      changePct: 50,
      changeCum: 1500,
      result: 'Positive',
    });
    // The month after is back to normal: against April as it was expected it is no change, so the
    // return is not reported as a fall.
    expect(anomalies).toHaveLength(1);
  });

  it('does not report the months after a lasting change, nor its return, and judges the return by the old normal', () => {
    const level = (d: string) => (d >= '2024-04' && d < '2024-07' ? 50 : 100);
    const input = byDate('2023-12-01', '2024-10-31', level);
    const anomalies = detectSeries(input, [{ type: 'mom' }]);
    expect(anomalies.map((a) => [a.startDate, a.result])).toEqual([['2024-04-01', 'Negative']]);
    // A real fall after the return is still a fall.
    const again = byDate('2023-12-01', '2024-10-31', (d) => (d.startsWith('2024-09') ? 40 : level(d)));
    expect(detectSeries(again, [{ type: 'mom' }]).map((a) => [a.startDate, a.result])).toEqual([
      ['2024-04-01', 'Negative'],
      ['2024-09-01', 'Negative'],
    ]);
  });

  it('does not report the month after a drop week as a rise', () => {
    const input = byDate('2023-12-01', '2024-08-31', (d) =>
      d >= '2024-06-03' && d <= '2024-06-09' ? 40 : 100,
    );
    expect(detectSeries(input, [{ type: 'mom' }])).toEqual([]);
  });

  it('normalises weekday mix: January with five Mondays and February with four are both normal', () => {
    // Mondays carry almost all volume; a raw month total would fall 19 % from January to February.
    const input = { seriesId: 'm', dayIndex0: JAN_2024, values: weekly(91, [1000, 10, 10, 10, 10, 10, 10]) };
    expect(detectSeries(input, [{ type: 'mom' }])).toEqual([]);
  });

  it('normalises day count: a flat series has no MOM anomaly between 31- and 29-day months', () => {
    const input = { seriesId: 'm', dayIndex0: JAN_2024, values: flat(182, 100) };
    expect(detectSeries(input, [{ type: 'mom' }])).toEqual([]);
  });

  it('leaves special days out of both months', () => {
    // Ten closed days in February would make February 32 % lower than January.
    const input = byDate('2023-10-01', '2024-02-29', (d) =>
      d >= '2024-02-10' && d <= '2024-02-19' ? 0 : 100,
    );
    expect(detectSeries(input, [{ type: 'mom' }])).toHaveLength(1);
    const calendar = buildSpecialCalendar(
      { specialPeriods: [{ start: '02.10', end: '02.19', impact: 'positive' }] },
      input.dayIndex0,
      input.dayIndex0 + 160,
    );
    expect(detectSeries(input, [{ type: 'mom', params: { useSpecialDates: true } }], { calendar })).toEqual(
      [],
    );
  });
});

describe('one anomaly per period', () => {
  it('reports March +50 % and April +33 % (each against its previous month) as two anomalies', () => {
    const input = byDate('2023-11-01', '2024-04-30', (d) =>
      d.startsWith('2024-03') ? 150 : d.startsWith('2024-04') ? 200 : 100,
    );
    const anomalies = detectSeries(input, [{ type: 'mom' }]);
    expect(anomalies.map((a) => [a.startDate, a.endDate, a.result])).toEqual([
      ['2024-03-01', '2024-03-31', 'Positive'],
      ['2024-04-01', '2024-04-30', 'Positive'],
    ]);
    expect(anomalies[1].changePct).toBeCloseTo(33.3, 1);
  });

  it('suppresses a month whose negative special days explain its fall, only with useSpecialDates', () => {
    const input = byDate('2023-11-01', '2024-04-30', (d) => (d.startsWith('2024-03') ? 60 : 100));
    const calendar = buildSpecialCalendar(
      { specialPeriods: [{ start: '03.01', end: '03.07', impact: 'negative' }] },
      input.dayIndex0,
      input.dayIndex0 + 200,
    );
    const plain = detectSeries(input, [{ type: 'mom', params: { useSpecialDates: false } }], { calendar });
    // April's recovery is a return to normal, not a rise.
    expect(plain.map((a) => [a.startDate, a.result])).toEqual([['2024-03-01', 'Negative']]);
    const special = detectSeries(input, [{ type: 'mom', params: { useSpecialDates: true } }], { calendar });
    // March (7 special days of 31) is explained; April returns to normal.
    expect(special).toEqual([]);
  });

  it('does not judge a sparse series of 0-3 a day', () => {
    const input = byDate('2023-01-01', '2024-06-30', (_d, t) => (t * 7919) % 4);
    for (const type of ['mom', 'qoq', 'mpy', 'cw', 'dod', 'wow', 'spike', 'dt', 'changepoint'] as const)
      expect(detectSeries(input, [{ type }])).toEqual([]);
  });
});

describe('qoq', () => {
  it('flags a quarter 30 % above the previous quarter', () => {
    const input = byDate('2023-01-01', '2024-09-30', (d) => (d >= '2024-07-01' ? 130 : 100));
    const anomalies = detectSeries(input, [{ type: 'qoq' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'QOQ',
      startDate: '2024-07-01',
      endDate: '2024-09-30',
      duration: 92,
    });
    expect(anomalies[0].changePct).toBeCloseTo(30, 10);
  });
});

describe('mpy', () => {
  it('compares a month with the same month a year before, whatever the months in between did', () => {
    // November 2023 was low; February 2024 is 30 % above February 2023.
    const input = byDate('2022-06-01', '2024-03-31', (d) =>
      d.startsWith('2024-02') ? 130 : d.startsWith('2023-11') ? 60 : 100,
    );
    const anomalies = detectSeries(input, [{ type: 'mpy' }]);
    expect(anomalies.map((a) => [a.startDate, a.endDate, a.result])).toEqual([
      ['2023-11-01', '2023-11-30', 'Negative'],
      ['2024-02-01', '2024-02-29', 'Positive'],
    ]);
    expect(anomalies[1].changePct).toBeCloseTo(30, 10);
  });
});

describe('the Poisson noise of a period comparison', () => {
  it('counts the events of the reference period too: a month of 12 a day 20 % down is not news against one month', () => {
    // 360 events a month: 5.3 % Poisson noise for the month alone (3 × = 15.8 %), 7.5 % for the
    // comparison with one month of the same (3 × = 22.4 %).
    const month = byDate('2023-12-01', '2024-05-31', (d) => (d.startsWith('2024-04') ? 9.6 : 12));
    expect(detectSeries(month, [{ type: 'mom' }])).toEqual([]);
    const bigger = byDate('2023-12-01', '2024-05-31', (d) => (d.startsWith('2024-04') ? 72 : 90));
    expect(detectSeries(bigger, [{ type: 'mom' }]).map((a) => a.startDate)).toContain('2024-04-01');
  });

  it('and a calendar week against four weeks: 84 a week 35 % down is within 3 × 12.2 %', () => {
    const week = byDate('2024-01-01', '2024-04-28', (_, t) => (t >= 98 && t < 105 ? 7.8 : 12));
    expect(detectSeries(week, [{ type: 'cw' }])).toEqual([]);
    const bigger = byDate('2024-01-01', '2024-04-28', (_, t) => (t >= 98 && t < 105 ? 39 : 60));
    expect(detectSeries(bigger, [{ type: 'cw' }])).toHaveLength(1);
  });
});

describe('cw', () => {
  it('flags a calendar week 25 % above the mean of the four weeks before it', () => {
    const values = flat(70, 100);
    values.fill(125, 56, 63); // the ninth Monday-to-Sunday week
    const anomalies = detectSeries(series(values), [{ type: 'cw' }]);
    expect(anomalies[0]).toMatchObject({
      type: 'CW',
      startDate: '2024-02-26',
      endDate: '2024-03-03',
      duration: 7,
      actualValue: 125,
      predictedValue: 100,
      changeCum: 175,
      result: 'Positive',
    });
    expect(detectSeries(series(values), [{ type: 'dod' }])).toEqual([]);
  });
});
