/**
 * Returns are not events: the days after a run of flagged days (a drop of two weeks, a month, a gap)
 * are judged against what was expected for them, never against the flagged days.
 */
import { describe, expect, it } from 'vitest';
import { fromEpochDay, toEpochDay } from '../../../lib/calendar/days';
import { detectSeries } from '../../../lib/detection/detect';
import type { SeriesInput } from '../../../lib/detection/types';

const DAY0 = toEpochDay('2024-01-01');
const WEEK = [1, 1.04, 0.97, 1.02, 0.99, 1.3, 0.8];

/** 500 days of a weekly profile with ±2 % deterministic noise, at `factor` between from and to. */
function withDrop(from: string, to: string, factor: number): SeriesInput {
  const values = new Float64Array(500);
  for (let t = 0; t < values.length; t++) {
    const date = fromEpochDay(DAY0 + t);
    const noise = 1 + 0.02 * Math.sin(t * 12.9898) * Math.cos(t * 4.1414);
    values[t] = 1000 * WEEK[t % 7] * noise * (date >= from && date <= to ? factor : 1);
  }
  return { seriesId: 'r', dayIndex0: DAY0, values, measureKind: 'amount' };
}

const cases = [
  ['two weeks', '2024-06-10', '2024-06-23'],
  ['a month', '2024-06-01', '2024-06-30'],
  ['a quarter', '2024-07-01', '2024-09-30'],
  ['a week', '2024-06-03', '2024-06-09'],
] as const;

describe.each(['dod', 'wow', 'spike', 'dt', 'mom', 'cw', 'changepoint'] as const)('%s', (type) => {
  it.each(cases)('reports a drop of %s as a drop and its return as nothing', (_name, from, to) => {
    const found = detectSeries(withDrop(from, to, 0.5), [{ type }]);
    expect(found.filter((a) => a.result === 'Positive').map((a) => a.startDate)).toEqual([]);
    // Each detector that sees the drop says so (a month that holds one week of it is not a fall of the
    // month, a week is no level shift).
    const sees = from.endsWith('01') || (type !== 'mom' && !(type === 'changepoint' && to.endsWith('09')));
    if (sees) expect(found.some((a) => a.result === 'Negative')).toBe(true);
  });
});
