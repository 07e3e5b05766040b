/**
 * Holiday calendars of a definition: `analysis.calendar` (a country, a state, the periods switch) and
 * categories marked `calendar: country | state` (with their optional `calendarCodes`). Checks that the
 * country and states exist in the holiday library and returns them in stored form (codes).
 */
import {
  FISCAL_PATTERNS,
  type FiscalCalendar,
  type FiscalPattern,
  WEEKDAYS,
  type WeekdayName,
} from '../../calendar/fiscal';
import { isKnownRegion } from '../../calendar/holidays';
import { type CalendarLevel, resolveCountry, resolveRegion, resolveState } from '../../calendar/regions';
import type { FieldError } from '../../shared/errors';
import { isRecord } from './util';

/** The view's holiday calendar as stored: codes of the library. */
export interface ViewCalendar {
  country?: string;
  state?: string;
  periods: boolean;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;

/** Checks `analysis.calendar`; undefined when it is not set (or has nothing in it). */
export function checkViewCalendar(
  raw: unknown,
  path: string,
): { calendar?: ViewCalendar; errors: FieldError[] } {
  if (!isRecord(raw)) return { errors: [] };
  const errors: FieldError[] = [];
  const countryText = text(raw.country);
  const stateText = text(raw.state);
  const country = countryText ? resolveCountry(countryText) : null;
  if (countryText && !country)
    errors.push({
      path: `${path}.country`,
      message: `${countryText} is not a country with a holiday calendar`,
    });
  let state: string | null = null;
  if (stateText && !countryText) errors.push({ path: `${path}.state`, message: 'needs calendar.country' });
  else if (stateText && country) {
    state = resolveState(country, stateText);
    if (!state)
      errors.push({
        path: `${path}.state`,
        message: `${stateText} is not a state of ${country} with holidays`,
      });
  }
  const periods = raw.periods === true;
  if (!country && !periods) return { errors };
  const calendar: ViewCalendar = { periods };
  if (country) calendar.country = country;
  if (state) calendar.state = state;
  return { calendar, errors };
}

/** The stored form of `analysis.fiscal` (its shape is the schema's): undefined when it is not set. */
export function fiscalOf(raw: unknown): FiscalCalendar | undefined {
  if (!isRecord(raw)) return undefined;
  const startMonth = typeof raw.startMonth === 'number' ? raw.startMonth : 1;
  const pattern = (FISCAL_PATTERNS as readonly unknown[]).includes(raw.pattern)
    ? (raw.pattern as FiscalPattern)
    : undefined;
  if (startMonth === 1 && !pattern) return undefined;
  const out: FiscalCalendar = { startMonth };
  if (pattern) {
    out.pattern = pattern;
    out.weekStart = (WEEKDAYS as readonly unknown[]).includes(raw.weekStart)
      ? (raw.weekStart as WeekdayName)
      : 'monday';
  }
  return out;
}

/** Checks the categories marked `calendar`: at most one per level, and codes that resolve. */
export function checkCategoryCalendars(categories: unknown, viewCountry: string | undefined): FieldError[] {
  if (!Array.isArray(categories)) return [];
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  categories.forEach((c, i) => {
    if (!isRecord(c)) return;
    const level = c.calendar as CalendarLevel | null | undefined;
    const codes = isRecord(c.calendarCodes) ? (c.calendarCodes as Record<string, unknown>) : undefined;
    if (level !== 'country' && level !== 'state') {
      if (codes && Object.keys(codes).length > 0)
        errors.push({ path: `categories[${i}].calendarCodes`, message: 'needs calendar: country or state' });
      return;
    }
    const first = seen.get(level);
    if (first !== undefined)
      errors.push({
        path: `categories[${i}].calendar`,
        message: `categories[${first}] already holds the ${level}`,
      });
    else seen.set(level, i);
    for (const [value, code] of Object.entries(codes ?? {})) {
      if (typeof code !== 'string') continue;
      const region = resolveRegion(level, code, { country: viewCountry });
      if (!region || !isKnownRegion(region))
        errors.push({
          path: `categories[${i}].calendarCodes.${value}`,
          message: `${code} is not a ${level} code with a holiday calendar${level === 'state' ? ' (write it as DE-BY)' : ''}`,
        });
    }
  });
  return errors;
}
