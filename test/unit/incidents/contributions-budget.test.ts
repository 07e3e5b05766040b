/** The budget of the contributions' leaf reads: which parameter a refusal names, and the window it offers. */
import { describe, expect, it } from 'vitest';
import { assertLeafBudget } from '../../../lib/incidents/contributions-leaves';
import { TooLargeError } from '../../../lib/shared/errors';

function refusal(leaves: number, days: number, weeks: number, max: number): TooLargeError | null {
  try {
    assertLeafBudget(leaves, { days, weeks }, 1, max);
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(TooLargeError);
    return e as TooLargeError;
  }
}

describe('assertLeafBudget', () => {
  it('passes within the budget, both ends included', () => {
    // 100,000 leaves × (366 + 56) days = 42.2 M values.
    expect(refusal(100_000, 366, 4, 50_000_000)).toBeNull();
    expect(refusal(10, 4, 4, 600)).toBeNull();
  });

  it('names to with the longest window that fits', () => {
    // 100,000 leaves × (366 + 168) days = 53.4 M: at most 500 − 168 = 332 days with 12 weeks.
    const e = refusal(100_000, 366, 12, 50_000_000);
    expect(e?.errors?.map((f) => f.path)).toEqual(['to']);
    expect(e?.message).toMatch(/100,000 leaves × 534 days .* = 53,400,000 values, more than the 50,000,000/);
    expect(e?.message).toMatch(/at most 332 days/);
  });

  it('names weeks when no window fits their baseline, and categories when nothing fits', () => {
    // 62 days per leaf: 12 weeks (168 days) cannot fit, 3 weeks (42) with 4 days can.
    const weeks = refusal(8, 4, 12, 8 * 62);
    expect(weeks?.errors?.map((f) => f.path)).toEqual(['weeks']);
    expect(weeks?.message).toMatch(/at most 4 weeks of baseline/);
    // 14 days per leaf: not even one day with one week of baseline.
    const series = refusal(8, 1, 1, 8 * 14);
    expect(series?.errors?.map((f) => f.path)).toEqual(['categories']);
  });
});
