/**
 * The source query rules, checked row by row as a load streams: the date a DATE, TIMESTAMP, ISO text or
 * integer YYYYMMDD (read here as its day YYYYMMDD), the measures numeric, the categories text, and the
 * output columns named as the definition says.
 * The first bad row's problem is the load's error, with what to change in the query.
 */
import { ValidationError } from '../shared/errors';
import type { SourceColumns, SourceRow } from './source';

export interface RowShape {
  dateColumn: string;
  valueColumn: string;
  countColumn?: string;
  categories: string[];
}

/** Where each defined column sits in the result rows (its exact key there). */
export interface ColumnMap {
  date: string;
  value: string;
  count?: string;
  categories: string[];
}

export interface CheckedRow {
  day: number;
  categories: string[];
  value: number;
  cnt: number;
}

const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Finds each defined column among `keys` (exact name first, then any case); throws naming what is missing. */
export function resolveColumns(shape: RowShape, keys: string[], query = 'load query'): ColumnMap {
  const find = (name: string) =>
    keys.find((k) => k === name) ?? keys.find((k) => k.toLowerCase() === name.toLowerCase());
  const missing: string[] = [];
  const need = (name: string, what: string) => {
    const k = find(name);
    if (k === undefined) missing.push(`${name} (${what})`);
    return k ?? name;
  };
  const map: ColumnMap = {
    date: need(shape.dateColumn, 'source.dateColumn'),
    value: need(shape.valueColumn, 'source.valueColumn'),
    count: shape.countColumn ? need(shape.countColumn, 'source.countColumn') : undefined,
    categories: shape.categories.map((c) => need(c, 'category')),
  };
  if (missing.length) {
    throw new ValidationError(
      `The ${query} returns no column ${missing.join(', ')}; it returns ${keys.join(', ') || 'no columns'}. ` +
        'Output column names must match the date and value columns and the category names.',
      missing.map((m) => ({ path: 'source', message: `missing column ${m}` })),
    );
  }
  return map;
}

function shown(v: unknown): string {
  if (v instanceof Date) return `${v.toISOString()} (a date-time)`;
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}' (text)`;
  return `${String(v)} (${typeof v})`;
}

function bad(rowNumber: number, query: string, problem: string): ValidationError {
  return ValidationError.field('source', `row ${rowNumber} of the ${query}: ${problem}`);
}

/** What a date column's value must be (the problem of one that is not). */
export const DAY_FORMS =
  'a DATE or TIMESTAMP, ISO text (YYYY-MM-DD, a time after it ignored) or an integer YYYYMMDD';
const ISO_DAY = /^\s*(\d{4})-(\d{2})-(\d{2})(?=$|[T ]|\s+$)/;

/** YYYYMMDD of a real date, or undefined. */
function realDay(y: number, m: number, d: number): number | undefined {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  if (y < 1000 || y > 9999 || m < 1 || m > 12 || d < 1 || d > (m === 2 && !leap ? 28 : MONTH_DAYS[m - 1]))
    return undefined;
  return y * 10000 + m * 100 + d;
}

/**
 * The day of a date column's value as YYYYMMDD, else a reason: an integer YYYYMMDD (number, bigint or 8
 * digits), a Date (a DATE or TIMESTAMP as the driver gives it: its day in UTC, the service's time zone of
 * reading) or ISO text (the date as written; a time and offset after it are ignored).
 */
export function toDay(v: unknown): number | string {
  if (v instanceof Date) {
    const t = v.getTime();
    if (Number.isNaN(t)) return 'is not a real date';
    return (
      realDay(v.getUTCFullYear(), v.getUTCMonth() + 1, v.getUTCDate()) ??
      'is not a date from year 1000 to 9999'
    );
  }
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (typeof v === 'string' && /^\s*\d{8}\s*$/.test(v)) n = Number(v);
  else if (typeof v === 'string') {
    const m = ISO_DAY.exec(v);
    if (!m) return `must be a date: ${DAY_FORMS}`;
    return realDay(Number(m[1]), Number(m[2]), Number(m[3])) ?? 'is not a real date';
  } else return `must be a date: ${DAY_FORMS}`;
  if (!Number.isInteger(n)) return 'must be an integer YYYYMMDD';
  return (
    realDay(Math.floor(n / 10000), Math.floor(n / 100) % 100, n % 100) ??
    'is not a real date in the form YYYYMMDD'
  );
}

