/**
 * Public holidays of a country or one of its states, computed in process by the `date-holidays`
 * library (its rules ship with the package: no network), and the days around them that businesses
 * treat specially (special periods): Christmas Eve to the first working day of the new year, and
 * bridge days (the Monday before a Tuesday holiday, the Friday after a Thursday one).
 * Pure: the same region and days always give the same answer; instances and years are cached.
 */
import Holidays from 'date-holidays';
import { civilFromDays, daysFromCivil, toEpochDay, weekday } from './days';
import { type SpecialCalendar, SUPPRESS_NEGATIVE, SUPPRESS_POSITIVE } from './special-calendar';

/** A holiday calendar: an ISO 3166-1 country code and optionally a state code of the library (e.g. DE, BY). */
export interface HolidayRegion {
  country: string;
  state?: string;
}

/** One marked day: a public holiday, or a day of a special period around holidays. */
export interface HolidayDay {
  day: number;
  name: string;
  kind: 'holiday' | 'period';
}

/** Holiday types that close or change business (observances such as Mother's Day do not). */
const TYPES = new Set(['public', 'bank']);
const BOTH = SUPPRESS_POSITIVE | SUPPRESS_NEGATIVE;
let catalogue: Holidays | undefined;
/** The library's catalogue of countries and states, made on first use (nothing is computed at import). */
const countries = (): Holidays => {
  catalogue ??= new Holidays();
  return catalogue;
};
const instances = new Map<string, Holidays>();
const years = new Map<string, Array<{ day: number; name: string }>>();

function regionKey(r: HolidayRegion): string {
  return r.state ? `${r.country}-${r.state}` : r.country;
}

/** Countries the library knows, code → English name. */
export function holidayCountries(): Record<string, string> {
  return countries().getCountries('en') ?? {};
}

/** States of a country the library knows, code → name ({} when it has none). */
export function holidayStates(country: string): Record<string, string> {
  return countries().getStates(country.toUpperCase()) ?? {};
}

/** Whether the library has holidays for the region (a known country, and a known state of it when given). */
export function isKnownRegion(r: HolidayRegion): boolean {
  if (!(r.country in holidayCountries())) return false;
  return r.state === undefined || r.state in holidayStates(r.country);
}

function instance(r: HolidayRegion): Holidays {
  const key = regionKey(r);
  let h = instances.get(key);
  if (!h) {
    h = r.state ? new Holidays(r.country, r.state) : new Holidays(r.country);
    instances.set(key, h);
  }
  return h;
}

/** The public (and bank) holidays of a region in one year, one entry per day, in day order. */
export function holidaysOfYear(r: HolidayRegion, year: number): ReadonlyArray<{ day: number; name: string }> {
  const key = `${regionKey(r)}:${year}`;
  const cached = years.get(key);
  if (cached) return cached;
  const byDay = new Map<number, string>();
  for (const h of instance(r).getHolidays(year, 'en') || []) {
    if (!TYPES.has(h.type)) continue;
    const day = toEpochDay(h.date.slice(0, 10));
    if (!byDay.has(day)) byDay.set(day, h.name);
  }
  const list = [...byDay].sort((a, b) => a[0] - b[0]).map(([day, name]) => ({ day, name }));
  years.set(key, list);
  return list;
}

const isWeekend = (day: number) => weekday(day) >= 5;

/**
 * Special periods of one year given the holidays of that year and the next: Christmas Eve to the
 * first working day after New Year (when the region keeps Christmas), and bridge days.
 */
