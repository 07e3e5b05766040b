/**
 * The year before in the day detectors' and ChangePoint's expectation: what the same time of the
 * previous years showed with a similar size is not reported again, what is much larger is, against an
 * expectation that includes the years before; a one-off of last year explains nothing.
 */
import { describe, expect, it } from 'vitest';
import { fromEpochDay, toEpochDay } from '../../../lib/calendar/days';
import { buildSpecialCalendar } from '../../../lib/calendar/special-calendar';
import { detectSeries } from '../../../lib/detection/detect';
import type { SeriesInput } from '../../../lib/detection/types';

const DAY0 = toEpochDay('2022-01-01');
const DAYS = 1096; // 2022-01-01 .. 2024-12-31
const WEEK = [1, 1.04, 0.97, 1.02, 1.1, 1.3, 0.8];

/** A smooth daily series (weekly profile, ±2 % deterministic noise) times `factor(date)`. */
function yearly(factor: (date: string) => number): SeriesInput {
  const values = new Float64Array(DAYS);
  for (let t = 0; t < DAYS; t++) {
    const day = DAY0 + t;
    const noise = 1 + 0.02 * Math.sin(t * 12.9898) * Math.cos(t * 4.1414);
    values[t] = 1000 * WEEK[(((day + 3) % 7) + 7) % 7] * noise * factor(fromEpochDay(day));
  }
  return { seriesId: 'y', dayIndex0: DAY0, values, measureKind: 'amount' };
}

/** Christmas low (12-23..12-27 at `low`) and New Year high (12-31, 01-01 × 1.35), every year. */
const christmas =
  (low: (year: string) => number = () => 0.5) =>
  (date: string) => {
    const md = date.slice(5);
    if (md >= '12-23' && md <= '12-27') return low(date.slice(0, 4));
    return md === '12-31' || md === '01-01' ? 1.35 : 1;
  };

describe.each(['dod', 'wow', 'spike', 'dt'] as const)('%s with the year before', (type) => {
  it('reports a Christmas dip the first year only: the next ones recur with the same size', () => {
    const found = detectSeries(yearly(christmas()), [{ type }]);
    const dips = found.filter((a) => a.startDate.slice(5) >= '12-20' && a.result === 'Negative');
    expect(dips.map((a) => a.startDate.slice(0, 4))).toEqual(['2022']);
    // Nor is the return to normal after it, in any year, a rise; New Year's highs come the first year only.
    expect(found.filter((a) => a.startDate.slice(5) >= '12-28' && a.startDate.slice(5) <= '12-30')).toEqual(
      [],
    );
    const highs = found.filter((a) => a.result === 'Positive');
    expect(highs.every((a) => a.startDate < '2023-01-02')).toBe(true);
  });

  it('reports a dip much deeper than the years before, against the years before', () => {
    const found = detectSeries(yearly(christmas((y) => (y === '2024' ? 0.15 : 0.5))), [{ type }]);
    const dips = found.filter((a) => a.startDate.slice(5) >= '12-20' && a.result === 'Negative');
    expect(dips.map((a) => a.startDate.slice(0, 4))).toEqual(['2022', '2024']);
    const deeper = dips[1];
    // Its expectation holds the usual dip: 0.15 against 0.5 of normal is -70 %, not -85 %.
    expect(deeper.changePct ?? 0).toBeGreaterThan(-78);
    expect(deeper.changePct ?? 0).toBeLessThan(-60);
  });

  it("takes last year's one-off for nothing: the same days this year are judged as usual", () => {
    // A drop on three days of June 2023 only; in 2024 the same days are normal, then a drop on them.
    const oneOff = (date: string) => (date >= '2023-06-13' && date <= '2023-06-15' ? 0.4 : 1);
    const normal = detectSeries(yearly(oneOff), [{ type }]);
    expect(normal.filter((a) => a.startDate.startsWith('2024-06'))).toEqual([]);
    const again = detectSeries(
      yearly((d) => oneOff(d) * (d >= '2024-06-11' && d <= '2024-06-13' ? 0.4 : 1)),
      [{ type }],
    );
    // 2022 did not show it: with two years behind, both must.
    expect(again.filter((a) => a.startDate.startsWith('2024-06')).map((a) => a.result)).toEqual(['Negative']);
  });
});

