/** The synthetic calendar: which days carry a holiday or month-end effect, and the matching special dates. */
import { daysFromCivil, daysInMonth, fromEpochDay } from '../../lib/calendar/days';
import type { SpecialDatesConfig } from '../../lib/calendar/special-calendar';

/** Easter Sunday (anonymous Gregorian algorithm) as an epoch day. */
export function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return daysFromCivil(year, month, day);
}

/** Multiplicative calendar effect per day and the special-date configuration that describes it. */
export function holidayEffects(
  dayIndex0: number,
  days: number,
): { factor: Float64Array; config: SpecialDatesConfig } {
  const factor = new Float64Array(days).fill(1);
  const at = (day: number, f: number) => {
    const i = day - dayIndex0;
    if (i >= 0 && i < days) factor[i] *= f;
  };
  const first = Number(fromEpochDay(dayIndex0).slice(0, 4));
  const last = Number(fromEpochDay(dayIndex0 + days - 1).slice(0, 4));
  const specialDates: { date: string; impact: 'both' }[] = [];
  for (let year = first - 1; year <= last; year++) {
    // Christmas period 12.24..01.02 crosses the year boundary; the feast days themselves drop further.
    for (let d = daysFromCivil(year, 12, 24); d <= daysFromCivil(year + 1, 1, 2); d++) at(d, 0.6);
    at(daysFromCivil(year, 12, 25), 0.55);
    at(daysFromCivil(year, 12, 26), 0.6);
    at(daysFromCivil(year + 1, 1, 1), 0.55);
    const mayDay = daysFromCivil(year, 5, 1);
    const easterMonday = easterSunday(year) + 1;
    at(mayDay, 0.4);
    at(easterMonday, 0.4);
    if (year >= first)
      specialDates.push(
        { date: fromEpochDay(mayDay), impact: 'both' },
        { date: fromEpochDay(easterMonday), impact: 'both' },
      );
    // Month ends (pay day) run high.
    for (let month = 1; month <= 12; month++) at(daysFromCivil(year, month, daysInMonth(year, month)), 1.5);
  }
  return {
    factor,
    config: {
      specialDates,
      recurringRules: [{ rule: 'month_end', impact: 'positive' }],
      specialPeriods: [{ start: '12.24', end: '01.02', impact: 'negative' }],
    },
  };
}