function periodsOfYear(year: number, holidays: ReadonlySet<number>): HolidayDay[] {
  const out: HolidayDay[] = [];
  const christmas = daysFromCivil(year, 12, 25);
  if (holidays.has(christmas)) {
    let day = daysFromCivil(year, 12, 24);
    const newYear = daysFromCivil(year + 1, 1, 1);
    // Through New Year, then to the first working day back (the return is not a normal day either).
    while (day <= newYear || isWeekend(day) || holidays.has(day)) {
      if (!holidays.has(day)) out.push({ day, name: 'Christmas to New Year', kind: 'period' });
      day += 1;
    }
    if (day - newYear <= 7) out.push({ day, name: 'Return after New Year', kind: 'period' });
  }
  for (const h of holidays) {
    if (civilFromDays(h)[0] !== year) continue;
    const w = weekday(h);
    const bridge = w === 1 ? h - 1 : w === 3 ? h + 1 : null;
    if (bridge !== null && !holidays.has(bridge))
      out.push({ day: bridge, name: 'Bridge day', kind: 'period' });
  }
  return out;
}

/**
 * The holidays of a region on the epoch days fromDay..toDay (inclusive), with the special periods
 * around them when `periods` is set; one entry per day (a holiday wins over a period), in day order.
 */
export function holidayDays(r: HolidayRegion, fromDay: number, toDay: number, periods = false): HolidayDay[] {
  if (toDay < fromDay) return [];
  const firstYear = civilFromDays(fromDay)[0];
  const lastYear = civilFromDays(toDay)[0];
  const byDay = new Map<number, HolidayDay>();
  for (let y = firstYear - 1; y <= lastYear; y++) {
    const these = holidaysOfYear(r, y);
    for (const h of these) byDay.set(h.day, { ...h, kind: 'holiday' });
    if (!periods) continue;
    const set = new Set([...these, ...holidaysOfYear(r, y + 1)].map((h) => h.day));
    for (const p of periodsOfYear(y, set)) if (!byDay.has(p.day)) byDay.set(p.day, p);
  }
  return [...byDay.values()].filter((h) => h.day >= fromDay && h.day <= toDay).sort((a, b) => a.day - b.day);
}

/** Holidays (and periods) as a special calendar: every marked day suppresses both directions. */
export function holidayCalendar(
  r: HolidayRegion,
  fromDay: number,
  toDay: number,
  periods = false,
): SpecialCalendar {
  const flags = new Uint8Array(Math.max(0, toDay - fromDay + 1));
  for (const h of holidayDays(r, fromDay, toDay, periods)) flags[h.day - fromDay] |= BOTH;
  return { fromDay, toDay, flags };
}

/**
 * The calendar of an aggregate over several regions: a day is marked (per direction) when the
 * regions that mark it hold more than half of the aggregate's volume. `parts` share one range.
 */
export function blendCalendars(
  parts: ReadonlyArray<{ calendar: SpecialCalendar; volume: number }>,
  fromDay: number,
  toDay: number,
): SpecialCalendar {
  const n = Math.max(0, toDay - fromDay + 1);
  const total = parts.reduce((s, p) => s + Math.max(0, p.volume), 0);
  const pos = new Float64Array(n);
  const neg = new Float64Array(n);
  for (const p of parts) {
    const w = total > 0 ? Math.max(0, p.volume) / total : 1 / parts.length;
    const f = p.calendar.flags;
    for (let i = 0; i < n; i++) {
      const bits = f[i];
      if (bits === 0) continue;
      if (bits & SUPPRESS_POSITIVE) pos[i] += w;
      if (bits & SUPPRESS_NEGATIVE) neg[i] += w;
    }
  }
  const flags = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    flags[i] = (pos[i] > 0.5 ? SUPPRESS_POSITIVE : 0) | (neg[i] > 0.5 ? SUPPRESS_NEGATIVE : 0);
  return { fromDay, toDay, flags };
}

/** The union of calendars over one range (a day's bits are or-ed). */
export function unionCalendars(a: SpecialCalendar, b: SpecialCalendar): SpecialCalendar {
  const flags = new Uint8Array(a.flags);
  for (let i = 0; i < flags.length && i < b.flags.length; i++) flags[i] |= b.flags[i];
  return { fromDay: a.fromDay, toDay: a.toDay, flags };
}
