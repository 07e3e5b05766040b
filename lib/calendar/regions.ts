/**
 * From a category value to a holiday region: a country code (AT), a country name in English or in
 * its own language (Austria, Österreich), a state code with its country (DE-BY, or BY when the
 * country is known from elsewhere) or a state name; an explicit mapping of values to codes wins.
 */
import { type HolidayRegion, holidayCountries, holidayStates, isKnownRegion } from './holidays';
import Holidays from 'date-holidays';

export type CalendarLevel = 'country' | 'state';

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();

let countryNames: Map<string, string> | undefined;

/** Country names (English and native) folded to lower case without accents → code. */
function countryByName(): Map<string, string> {
  if (countryNames) return countryNames;
  const h = new Holidays();
  countryNames = new Map();
  for (const lang of ['en', undefined]) {
    const list = (lang ? h.getCountries(lang) : h.getCountries()) ?? {};
    for (const [code, name] of Object.entries(list)) countryNames.set(fold(name), code);
  }
  return countryNames;
}

/** The country code of a value (code or name), or null. */
export function resolveCountry(value: string): string | null {
  const code = value.trim().toUpperCase();
  if (code in holidayCountries()) return code;
  return countryByName().get(fold(value)) ?? null;
}

/** The state code of a value within a country (code or name), or null. */
export function resolveState(country: string, value: string): string | null {
  const states = holidayStates(country);
  const code = value.trim().toUpperCase();
  if (code in states) return code;
  const folded = fold(value);
  for (const [c, name] of Object.entries(states)) if (fold(name) === folded) return c;
  return null;
}

/**
 * The region of a category value. `codes` maps values to codes first (Czechia → CZ, Bavaria →
 * DE-BY); a state value without its country uses `country` (a country category of the same series,
 * or the view's calendar). Null when the library knows no such country or state.
 */
export function resolveRegion(
  level: CalendarLevel,
  raw: string,
  opts: { country?: string | null; codes?: Readonly<Record<string, string>> } = {},
): HolidayRegion | null {
  const value = opts.codes?.[raw] ?? raw;
  if (level === 'country') {
    const country = resolveCountry(value);
    return country ? { country } : null;
  }
  const m = /^([A-Za-z]{2})[-_ ]([A-Za-z0-9]{1,3})$/.exec(value.trim());
  if (m) {
    const r = { country: m[1].toUpperCase(), state: m[2].toUpperCase() };
    if (isKnownRegion(r)) return r;
  }
  const country = opts.country ? resolveCountry(opts.country) : null;
  if (!country) return null;
  const state = resolveState(country, value);
  return state ? { country, state } : null;
}
