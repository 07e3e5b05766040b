/**
 * Dates as UTC epoch days: day 0 is 1970-01-01, one integer per day, no time zone and no Date
 * objects in hot loops. Conversions use Howard Hinnant's civil-calendar algorithms.
 */

const MS_PER_DAY = 86_400_000;

/** Epoch day of a proleptic Gregorian date (month 1..12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Year, month (1..12) and day of an epoch day, written into `out` to avoid allocation. */
export function civilFromDays(epochDay: number, out: Int32Array | number[] = [0, 0, 0]): typeof out {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  out[0] = yoe + era * 400 + (m <= 2 ? 1 : 0);
  out[1] = m;
  out[2] = d;
  return out;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days of a month (1..12) in a year. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1];
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Epoch day of a 'yyyy-MM-dd' string; throws RangeError on a malformed or impossible date. */
export function toEpochDay(iso: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) throw new RangeError(`Invalid date '${iso}', expected yyyy-MM-dd`);
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`Invalid date '${iso}'`);
  }
  return daysFromCivil(year, month, day);
}

/** 'yyyy-MM-dd' of an epoch day. */
export function fromEpochDay(epochDay: number): string {
  const [y, m, d] = civilFromDays(epochDay);
  return `${y}-${pad2(m)}-${pad2(d)}`;
}

/** Epoch day of a source date integer in YYYYMMDD form (20240131). */
export function yyyymmddToEpochDay(value: number): number {
  const year = Math.floor(value / 10_000);
  const month = Math.floor(value / 100) % 100;
  const day = value % 100;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`Invalid YYYYMMDD date ${value}`);
  }
  return daysFromCivil(year, month, day);
}

/** YYYYMMDD integer of an epoch day. */
export function epochDayToYyyymmdd(epochDay: number): number {
  const [y, m, d] = civilFromDays(epochDay);
  return y * 10_000 + m * 100 + d;
}

/** Weekday of an epoch day with Monday = 0 … Sunday = 6 (weeks start on Monday, DESIGN.md). */
export function weekday(epochDay: number): number {
  // 1970-01-01 was a Thursday (3).
  return (((epochDay + 3) % 7) + 7) % 7;
}

/** Epoch day of a JavaScript Date's UTC calendar day. */
export function epochDayOfDate(date: Date): number {
  return Math.floor(date.getTime() / MS_PER_DAY);
}
