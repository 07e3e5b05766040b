/** Calendar exceptions: checks of the three entry forms and their normalised, typed calendar. */
import { toEpochDay } from '../../calendar/days';
import {
  buildSpecialCalendar,
  calendarFlags,
  SUPPRESS_NEGATIVE,
  SUPPRESS_POSITIVE,
} from '../../calendar/special-calendar';
import { type FieldError, ValidationError } from '../../shared/errors';
import { isRecord, parseIsoDate, parseMonthDay } from './util';

export const IMPACTS = ['both', 'positive', 'negative'] as const;
/** Which anomaly direction an exception suppresses. */
export type Impact = (typeof IMPACTS)[number];

/** Entry forms as written in the document (plain strings or objects). */
export type SpecialDateInput = string | { date: string; impact?: Impact };
export type RecurringRuleInput = string | { rule: string; impact?: Impact };
export interface SpecialPeriodInput {
  start: string;
  end: string;
  impact?: Impact;
}

/** Object forms stored in a validated definition. */
export interface SpecialDate {
  date: string;
  impact: Impact;
}
export interface RecurringRule {
  rule: string;
  impact: Impact;
}
export interface SpecialPeriod {
  start: string;
  end: string;
  impact: Impact;
}

export interface MonthDay {
  month: number;
  day: number;
}
export type CalendarRule =
  | { kind: 'month_start'; impact: Impact }
  | { kind: 'month_end'; impact: Impact }
  | { kind: 'day_of_month'; day: number; impact: Impact };

/** The uniform form detectors read: every entry parsed into numbers. */
export interface SpecialCalendar {
  dates: Array<{ date: string; year: number; month: number; day: number; impact: Impact }>;
  rules: CalendarRule[];
  periods: Array<{ start: MonthDay; end: MonthDay; crossesYear: boolean; impact: Impact }>;
}

function impactOf(entry: unknown): Impact {
  const impact = isRecord(entry) ? entry.impact : undefined;
  return (IMPACTS as readonly unknown[]).includes(impact) ? (impact as Impact) : 'both';
}

type RuleShape = { kind: 'month_start' | 'month_end' } | { kind: 'day_of_month'; day: number };

function parseRule(text: unknown): RuleShape | undefined {
  if (text === 'month_start' || text === 'month_end') return { kind: text };
  const m = typeof text === 'string' ? /^day_of_month:(\d{1,2})$/.exec(text) : null;
  const day = m ? Number(m[1]) : 0;
  return day >= 1 && day <= 31 ? { kind: 'day_of_month', day } : undefined;
}

/**
 * Checks the real-calendar validity and uniqueness of the three lists under `path` (shape errors
 * come from the JSON Schema) and returns them in object form.
 */
