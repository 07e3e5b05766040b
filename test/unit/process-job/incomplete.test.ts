import { describe, expect, it } from 'vitest';
import { INCOMPLETE_DEFAULTS, incompleteTrailingDays } from '../../../lib/process-job/incomplete';

/** Five weeks of a weekly pattern (weekends low). */
const weekly = (weeks = 5) =>
  Array.from({ length: weeks * 7 }, (_, t) => [100, 110, 105, 100, 120, 60, 40][t % 7]);

describe('incomplete trailing days', () => {
  it('leaves out the newest days whose total is far below the same weekdays before, newest first', () => {
    const total = weekly();
    const n = total.length;
    expect(incompleteTrailingDays(total, n)).toBe(0);
    total[n - 1] = 10;
    expect(incompleteTrailingDays(total, n)).toBe(1);
    total[n - 2] = 20;
    expect(incompleteTrailingDays(total, n)).toBe(2);
    // Only a run at the end: a complete newest day stops the search.
    const gap = weekly();
    gap[n - 2] = 5;
    expect(incompleteTrailingDays(gap, n)).toBe(0);
  });

  it('compares with the same weekday (a low Sunday is not incomplete) and respects ignored days', () => {
    const total = weekly();
    const n = total.length; // the last day is a Sunday-like low day (40)
    expect(incompleteTrailingDays(total, n)).toBe(0);
    total[n - 1] = 10;
    // With the last day already ignored (ignoreLastNDays 1), the day before is judged and complete.
    expect(incompleteTrailingDays(total, n - 1)).toBe(0);
  });

  it('counts at most maxDays, and needs two weeks of history', () => {
    const total = weekly().map((v, t, a) => (t >= a.length - 5 ? 1 : v));
    expect(incompleteTrailingDays(total, total.length)).toBe(INCOMPLETE_DEFAULTS.maxDays);
    expect(incompleteTrailingDays([100, 100, 100, 100, 100, 100, 100, 100, 1], 9)).toBe(0);
  });

  it('also leaves out a day on which clearly fewer series have data', () => {
    const total = weekly();
    const n = total.length;
    const present = total.map(() => 200);
    // 80 % of the rows: the total is still above half its expectation, but 40 series are missing.
    total[n - 1] *= 0.8;
    present[n - 1] = 160;
    expect(incompleteTrailingDays(total, n)).toBe(0);
    expect(incompleteTrailingDays(total, n, undefined, present)).toBe(1);
    present[n - 1] = 195; // one series of 200 gone: a real event, judged as usual
    expect(incompleteTrailingDays(total, n, undefined, present)).toBe(0);
  });
});
