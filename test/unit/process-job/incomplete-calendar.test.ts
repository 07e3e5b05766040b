import { describe, expect, it } from 'vitest';
import { incompleteTrailingDays } from '../../../lib/process-job/incomplete';

/** Seven weeks of a weekly pattern (weekends low). */
const weekly = (weeks = 7) =>
  Array.from({ length: weeks * 7 }, (_, t) => [100, 110, 105, 100, 120, 60, 40][t % 7]);

describe('incomplete trailing days and the calendar', () => {
  it('leaves special days out of the same weekdays it compares with', () => {
    const total = weekly();
    const n = total.length;
    // Three of the last six same weekdays were holidays at a third of the usual level.
    total[n - 8] /= 3;
    total[n - 15] /= 3;
    total[n - 22] /= 3;
    total[n - 1] *= 0.45;
    expect(incompleteTrailingDays(total, n)).toBe(0);
    const holiday = (t: number) => t === n - 8 || t === n - 15 || t === n - 22;
    expect(incompleteTrailingDays(total, n, undefined, undefined, holiday)).toBe(1);
  });
});