export function checkSpecialDates(
  analysis: Record<string, unknown>,
  path: string,
): {
  specialDates: SpecialDate[];
  recurringRules: RecurringRule[];
  specialPeriods: SpecialPeriod[];
  errors: FieldError[];
} {
  const errors: FieldError[] = [];
  const specialDates: SpecialDate[] = [];
  const recurringRules: RecurringRule[] = [];
  const specialPeriods: SpecialPeriod[] = [];

  const seenDates = new Map<string, number>();
  list(analysis.specialDates).forEach((entry, i) => {
    const plain = typeof entry === 'string';
    const date = plain ? entry : isRecord(entry) ? entry.date : undefined;
    const at = plain ? `${path}.specialDates[${i}]` : `${path}.specialDates[${i}].date`;
    if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return;
    if (!parseIsoDate(date)) {
      errors.push({ path: at, message: `${date} is not a real calendar date` });
      return;
    }
    const first = seenDates.get(date);
    if (first !== undefined)
      errors.push({ path: at, message: `${date} is already listed at specialDates[${first}]` });
    else seenDates.set(date, i);
    specialDates.push({ date, impact: impactOf(entry) });
  });

  const seenRules = new Map<string, number>();
  list(analysis.recurringRules).forEach((entry, i) => {
    const plain = typeof entry === 'string';
    const rule = plain ? entry : isRecord(entry) ? entry.rule : undefined;
    if (typeof rule !== 'string' || !parseRule(rule)) return;
    const first = seenRules.get(rule);
    if (first !== undefined) {
      const at = plain ? `${path}.recurringRules[${i}]` : `${path}.recurringRules[${i}].rule`;
      errors.push({ path: at, message: `${rule} is already listed at recurringRules[${first}]` });
    } else seenRules.set(rule, i);
    recurringRules.push({ rule, impact: impactOf(entry) });
  });

  const seenPeriods = new Map<string, number>();
  list(analysis.specialPeriods).forEach((entry, i) => {
    if (!isRecord(entry)) return;
    let ok = true;
    for (const key of ['start', 'end'] as const) {
      const text = entry[key];
      if (typeof text !== 'string' || !/^\d{2}\.\d{2}$/.test(text)) {
        ok = false;
      } else if (!parseMonthDay(text)) {
        errors.push({
          path: `${path}.specialPeriods[${i}].${key}`,
          message: `${text} is not a day of the year (MM.dd)`,
        });
        ok = false;
      }
    }
    if (!ok) return;
    const key = `${entry.start}-${entry.end}`;
    const first = seenPeriods.get(key);
    if (first !== undefined) {
      errors.push({ path: `${path}.specialPeriods[${i}]`, message: `duplicates specialPeriods[${first}]` });
    } else seenPeriods.set(key, i);
    specialPeriods.push({ start: entry.start as string, end: entry.end as string, impact: impactOf(entry) });
  });

  return { specialDates, recurringRules, specialPeriods, errors };
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Turns the lists of a definition (any entry form) into the parsed calendar detectors use. */
export function normaliseSpecialDates(analysis: {
  specialDates?: readonly SpecialDateInput[] | null;
  recurringRules?: readonly RecurringRuleInput[] | null;
  specialPeriods?: readonly SpecialPeriodInput[] | null;
}): SpecialCalendar {
  const checked = checkSpecialDates(analysis as Record<string, unknown>, 'analysis');
  const given =
    (analysis.specialDates?.length ?? 0) +
    (analysis.recurringRules?.length ?? 0) +
    (analysis.specialPeriods?.length ?? 0);
  const kept = checked.specialDates.length + checked.recurringRules.length + checked.specialPeriods.length;
  if (checked.errors.length > 0 || kept !== given) {
    const errors =
      checked.errors.length > 0 ? checked.errors : [{ path: 'analysis', message: 'has malformed entries' }];
    throw new ValidationError('Invalid special dates.', errors);
  }
  return {
    dates: checked.specialDates.map(({ date, impact }) => ({ date, ...parseIsoDate(date)!, impact })),
    rules: checked.recurringRules.map(
      ({ rule, impact }) => ({ ...parseRule(rule)!, impact }) as CalendarRule,
    ),
    periods: checked.specialPeriods.map(({ start, end, impact }) => {
      const s = parseMonthDay(start)!;
      const e = parseMonthDay(end)!;
      return { start: s, end: e, crossesYear: s.month * 100 + s.day > e.month * 100 + e.day, impact };
    }),
  };
}

/**
 * Whether the calendar suppresses an anomaly of direction `sign` on the given day. A
 * `day_of_month` rule skips months without that day; a year-crossing period covers both ends.
 */
export function isSuppressed(
  calendar: SpecialCalendar,
  year: number,
  month: number,
  day: number,
  sign: 'positive' | 'negative',
): boolean {
  // One evaluator of special dates: lib/calendar, which the detection engine uses.
  const pad = (n: number) => String(n).padStart(2, '0');
  const at = toEpochDay(`${year}-${pad(month)}-${pad(day)}`);
  const built = buildSpecialCalendar(
    {
      specialDates: calendar.dates.map((d) => ({ date: d.date, impact: d.impact })),
      recurringRules: calendar.rules.map((r) => ({
        rule: r.kind === 'day_of_month' ? `day_of_month:${r.day}` : r.kind,
        impact: r.impact,
      })),
      specialPeriods: calendar.periods.map((p) => ({
        start: `${pad(p.start.month)}.${pad(p.start.day)}`,
        end: `${pad(p.end.month)}.${pad(p.end.day)}`,
        impact: p.impact,
      })),
    },
    at,
    at,
  );
  return (calendarFlags(built, at) & (sign === 'positive' ? SUPPRESS_POSITIVE : SUPPRESS_NEGATIVE)) !== 0;
}
