/**
 * Special dates of a data view turned into one byte per epoch day, so that detectors test a day
 * with one array read. Bit 1 suppresses positive anomalies, bit 2 negative ones; any bit set also
 * keeps the day out of detector baselines.
 */
import { type FieldError, ValidationError } from '../shared/errors';
import { civilFromDays, daysFromCivil, daysInMonth, isLeapYear, toEpochDay } from './days';

export type Impact = 'both' | 'positive' | 'negative';

export const SUPPRESS_POSITIVE = 1;
export const SUPPRESS_NEGATIVE = 2;
/**
 * Not a calendar bit: the detection engine marks days without source data with it in a series'
 * copy of the flags, so that detectors neither judge them nor use them in baselines.
 */
export const NO_DATA = 4;

export type SpecialDateEntry = string | { date: string; impact?: Impact };
export type RecurringRuleEntry = string | { rule: string; impact?: Impact };
export interface SpecialPeriodEntry {
  start: string;
  end: string;
  impact?: Impact;
}

export interface SpecialDatesConfig {
  specialDates?: SpecialDateEntry[];
  recurringRules?: RecurringRuleEntry[];
  specialPeriods?: SpecialPeriodEntry[];
}

/** Per-day impact flags for the epoch days fromDay..toDay (inclusive). */
export interface SpecialCalendar {
  fromDay: number;
  toDay: number;
  flags: Uint8Array;
}

/** A calendar without special days. */
export const EMPTY_CALENDAR: SpecialCalendar = { fromDay: 0, toDay: -1, flags: new Uint8Array(0) };

function impactBits(impact: Impact | undefined, path: string, errors: FieldError[]): number {
  if (impact === undefined || impact === 'both') return SUPPRESS_POSITIVE | SUPPRESS_NEGATIVE;
  if (impact === 'positive') return SUPPRESS_POSITIVE;
  if (impact === 'negative') return SUPPRESS_NEGATIVE;
  errors.push({ path, message: 'must be one of both, positive, negative' });
  return 0;
}

type Rule = { kind: 'month_start' } | { kind: 'month_end' } | { kind: 'day_of_month'; day: number };

/** Parses month_start, month_end or day_of_month:<1..31>; null when malformed. */
export function parseRecurringRule(rule: string): Rule | null {
  if (rule === 'month_start') return { kind: 'month_start' };
  if (rule === 'month_end') return { kind: 'month_end' };
  const m = /^day_of_month:(\d{1,2})$/.exec(rule);
  if (!m) return null;
  const day = Number(m[1]);
  return day >= 1 && day <= 31 ? { kind: 'day_of_month', day } : null;
}

/** Parses 'MM.dd' (02.29 allowed); null when malformed. */
export function parseMonthDay(value: string): { month: number; day: number } | null {
  const m = /^(\d{2})\.(\d{2})$/.exec(value);
  if (!m) return null;
  const month = Number(m[1]);
  const day = Number(m[2]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(2000, month)) return null;
  return { month, day };
}

/** Epoch day of MM.dd in a year; 02.29 falls on 02.28 in a common year. */
function monthDayIn(year: number, md: { month: number; day: number }): number {
  const day = md.month === 2 && md.day === 29 && !isLeapYear(year) ? 28 : md.day;
  return daysFromCivil(year, md.month, day);
}

/**
 * Builds the per-day flags of a calendar for fromDay..toDay (inclusive epoch days).
 * Throws ValidationError listing every malformed entry (paths relative to `analysis`).
 */
