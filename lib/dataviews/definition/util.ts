/** Small helpers shared by the definition checks, which must tolerate any input shape. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted, so equal values give equal keys whatever the key order. */
export function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    isRecord(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in `month` (1-12); February has 29 unless a non-leap `year` is given. */
export function daysInMonth(month: number, year?: number): number {
  if (month === 2 && year !== undefined) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return DAYS_IN_MONTH[month - 1] ?? 0;
}

/** Parses `yyyy-MM-dd` into numbers when it names a real calendar day. */
export function parseIsoDate(text: unknown): { year: number; month: number; day: number } | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(month, year)) return undefined;
  return { year, month, day };
}

/** Parses `MM.dd` into numbers when it names a day that exists in some year (02.29 does). */
export function parseMonthDay(text: unknown): { month: number; day: number } | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^(\d{2})\.(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [month, day] = [Number(m[1]), Number(m[2])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(month)) return undefined;
  return { month, day };
}
