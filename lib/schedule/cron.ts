/**
 * Cron schedules of data view loads: strict validation of the spec's forms, next runs, and the
 * "is due" test of the every-minute scheduler. Six fields are seconds-first; five fields start at
 * the minute (second 0). When both day-of-month and day-of-week are set, either one matching fires.
 */
import { CronExpressionParser } from 'cron-parser';
import { ValidationError } from '../shared/errors';

interface FieldSpec {
  name: string;
  min: number;
  max: number;
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 6 },
];

const FORMS = 'use *, a number, */n, a list a,b,c, a range a-b or a-b/n';
const MAX_RUNS = 1000;
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

class CronFieldError extends Error {}

function rangeText(spec: FieldSpec): string {
  return `${spec.min}-${spec.max}${spec.name === 'day-of-week' ? ' (0 is Sunday)' : ''}`;
}

function number(text: string, spec: FieldSpec): number {
  if (!/^\d+$/.test(text)) throw new CronFieldError(describeBadToken(text));
  const n = Number(text);
  if (n < spec.min || n > spec.max) throw new CronFieldError(`${n} is out of range ${rangeText(spec)}`);
  return n;
}

function step(text: string, spec: FieldSpec): number {
  const size = spec.max - spec.min + 1;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > size) {
    throw new CronFieldError(`step '${text}' must be a number from 1 to ${size}`);
  }
  return Number(text);
}

/** Says why a token is not one of the accepted forms, naming the common foreign syntaxes. */
function describeBadToken(token: string): string {
  if (token === '') return 'is empty';
  if (/^[A-Za-z]{3}$/.test(token)) return `names such as '${token}' are not supported; use numbers`;
  if (token.includes('?')) return `'?' is not supported; use *`;
  if (/[LW#H]/.test(token)) return `'${token}' is not supported (no L, W, # or H); ${FORMS}`;
  return `'${token}' is not valid; ${FORMS}`;
}

/** Expands one field into its sorted values, throwing CronFieldError with the reason. */
function expandField(text: string, spec: FieldSpec): number[] {
  if (text === '*') return range(spec.min, spec.max, 1);
  const values = new Set<number>();
  for (const item of text.split(',')) {
    if (item === '') throw new CronFieldError(`has an empty list item in '${text}'`);
    if (item === '*' || item.startsWith('*/')) {
      if (text.includes(',')) throw new CronFieldError(`'${item}' cannot be part of a list`);
      const by = item === '*' ? 1 : step(item.slice(2), spec);
      for (const v of range(spec.min, spec.max, by)) values.add(v);
      continue;
    }
    const m = /^([^-/]+)-([^-/]+)(?:\/(.+))?$/.exec(item);
    if (m) {
      const [lo, hi] = [number(m[1], spec), number(m[2], spec)];
      if (lo > hi) throw new CronFieldError(`range ${item} must go from low to high`);
      for (const v of range(lo, hi, m[3] === undefined ? 1 : step(m[3], spec))) values.add(v);
      continue;
    }
    if (item.includes('/'))
      throw new CronFieldError(`'${item}' is not valid; a step needs * or a range (*/n, a-b/n)`);
    values.add(number(item, spec));
  }
  return [...values].sort((a, b) => a - b);
}

function range(from: number, to: number, by: number): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v += by) out.push(v);
  return out;
}

function fieldsOf(expr: unknown): string[] {
  if (typeof expr !== 'string' || expr.trim() === '')
    throw new CronFieldError('must be a non-empty cron expression');
  const fields = expr.trim().split(/\s+/);
  if (fields.length === 1 && fields[0].startsWith('@')) {
    throw new CronFieldError(
      `predefined expressions such as ${fields[0]} are not supported; write the fields`,
    );
  }
  if (fields.length !== 5 && fields.length !== 6) {
    throw new CronFieldError(`must have 5 or 6 fields separated by spaces, found ${fields.length}`);
  }
  return fields.length === 5 ? ['0', ...fields] : fields;
}

/** The expression in six fields (seconds first), or throws with the field at fault. */
function checked(expr: unknown): string {
  const fields = fieldsOf(expr);
  const values = fields.map((text, i) => {
    try {
      return expandField(text, FIELDS[i]);
    } catch (e) {
      if (e instanceof CronFieldError) throw new CronFieldError(`${FIELDS[i].name} field: ${e.message}`);
      throw e;
    }
  });
  // Only the day-of-month decides the day when day-of-week is '*': it must exist in a chosen month.
  if (fields[5] === '*' && fields[3] !== '*') {
    const [days, months] = [values[3], values[4]];
    if (!months.some((m) => days[0] <= MONTH_DAYS[m - 1])) {
      throw new CronFieldError(`day-of-month field: day ${days[0]} never occurs in the selected months`);
    }
  }
  const normalised = fields.join(' ');
  try {
    CronExpressionParser.parse(normalised, { tz: 'UTC' });
  } catch (e) {
    throw new CronFieldError(`is not accepted by the scheduler: ${(e as Error).message}`);
  }
  return normalised;
}

/** Why `expr` is not a valid schedule (naming the field at fault), or null when it is valid. */
export function validateCron(expr: unknown): string | null {
  try {
    checked(expr);
    return null;
  } catch (e) {
    if (e instanceof CronFieldError) return e.message;
    throw e;
  }
}

/** The six-field (seconds-first) form of a valid expression; throws ValidationError otherwise. */
export function normaliseCron(expr: string): string {
  try {
    return checked(expr);
  } catch (e) {
    if (e instanceof CronFieldError) throw ValidationError.field('cron', e.message);
    throw e;
  }
}

function assertTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new RangeError(`Unknown time zone '${timeZone}'`);
  }
}

/** The next `count` run times strictly after `from`, evaluated in `timeZone` (the Validate preview). */
export function nextRuns(expr: string, count: number, from: Date, timeZone = 'UTC'): Date[] {
  const normalised = normaliseCron(expr);
  assertTimeZone(timeZone);
  const n = Math.max(0, Math.min(MAX_RUNS, Math.floor(count)));
  if (n === 0) return [];
  const it = CronExpressionParser.parse(normalised, { currentDate: from, tz: timeZone });
  return it.take(n).map((d) => d.toDate());
}

/** True when a scheduled time t exists with lastTick < t <= now; several missed times still give one run. */
export function isDue(expr: string, lastTick: Date, now: Date, timeZone = 'UTC'): boolean {
  if (now.getTime() <= lastTick.getTime()) return false;
  const [next] = nextRuns(expr, 1, lastTick, timeZone);
  return next !== undefined && next.getTime() <= now.getTime();
}
