/**
 * The national public holidays of a few countries (the days most of the country is off), for the
 * generated cube family (scripts/synthetic/family-cube.ts): fixed dates and the moving feasts (Easter
 * and the days that follow it, the US and GB Mondays). Observed-day shifts (a holiday on a Sunday
 * observed on Monday) and regional holidays are left out.
 */
import { daysFromCivil, daysInMonth, weekday } from '../../lib/calendar/days';
import { easterSunday } from './holidays';

export const COUNTRIES = ['AT', 'DE', 'CZ', 'US', 'GB', 'FR'] as const;
export type Country = (typeof COUNTRIES)[number];

/** The n-th (1-based; −1 = last) given weekday (Monday = 0) of a month, as an epoch day. */
function nthWeekday(year: number, month: number, wd: number, n: number): number {
  if (n > 0) {
    const first = daysFromCivil(year, month, 1);
    return first + ((wd - weekday(first) + 7) % 7) + 7 * (n - 1);
  }
  const last = daysFromCivil(year, month, daysInMonth(year, month));
  return last - ((weekday(last) - wd + 7) % 7);
}

const FIXED: Record<Country, Array<[number, number]>> = {
  AT: [
    [1, 1],
    [1, 6],
    [5, 1],
    [8, 15],
    [10, 26],
    [11, 1],
    [12, 8],
    [12, 25],
    [12, 26],
  ],
  DE: [
    [1, 1],
    [5, 1],
    [10, 3],
    [12, 25],
    [12, 26],
  ],
  CZ: [
    [1, 1],
    [5, 1],
    [5, 8],
    [7, 5],
    [7, 6],
    [9, 28],
    [10, 28],
    [11, 17],
    [12, 24],
    [12, 25],
    [12, 26],
  ],
  US: [
    [1, 1],
    [7, 4],
    [11, 11],
    [12, 25],
  ],
  GB: [
    [1, 1],
    [12, 25],
    [12, 26],
  ],
  FR: [
    [1, 1],
    [5, 1],
    [5, 8],
    [7, 14],
    [8, 15],
    [11, 1],
    [11, 11],
    [12, 25],
  ],
};

/** Days after Easter Sunday: Good Friday −2, Easter Monday 1, Ascension 39, Whit Monday 50, Corpus Christi 60. */
const EASTER: Record<Country, number[]> = {
  AT: [1, 39, 50, 60],
  DE: [-2, 1, 39, 50],
  CZ: [-2, 1],
  US: [],
  GB: [-2, 1],
  FR: [1, 39, 50],
};

function mondays(country: Country, year: number): number[] {
  if (country === 'US')
    return [
      nthWeekday(year, 1, 0, 3), // Martin Luther King Jr. Day
      nthWeekday(year, 2, 0, 3), // Washington's Birthday
      nthWeekday(year, 5, 0, -1), // Memorial Day
      nthWeekday(year, 9, 0, 1), // Labor Day
      nthWeekday(year, 10, 0, 2), // Columbus Day
      nthWeekday(year, 11, 3, 4), // Thanksgiving (a Thursday)
      ...(year >= 2021 ? [daysFromCivil(year, 6, 19)] : []), // Juneteenth
    ];
  if (country === 'GB')
    return [nthWeekday(year, 5, 0, 1), nthWeekday(year, 5, 0, -1), nthWeekday(year, 8, 0, -1)];
  return [];
}

/** The public holidays of a country in a year, as sorted epoch days. */
export function publicHolidays(country: Country, year: number): number[] {
  const easter = easterSunday(year);
  const days = [
    ...FIXED[country].map(([m, d]) => daysFromCivil(year, m, d)),
    ...EASTER[country].map((k) => easter + k),
    ...mondays(country, year),
  ];
  return [...new Set(days)].sort((a, b) => a - b);
}
