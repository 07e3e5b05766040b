/** Hand-built series for detector tests. Day 0 is Monday 2024-01-01 unless a test says otherwise. */
import { toEpochDay } from '../../../lib/calendar/days';
import type { SeriesInput } from '../../../lib/detection/types';

export const MONDAY = toEpochDay('2024-01-01');

/** n days of the same value. */
export function flat(n: number, value: number): Float64Array {
  return new Float64Array(n).fill(value);
}

/** n days repeating a Monday-first weekly profile. */
export function weekly(n: number, profile: number[]): Float64Array {
  const out = new Float64Array(n);
  for (let t = 0; t < n; t++) out[t] = profile[t % 7];
  return out;
}

/** A copy with the given days overwritten: set(values, { 40: 200 }). */
export function withDays(values: Float64Array, days: Record<number, number>): Float64Array {
  const out = values.slice();
  for (const [k, v] of Object.entries(days)) out[Number(k)] = v;
  return out;
}

export function series(values: Float64Array, extra: Partial<SeriesInput> = {}): SeriesInput {
  return { seriesId: 's1', dayIndex0: MONDAY, values, ...extra };
}

/** The epoch day → 'yyyy-MM-dd' of day index t of a series starting on MONDAY. */
export function dateOf(t: number, dayIndex0 = MONDAY): string {
  return new Date((dayIndex0 + t) * 86_400_000).toISOString().slice(0, 10);
}
