/** Relative time range presets resolved to inclusive yyyy-MM-dd windows in the service time zone. */
import { type FieldError, ValidationError } from '../shared/errors';
import { fromEpochDay, toEpochDay } from '../calendar/days';
import { type FiscalCalendar, fiscalPeriodOf } from '../calendar/fiscal';
import { FISCAL_PRESETS, type TimeRangePreset } from './types';

export interface DateWindow {
  dateFrom: string;
  dateTo: string;
}

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    // Throws RangeError for an unknown zone; the config loader should check with isValidTimeZone first.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      calendar: 'gregory',
      numberingSystem: 'latn',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when Intl knows the IANA zone name (e.g. 'Europe/Prague', 'UTC'). */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The calendar date (yyyy-MM-dd) that `now` falls on in `timeZone`. */
export function localDate(now: Date, timeZone: string): string {
  let y = '';
  let m = '';
  let d = '';
  for (const part of formatter(timeZone).formatToParts(now)) {
    if (part.type === 'year') y = part.value;
    else if (part.type === 'month') m = part.value;
    else if (part.type === 'day') d = part.value;
  }
  return `${y.padStart(4, '0')}-${m}-${d}`;
}

/** Days since 1970-01-01 of a yyyy-MM-dd date (a civil date, no zone). */
function toDay(date: string): number {
  const m = DATE.exec(date);
  if (!m) throw new RangeError(`Not a yyyy-MM-dd date: ${date}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY_MS;
}

function fromDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function fromParts(year: number, month1: number, day: number): string {
  return fromDay(Date.UTC(year, month1 - 1, day) / DAY_MS);
}

/** The date `days` days after (or before, when negative) a yyyy-MM-dd date. */
export function addDays(date: string, days: number): string {
  return fromDay(toDay(date) + days);
}

/** Monday of the ISO week holding the date. */
function mondayOf(date: string): string {
  const day = toDay(date);
  const weekdayFromMonday = (((day + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  return fromDay(day - weekdayFromMonday);
}

function isRealDate(date: string): boolean {
  return DATE.test(date) && fromDay(toDay(date)) === date;
}

/** The longest Custom range in days, both ends included (two years): what one run may read is bounded. */
export const MAX_CUSTOM_RANGE_DAYS = 731;

/** The field error of a Custom range longer than MAX_CUSTOM_RANGE_DAYS (undefined when it is not, or a date is malformed). */
export function customSpanError(dateFrom: string, dateTo: string): FieldError | undefined {
  if (!isRealDate(dateFrom) || !isRealDate(dateTo)) return undefined;
  const days = toDay(dateTo) - toDay(dateFrom) + 1;
  if (days <= MAX_CUSTOM_RANGE_DAYS) return undefined;
  return {
    path: 'dateTo',
    message: `must be at most ${MAX_CUSTOM_RANGE_DAYS} days from dateFrom (${dateFrom}), both included; this range has ${days}`,
  };
}

function customWindow(custom: Partial<DateWindow> | undefined): DateWindow {
  const errors: FieldError[] = [];
  const from = custom?.dateFrom;
  const to = custom?.dateTo;
  if (!from) errors.push({ path: 'dateFrom', message: 'is required when timeRange is Custom' });
  else if (!isRealDate(from)) errors.push({ path: 'dateFrom', message: 'must be a date yyyy-MM-dd' });
  if (!to) errors.push({ path: 'dateTo', message: 'is required when timeRange is Custom' });
  else if (!isRealDate(to)) errors.push({ path: 'dateTo', message: 'must be a date yyyy-MM-dd' });
  if (!errors.length && from! > to!)
    errors.push({ path: 'dateTo', message: `must not be before dateFrom (${from})` });
  const tooLong = errors.length ? undefined : customSpanError(from!, to!);
  if (tooLong) errors.push(tooLong);
  if (errors.length) {
    throw new ValidationError(`Invalid time range: ${errors[0].path} ${errors[0].message}.`, errors);
  }
  return { dateFrom: from!, dateTo: to! };
}

const LAST_N_DAYS: Partial<Record<TimeRangePreset, number>> = {
  'Last 2 Days': 2,
  'Last 4 Days': 4,
  'Last 7 Days': 7,
  'Last 15 Days': 15,
  'Last 30 Days': 30,
};

/** A fiscal preset's window: the fiscal period holding today (up to today), or the one before it (whole). */
function fiscalWindow(today: string, fiscal: FiscalCalendar, months: 1 | 3 | 12, back: 0 | 1): DateWindow {
  const day = toEpochDay(today);
  const current = fiscalPeriodOf(fiscal, day, months);
  if (back === 0) return { dateFrom: fromEpochDay(current.start), dateTo: today };
  const previous = fiscalPeriodOf(fiscal, current.start - 1, months);
  return { dateFrom: fromEpochDay(previous.start), dateTo: fromEpochDay(previous.end) };
}

/**
 * The inclusive window a preset names at `now`, in the service time zone (docs/filters.md, "Time range").
 * Last N Days ends yesterday (today is not loaded yet); This Week/Month/Year run up to today. The fiscal
 * presets use `fiscal` (the data views' fiscal calendar; none: calendar months, quarters and years).
 */
export function resolveTimeRange(
  preset: TimeRangePreset,
  now: Date,
  timeZone: string,
  custom?: Partial<DateWindow> | null,
  fiscal: FiscalCalendar = { startMonth: 1 },
): DateWindow {
  if (preset === 'Custom') return customWindow(custom ?? undefined);
  const today = localDate(now, timeZone);
  const fiscalPreset = FISCAL_PRESETS[preset];
  if (fiscalPreset) return fiscalWindow(today, fiscal, fiscalPreset.months, fiscalPreset.back);
  const yesterday = addDays(today, -1);
  const year = Number(today.slice(0, 4));
  const month = Number(today.slice(5, 7));
  const lastN = LAST_N_DAYS[preset];
  if (lastN !== undefined) return { dateFrom: addDays(today, -lastN), dateTo: yesterday };
  switch (preset) {
    case 'Yesterday':
      return { dateFrom: yesterday, dateTo: yesterday };
    case 'This Week':
      return { dateFrom: mondayOf(today), dateTo: today };
    case 'Previous Week': {
      const monday = mondayOf(today);
      return { dateFrom: addDays(monday, -7), dateTo: addDays(monday, -1) };
    }
    case 'Previous 2 Weeks': {
      const monday = mondayOf(today);
      return { dateFrom: addDays(monday, -14), dateTo: addDays(monday, -1) };
    }
    case 'This Month':
      return { dateFrom: fromParts(year, month, 1), dateTo: today };
    case 'Previous Month':
      // Day 0 of this month is the last day of the previous one.
      return { dateFrom: fromParts(year, month - 1, 1), dateTo: fromParts(year, month, 0) };
    case 'This Year':
      return { dateFrom: fromParts(year, 1, 1), dateTo: today };
    case 'Previous Year':
      return { dateFrom: fromParts(year - 1, 1, 1), dateTo: fromParts(year - 1, 12, 31) };
    default:
      throw ValidationError.field('timeRange', `is not a known preset: ${String(preset)}`);
  }
}
