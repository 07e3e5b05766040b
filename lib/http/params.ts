/** Path and query parameter parsing with 400s that name the parameter. */
import { ValidationError } from '../shared/errors';
import { MAX_ID } from './input-guard';

/** A positive integer that fits the `serial` id columns (and every limit/offset): 1 … 2147483647. */
export function intParam(value: string | undefined, name: string): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw ValidationError.field(name, `must be a positive integer, got '${(value ?? '').slice(0, 100)}'`);
  }
  if (n > MAX_ID)
    throw ValidationError.field(name, `must be at most ${MAX_ID}, got '${value.slice(0, 100)}'`);
  return n;
}

export function optionalDate(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw ValidationError.field(name, `must be a date in the form yyyy-MM-dd, got '${value.slice(0, 100)}'`);
  }
  const d = new Date(`${value}T00:00:00Z`);
  if (d.toISOString().slice(0, 10) !== value)
    throw ValidationError.field(name, `is not a real date: '${value}'`);
  return value;
}

export function optionalInt(value: string | undefined, name: string): number | undefined {
  return value === undefined || value === '' ? undefined : intParam(value, name);
}

/** `true`/`false` (also 1/0); absent or empty is false. */
export function booleanParam(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '') return false;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw ValidationError.field(name, `must be true or false, got '${value.slice(0, 100)}'`);
}