/** A finite number when `v` is numeric (number, bigint or a decimal string as drivers return NUMERIC). */
export function toMeasure(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && NUMERIC.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Checks one row against the rules; throws ValidationError saying what is wrong and how to fix it. */
export function checkRow(
  row: SourceRow,
  map: ColumnMap,
  shape: RowShape,
  rowNumber: number,
  query = 'load query',
): CheckedRow {
  const rawDay = row[map.date];
  const day = toDay(rawDay);
  if (typeof day === 'string') {
    const hint =
      typeof rawDay === 'string'
        ? `; convert it to a date in the SELECT, e.g. CAST(${shape.dateColumn} AS date) or to_date(${shape.dateColumn}, 'DD.MM.YYYY')`
        : '';
    throw bad(rowNumber, query, `the date column ${shape.dateColumn} ${day}, got ${shown(rawDay)}${hint}`);
  }
  const measure = (key: string, name: string, what: string) => {
    const v = row[key];
    if (v === null || v === undefined) {
      throw bad(
        rowNumber,
        query,
        `the ${what} column ${name} is NULL; return a number (e.g. COALESCE(${name}, 0))`,
      );
    }
    const n = toMeasure(v);
    if (n === undefined)
      throw bad(rowNumber, query, `the ${what} column ${name} must be numeric, got ${shown(v)}`);
    return n;
  };
  const value = measure(map.value, shape.valueColumn, 'value');
  const cnt = map.count ? measure(map.count, shape.countColumn!, 'count') : 0;
  const categories = map.categories.map((key, i) => {
    const v = row[key];
    const name = shape.categories[i];
    if (typeof v === 'string') return v;
    if (v === null || v === undefined) {
      throw bad(
        rowNumber,
        query,
        `the category column ${name} is NULL; return a text value (e.g. COALESCE(${name}, 'unknown'))`,
      );
    }
    throw bad(
      rowNumber,
      query,
      `the category column ${name} must be text, got ${shown(v)}; cast it in the SELECT (e.g. CAST(${name} AS varchar))`,
    );
  });
  return { day, categories, value, cnt };
}

/** What codeBatch needs of the dictionary (lib/pipeline/stage.ts Dictionary). */
export interface Coder {
  code(i: number, value: string): number;
}

/** Coded rows, column by column (lib/pipeline/stage.ts CodedBatch). */
export interface CodedColumns {
  days: number[];
  codes: number[][];
  values: number[];
  cnts: number[];
}

/**
 * Checks every row of `batch` (numbered from `first + 1`) and appends it, coded, to `out`; throws the
 * first bad row's problem exactly as checkRow does (codeColumns, over the row objects' columns).
 */
export function codeBatch(
  batch: SourceRow[],
  map: ColumnMap,
  shape: RowShape,
  dict: Coder,
  out: CodedColumns,
  first: number,
  query = 'load query',
): void {
  const keys = [map.date, map.value, ...(map.count === undefined ? [] : [map.count]), ...map.categories];
  const columns = keys.map((k) => batch.map((row) => row[k]));
  const cols = { names: keys, columns, length: batch.length };
  codeColumns(cols, map, shape, dict, out, first, query, (r) => batch[r]);
}

/** A column of `batch` by its exact name (the later one of two of that name, as in a row object). */
function columnOf(batch: SourceColumns, key: string): unknown[] {
  const i = batch.names.lastIndexOf(key);
  return i >= 0 ? batch.columns[i] : new Array(batch.length).fill(undefined);
}

/** Row `r` of a column batch as the object a cursor would give. */
function rowOf(batch: SourceColumns, r: number): SourceRow {
  const row: SourceRow = {};
  for (let i = 0; i < batch.names.length; i++) row[batch.names[i]] = batch.columns[i][r];
  return row;
}

/** A measure as the inline path takes it: a finite number, numeric text or a bigint; else undefined. */
function inlineMeasure(v: unknown): number | undefined {
  if (typeof v === 'number') return v - v === 0 ? v : undefined;
  return v === null || v === undefined ? undefined : toMeasure(v);
}

/**
 * codeBatch over a batch column by column (a load's read: no object per row). The common row (an integer
 * day, numbers or numeric text, text categories) is checked inline without allocating; any other row
 * goes through checkRow (with the row object `rowAt` gives), which either throws its problem or returns
 * the values it accepts (a bigint day, say). A DATE, TIMESTAMP or ISO text day is read inline as its day.
 */
export function codeColumns(
  batch: SourceColumns,
  map: ColumnMap,
  shape: RowShape,
  dict: Coder,
  out: CodedColumns,
  first: number,
  query = 'load query',
  rowAt: (r: number) => SourceRow = (r) => rowOf(batch, r),
): void {
  const dayCol = columnOf(batch, map.date);
  const valueCol = columnOf(batch, map.value);
  const countCol = map.count === undefined ? undefined : columnOf(batch, map.count);
  const catCols = map.categories.map((k) => columnOf(batch, k));
  const nc = catCols.length;
  const { days, codes, values, cnts } = out;
  // Source rows often repeat the day and category values of the row before: skip the lookups then.
  let lastDay = -1;
  const lastValue: Array<unknown> = new Array(nc).fill(undefined);
  const lastCode: number[] = new Array(nc).fill(0);
  const rowCodes: number[] = new Array(nc).fill(0);
  for (let r = 0; r < batch.length; r++) {
    const d = dayCol[r];
    let day = -1;
    if (typeof d === 'number') {
      if (d === lastDay || typeof toDay(d) === 'number') day = d;
    } else if (d !== null && d !== undefined) {
      // A DATE, TIMESTAMP or ISO text day.
      const t = toDay(d);
      if (typeof t === 'number') day = t;
    }
    let ok = day >= 0;
    const value = ok ? inlineMeasure(valueCol[r]) : undefined;
    const cnt = countCol === undefined ? 0 : ok ? inlineMeasure(countCol[r]) : undefined;
    ok = ok && value !== undefined && cnt !== undefined;
    for (let i = 0; ok && i < nc; i++) {
      const s = catCols[i][r];
      if (typeof s !== 'string') ok = false;
      else if (s !== lastValue[i]) {
        lastValue[i] = s;
        lastCode[i] = dict.code(i, s);
      }
      rowCodes[i] = lastCode[i];
    }
    if (!ok) {
      // Throws the row's problem, or gives the values checkRow accepts beyond the inline path.
      const checked = checkRow(rowAt(r), map, shape, first + r + 1, query);
      days.push(checked.day);
      for (let i = 0; i < nc; i++) codes[i].push(dict.code(i, checked.categories[i]));
      values.push(checked.value);
      cnts.push(checked.cnt);
      continue;
    }
    lastDay = day;
    days.push(day);
    for (let i = 0; i < nc; i++) codes[i].push(rowCodes[i]);
    values.push(value as number);
    cnts.push(cnt as number);
  }
}

/**
 * Adds a batch's days to the load's tally (rows per day) and returns the smallest day seen so far;
 * runs of one day (sources sorted by day) cost one lookup.
 */
export function tallyDays(
  days: number[],
  dayRows: Map<number, number>,
  minDay: number | null,
): number | null {
  let min = minDay;
  for (let i = 0; i < days.length; ) {
    const d = days[i];
    let j = i + 1;
    while (j < days.length && days[j] === d) j++;
    dayRows.set(d, (dayRows.get(d) ?? 0) + (j - i));
    if (min === null || d < min) min = d;
    i = j;
  }
  return min;
}