export function buildSpecialCalendar(
  config: SpecialDatesConfig,
  fromDay: number,
  toDay: number,
): SpecialCalendar {
  const length = Math.max(0, toDay - fromDay + 1);
  const flags = new Uint8Array(length);
  const errors: FieldError[] = [];
  const mark = (day: number, bits: number) => {
    const i = day - fromDay;
    if (i >= 0 && i < length) flags[i] |= bits;
  };

  (config.specialDates ?? []).forEach((entry, i) => {
    const date = typeof entry === 'string' ? entry : entry?.date;
    const path = typeof entry === 'string' ? `specialDates[${i}]` : `specialDates[${i}].date`;
    const bits = impactBits(
      typeof entry === 'string' ? undefined : entry.impact,
      `specialDates[${i}].impact`,
      errors,
    );
    try {
      mark(toEpochDay(String(date)), bits);
    } catch {
      errors.push({ path, message: 'must be a date in yyyy-MM-dd form' });
    }
  });

  const ymd = [0, 0, 0];
  (config.recurringRules ?? []).forEach((entry, i) => {
    const text = typeof entry === 'string' ? entry : entry?.rule;
    const bits = impactBits(
      typeof entry === 'string' ? undefined : entry.impact,
      `recurringRules[${i}].impact`,
      errors,
    );
    const rule = parseRecurringRule(String(text));
    if (!rule) {
      errors.push({
        path: typeof entry === 'string' ? `recurringRules[${i}]` : `recurringRules[${i}].rule`,
        message: 'must be month_start, month_end or day_of_month:<1..31>',
      });
      return;
    }
    if (length === 0) return;
    civilFromDays(fromDay, ymd);
    let year = ymd[0];
    let month = ymd[1];
    // Walk the months that touch the range; day_of_month beyond the month's length marks nothing.
    for (;;) {
      const first = daysFromCivil(year, month, 1);
      if (first > toDay) break;
      const dim = daysInMonth(year, month);
      if (rule.kind === 'month_start') mark(first, bits);
      else if (rule.kind === 'month_end') mark(first + dim - 1, bits);
      else if (rule.day <= dim) mark(first + rule.day - 1, bits);
      month += 1;
      if (month > 12) {
        month = 1;
        year += 1;
      }
    }
  });

  (config.specialPeriods ?? []).forEach((entry, i) => {
    const bits = impactBits(entry?.impact, `specialPeriods[${i}].impact`, errors);
    const start = parseMonthDay(String(entry?.start));
    const end = parseMonthDay(String(entry?.end));
    if (!start) errors.push({ path: `specialPeriods[${i}].start`, message: 'must be MM.dd' });
    if (!end) errors.push({ path: `specialPeriods[${i}].end`, message: 'must be MM.dd' });
    if (!start || !end || length === 0) return;
    const crosses = end.month * 100 + end.day < start.month * 100 + start.day;
    // Start one year early so that a period crossing the year boundary covers the range's first days.
    const firstYear = civilFromDays(fromDay, ymd)[0] - 1;
    const lastYear = civilFromDays(toDay, ymd)[0];
    for (let year = firstYear; year <= lastYear; year++) {
      const a = Math.max(monthDayIn(year, start), fromDay);
      const b = Math.min(monthDayIn(crosses ? year + 1 : year, end), toDay);
      for (let d = a; d <= b; d++) flags[d - fromDay] |= bits;
    }
  });

  if (errors.length > 0) {
    throw new ValidationError(`Invalid special dates: ${errors.map((e) => e.path).join(', ')}`, errors);
  }
  return { fromDay, toDay, flags };
}

/** Impact flags of one epoch day (0 outside the calendar's range). */
export function calendarFlags(calendar: SpecialCalendar, day: number): number {
  const i = day - calendar.fromDay;
  return i >= 0 && i < calendar.flags.length ? calendar.flags[i] : 0;
}

/**
 * Flags aligned with a series that starts at dayIndex0 and has n days: a zero-copy view when the
 * calendar covers the whole span, else a copy padded with zeros.
 */
export function alignCalendar(calendar: SpecialCalendar, dayIndex0: number, n: number): Uint8Array {
  const offset = dayIndex0 - calendar.fromDay;
  if (offset >= 0 && offset + n <= calendar.flags.length) return calendar.flags.subarray(offset, offset + n);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const j = offset + i;
    if (j >= 0 && j < calendar.flags.length) out[i] = calendar.flags[j];
  }
  return out;
}