describe('changepoint with the year before', () => {
  it('reports a summer season the first year only', () => {
    const season = (date: string) => (date.slice(5) >= '06-01' && date.slice(5) <= '08-31' ? 1.6 : 1);
    const found = detectSeries(yearly(season), [{ type: 'changepoint' }]);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((a) => a.startDate < '2023-01-01')).toBe(true);
  });

  it('takes a season that starts some days earlier or later than the years before for the same season', () => {
    // The change point a year before lies 10 days away from this one's: within a segment of it.
    const starts: Record<string, string> = { '2022': '05-31', '2023': '06-10', '2024': '06-04' };
    const season = (date: string) =>
      date.slice(5) >= starts[date.slice(0, 4)] && date.slice(5) <= '08-31' ? 1.5 : 1;
    const found = detectSeries(yearly(season), [{ type: 'changepoint' }]);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((a) => a.startDate < '2023-01-01')).toBe(true);
  });

  it('reports a season that doubled against the seasons before', () => {
    const season = (date: string) =>
      date.slice(5) >= '06-01' && date.slice(5) <= '08-31' ? (date.startsWith('2024') ? 3.2 : 1.6) : 1;
    const found = detectSeries(yearly(season), [{ type: 'changepoint' }]);
    const late = found.filter((a) => a.startDate >= '2024-05-15' && a.startDate <= '2024-06-15');
    expect(late.map((a) => a.result)).toEqual(['Positive']);
    // Expected at the usual season's level: about +100 %, not +220 %.
    expect(late[0].changePct ?? 0).toBeLessThan(150);
  });
});

describe('period detectors with the year before', () => {
  const july = (deeper: (year: string) => number) => (date: string) =>
    date.slice(5, 7) === '07' ? 1 + 0.3 * deeper(date.slice(0, 4)) : 1;
  const kept = (found: ReturnType<typeof detectSeries>) => found.map((a) => [a.startDate, a.result]);

  it('MOM: a July that rises every year is reported the first year only', () => {
    const found = detectSeries(yearly(july(() => 1)), [{ type: 'mom' }]);
    expect(kept(found)).toEqual([['2022-07-01', 'Positive']]);
  });

  it('MOM: a July three times deeper than the years before is reported, against them', () => {
    const found = detectSeries(yearly(july((y) => (y === '2024' ? 3 : 1))), [{ type: 'mom' }]);
    expect(kept(found)).toEqual([
      ['2022-07-01', 'Positive'],
      ['2024-07-01', 'Positive'],
    ]);
    // Expected at the usual July (1.3 of June): 1.9 against 1.3 is about +46 %, not +90 %.
    expect(found[1].changePct ?? 0).toBeGreaterThan(35);
    expect(found[1].changePct ?? 0).toBeLessThan(60);
  });

  it('CW: a Christmas week that recurs is reported the first year only', () => {
    const found = detectSeries(yearly(christmas()), [{ type: 'cw' }]);
    const late = found.filter((a) => a.startDate.slice(5) >= '12-15' && a.result === 'Negative');
    expect(late.length).toBeGreaterThan(0);
    expect(late.every((a) => a.startDate < '2023-01-01')).toBe(true);
    // Nor the weeks after it, in any year.
    expect(found.filter((a) => a.result === 'Positive' && a.startDate >= '2023-01-01')).toEqual([]);
  });

  it('CW: a one-off week is reported, in a series whose Christmas weeks are not', () => {
    const oneOff = (date: string) => (date >= '2024-06-10' && date <= '2024-06-16' ? 0.6 : christmas()(date));
    const found = detectSeries(yearly(oneOff), [{ type: 'cw' }]);
    expect(kept(found.filter((a) => a.startDate >= '2023-01-01'))).toEqual([['2024-06-10', 'Negative']]);
  });

  it('CW with special dates (weeks summed per weekday): the Christmas week recurs, a one-off week does not', () => {
    // A special day elsewhere sends CW through its general path.
    const calendar = buildSpecialCalendar({ specialDates: ['2022-03-15'] }, DAY0, DAY0 + DAYS);
    const oneOff = (date: string) => (date >= '2024-06-10' && date <= '2024-06-16' ? 0.6 : christmas()(date));
    const found = detectSeries(yearly(oneOff), [{ type: 'cw' }], { calendar });
    expect(found.some((a) => a.startDate.startsWith('2022-12'))).toBe(true);
    expect(kept(found.filter((a) => a.startDate >= '2023-01-01'))).toEqual([['2024-06-10', 'Negative']]);
  });
});
