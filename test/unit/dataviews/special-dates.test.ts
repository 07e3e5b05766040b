import { describe, expect, it } from 'vitest';
import { isSuppressed, normaliseSpecialDates } from '../../../lib/dataviews/definition/special-dates';
import { ValidationError } from '../../../lib/shared/errors';

describe('normaliseSpecialDates', () => {
  const calendar = normaliseSpecialDates({
    specialDates: ['2024-11-29', { date: '2024-12-24', impact: 'negative' }],
    recurringRules: ['month_start', { rule: 'day_of_month:15', impact: 'positive' }, { rule: 'month_end' }],
    specialPeriods: [
      { start: '12.24', end: '01.02' },
      { start: '08.01', end: '08.15', impact: 'negative' },
    ],
  });

  it('turns plain and object entries into one typed form', () => {
    expect(calendar.dates).toEqual([
      { date: '2024-11-29', year: 2024, month: 11, day: 29, impact: 'both' },
      { date: '2024-12-24', year: 2024, month: 12, day: 24, impact: 'negative' },
    ]);
    expect(calendar.rules).toEqual([
      { kind: 'month_start', impact: 'both' },
      { kind: 'day_of_month', day: 15, impact: 'positive' },
      { kind: 'month_end', impact: 'both' },
    ]);
  });

  it('marks periods that cross the year boundary', () => {
    expect(calendar.periods).toEqual([
      { start: { month: 12, day: 24 }, end: { month: 1, day: 2 }, crossesYear: true, impact: 'both' },
      { start: { month: 8, day: 1 }, end: { month: 8, day: 15 }, crossesYear: false, impact: 'negative' },
    ]);
  });

  it('gives an empty calendar for a view without exceptions', () => {
    expect(normaliseSpecialDates({})).toEqual({ dates: [], rules: [], periods: [] });
  });

  it('refuses entries that are not real days', () => {
    expect(() => normaliseSpecialDates({ specialPeriods: [{ start: '02.30', end: '03.01' }] })).toThrow(
      ValidationError,
    );
    expect(() => normaliseSpecialDates({ specialDates: ['2024/01/01'] })).toThrow(ValidationError);
  });
});

describe('isSuppressed', () => {
  const calendar = normaliseSpecialDates({
    specialDates: [{ date: '2024-12-24', impact: 'negative' }],
    recurringRules: ['month_end', { rule: 'day_of_month:31', impact: 'positive' }],
    specialPeriods: [{ start: '12.30', end: '01.02' }],
  });

  it('suppresses only the direction the impact names', () => {
    expect(isSuppressed(calendar, 2024, 12, 24, 'negative')).toBe(true);
    expect(isSuppressed(calendar, 2024, 12, 24, 'positive')).toBe(false);
  });

  it('knows the last day of February in leap and common years', () => {
    expect(isSuppressed(calendar, 2024, 2, 29, 'negative')).toBe(true);
    expect(isSuppressed(calendar, 2023, 2, 28, 'negative')).toBe(true);
    expect(isSuppressed(calendar, 2024, 2, 28, 'negative')).toBe(false);
  });

  it('covers both ends of a year-crossing period and nothing between them', () => {
    expect(isSuppressed(calendar, 2024, 12, 30, 'positive')).toBe(true);
    expect(isSuppressed(calendar, 2025, 1, 2, 'negative')).toBe(true);
    expect(isSuppressed(calendar, 2025, 1, 3, 'negative')).toBe(false);
    expect(isSuppressed(calendar, 2025, 6, 15, 'positive')).toBe(false);
  });
});
