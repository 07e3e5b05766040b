/**
 * Fiscal calendars: a fiscal year that starts in another month than January, and the retail
 * 4-4-5, 4-5-4 and 5-4-4 calendars, whose months are whole weeks (each quarter 4, 4 and 5 weeks in
 * the pattern's order). A retail year starts on the `weekStart` day nearest to the 1st of its start
 * month (the "nearest" rule), so it has 52 weeks, or 53 when the next start is 371 days later; the
 * 53rd week joins the year's last month. A fiscal year is named by the calendar year it starts in
 * (FY2025 starting April 2025 ends March 2026). Pure; epoch days throughout.
 */
import { civilFromDays, daysFromCivil, weekday } from './days';

export const FISCAL_PATTERNS = ['4-4-5', '4-5-4', '5-4-4'] as const;
export type FiscalPattern = (typeof FISCAL_PATTERNS)[number];
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type WeekdayName = (typeof WEEKDAYS)[number];

export interface FiscalCalendar {
  /** Month (1-12) in which the fiscal year starts. */
  startMonth: number;
  /** Retail calendar of whole weeks; unset: fiscal months are calendar months. */
  pattern?: FiscalPattern;
  /** First day of a retail week (and of the retail year); default monday. */
  weekStart?: WeekdayName;
}

/** A fiscal period: its first and last epoch day and its name in the fiscal year. */
export interface FiscalPeriod {
  start: number;
  end: number;
  year: number;
  /** 1-12 for months, 1-4 for quarters, 0 for the year. */
  index: number;
}

const weekStartOf = (f: FiscalCalendar) => Math.max(0, WEEKDAYS.indexOf(f.weekStart ?? 'monday'));

/** First day of fiscal year `year` (named by the calendar year it starts in). */
export function fiscalYearStart(f: FiscalCalendar, year: number): number {
  const first = daysFromCivil(year, f.startMonth, 1);
  if (!f.pattern) return first;
  // The week-start day nearest to the 1st of the start month (ties: the one before).
  const back = (weekday(first) - weekStartOf(f) + 7) % 7;
  return back <= 3 ? first - back : first + (7 - back);
}

/** Whether the retail year `year` has 53 weeks (always false without a pattern). */
export function hasWeek53(f: FiscalCalendar, year: number): boolean {
  return !!f.pattern && fiscalYearStart(f, year + 1) - fiscalYearStart(f, year) === 371;
}

/** The fiscal year holding an epoch day. */
export function fiscalYearOf(f: FiscalCalendar, day: number): number {
  let year = civilFromDays(day)[0];
  while (fiscalYearStart(f, year) > day) year--;
  while (fiscalYearStart(f, year + 1) <= day) year++;
  return year;
}

/** Start days of the 12 fiscal months of a year, and the start of the next year. */
export function fiscalMonthStarts(f: FiscalCalendar, year: number): number[] {
  const out: number[] = [];
  const start = fiscalYearStart(f, year);
  if (!f.pattern) {
    let y = year;
    let m = f.startMonth;
    for (let i = 0; i < 12; i++) {
      out.push(daysFromCivil(y, m, 1));
      m = m === 12 ? 1 : m + 1;
      if (m === 1) y++;
    }
  } else {
    const weeks = f.pattern.split('-').map(Number);
    let day = start;
    for (let i = 0; i < 12; i++) {
      out.push(day);
      day += 7 * weeks[i % 3];
    }
  }
  out.push(fiscalYearStart(f, year + 1));
  return out;
}

/**
 * Fiscal periods of `months` months (1: months, 3: quarters, 12: years) overlapping the epoch
 * days fromDay..toDay, in order.
 */
export function fiscalPeriods(
  f: FiscalCalendar,
  fromDay: number,
  toDay: number,
  months: 1 | 3 | 12,
): FiscalPeriod[] {
  const out: FiscalPeriod[] = [];
  for (let year = fiscalYearOf(f, fromDay); fiscalYearStart(f, year) <= toDay; year++) {
    const starts = fiscalMonthStarts(f, year);
    for (let i = 0; i < 12; i += months) {
      const start = starts[i];
      const end = starts[i + months] - 1;
      if (end < fromDay || start > toDay) continue;
      out.push({ start, end, year, index: months === 12 ? 0 : i / months + 1 });
    }
  }
  return out;
}

/** The fiscal period of `months` months holding an epoch day. */
export function fiscalPeriodOf(f: FiscalCalendar, day: number, months: 1 | 3 | 12): FiscalPeriod {
  return fiscalPeriods(f, day, day, months)[0];
}

/**
 * Start indices (relative to dayIndex0) of the fiscal periods of `months` months (0: fiscal weeks,
 * which start on `weekStart`) covering [0, n): the first start is at or before 0, the last at or
 * after n. The period detectors compare these periods.
 */
export function fiscalBounds(f: FiscalCalendar, dayIndex0: number, n: number, months: 0 | 1 | 3): number[] {
  if (months === 0) {
    const out: number[] = [];
    for (let idx = 0 - ((weekday(dayIndex0) - weekStartOf(f) + 7) % 7); ; idx += 7) {
      out.push(idx);
      if (idx >= n) return out;
    }
  }
  const periods = fiscalPeriods(f, dayIndex0, dayIndex0 + Math.max(0, n - 1), months);
  const out = periods.map((p) => p.start - dayIndex0);
  out.push(periods[periods.length - 1].end + 1 - dayIndex0);
  return out;
}

/** "FY2025 M3", "FY2025 Q1", "FY2025": how summaries and CSV name a fiscal period. */
export function fiscalPeriodName(p: FiscalPeriod, months: 1 | 3 | 12): string {
  if (months === 12) return `FY${p.year}`;
  return `FY${p.year} ${months === 3 ? 'Q' : 'M'}${p.index}`;
}

/**
 * The fiscal period an anomaly of `type` starting on `day` names: its quarter for QOQ, its retail
 * week for CW on a retail calendar (FY2025 W07), else the fiscal month of its start.
 */
export function fiscalLabel(f: FiscalCalendar, type: string, day: number): string {
  const t = type.toUpperCase();
  if (t === 'QOQ') return fiscalPeriodName(fiscalPeriodOf(f, day, 3), 3);
  if (t === 'CW' && f.pattern) {
    const year = fiscalYearOf(f, day);
    const week = Math.floor((day - fiscalYearStart(f, year)) / 7) + 1;
    return `FY${year} W${String(week).padStart(2, '0')}`;
  }
  return fiscalPeriodName(fiscalPeriodOf(f, day, 1), 1);
}
