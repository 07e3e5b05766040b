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
    const input = byDate('2024-01-01', '2024-05-31', (d) => (d.startsWith('2024-04') ? 150 : 100));
    const anomalies = detectSeries(input, [{ type: 'mom' }]);
    expect(anomalies[0]).toMatchObject({
      type: 'MOM',
      startDate: '2024-04-01',
      endDate: '2024-04-30',
      duration: 30,
      actualValue: 4500,
      predictedValue: 3000,
      changePct: 50,
      result: 'Positive',
    });
    // The month after compares with the raised month, so the return to normal is reported too.
    expect(anomalies[1]).toMatchObject({ startDate: '2024-05-01', result: 'Negative' });
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
    const input = byDate('2024-01-01', '2024-02-29', (d) =>
      d >= '2024-02-10' && d <= '2024-02-19' ? 0 : 100,
    );
    expect(detectSeries(input, [{ type: 'mom' }])).toHaveLength(1);
    const calendar = buildSpecialCalendar(
      { specialPeriods: [{ start: '02.10', end: '02.19', impact: 'positive' }] },
      input.dayIndex0,
      input.dayIndex0 + 59,
    );
    expect(detectSeries(input, [{ type: 'mom', params: { useSpecialDates: true } }], { calendar })).toEqual(
      [],
    );
  });
});

describe('qoq', () => {
  it('flags a quarter 30 % above the previous quarter', () => {
    const input = byDate('2024-01-01', '2024-09-30', (d) => (d >= '2024-07-01' ? 130 : 100));
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
    const input = byDate('2023-01-01', '2024-03-31', (d) =>
      d.startsWith('2024-02') ? 130 : d.startsWith('2023-11') ? 60 : 100,
    );
    const anomalies = detectSeries(input, [{ type: 'mpy' }]);
    expect(anomalies.map((a) => [a.startDate, a.endDate, a.result])).toEqual([
      ['2024-02-01', '2024-02-29', 'Positive'],
    ]);
    expect(anomalies[0].changePct).toBeCloseTo(30, 10);
  });
});

describe('cw', () => {
  it('flags a calendar week 25 % above the mean of the four weeks before it', () => {
    const values = flat(49, 100);
    values.fill(125, 35, 42); // the sixth Monday-to-Sunday week
    const anomalies = detectSeries(series(values), [{ type: 'cw' }]);
    expect(anomalies[0]).toMatchObject({
      type: 'CW',
      startDate: '2024-02-05',
      endDate: '2024-02-11',
      duration: 7,
      actualValue: 875,
      predictedValue: 700,
      result: 'Positive',
    });
    expect(detectSeries(series(values), [{ type: 'dod' }])).toEqual([]);
  });
});
