/**
 * What a load query's result looks like, for drafting a data view from it: each column's kind (a day
 * as YYYYMMDD, a date, a number, text) read with the load's own rules (./rows.ts), and the columns a view
 * would most likely use as date, value, count and categories. Pure: the rows come from a sample.
 */
import { toDay, toMeasure } from './rows';

/**
 * `day`: an integer YYYYMMDD on every row (a number too); `date`: a DATE, TIMESTAMP or ISO text date on
 * every row (the load reads its day); `number`, `text`, `empty`.
 */
export type ColumnKind = 'day' | 'date' | 'number' | 'text' | 'empty';

export interface ColumnProfile {
  name: string;
  kind: ColumnKind;
  /** Distinct non-null values in the sample (counted up to DISTINCT_CAP). */
  distinct: number;
  nulls: number;
  /** Every number is whole (a count can only be whole). */
  integer: boolean;
  /** Why a column that holds dates cannot be the date column, and how to convert it in the query. */
  note?: string;
}

export interface ShapeSuggestion {
  dateColumn?: string;
  valueColumn?: string;
  countColumn?: string;
  /** Text columns with more than one value and fewer values than rows would need for an id. */
  categories: string[];
}

const DISTINCT_CAP = 100_000;

/** The kind of each column of `rows` (in `columns` order): what every non-null value of it reads as. */
export function profileColumns(columns: string[], rows: Record<string, unknown>[]): ColumnProfile[] {
  return columns.map((name) => {
    let day = true;
    let number = true;
    let integer = true;
    let nulls = 0;
    let notDay: unknown;
    const values = new Set<string>();
    for (const row of rows) {
      const v = row[name];
      if (v === null || v === undefined) {
        nulls++;
        continue;
      }
      if (day && typeof toDay(v) !== 'number') {
        day = false;
        notDay = v;
      }
      const n = toMeasure(v);
      if (n === undefined) number = false;
      else if (!Number.isInteger(n)) integer = false;
      if (values.size < DISTINCT_CAP) values.add(String(v));
    }
    const kind: ColumnKind =
      values.size === 0 ? 'empty' : day ? (number ? 'day' : 'date') : number ? 'number' : 'text';
    const profile: ColumnProfile = { name, kind, distinct: values.size, nulls, integer: number && integer };
    const note = kind === 'text' ? dateNote(name, notDay) : undefined;
    return note ? { ...profile, note } : profile;
  });
}

/** A date in another form than the load reads (31.01.2024, 01/31/2024, 2024-02-30). */
const DATE_LIKE = /^\s*(\d{1,4})[./-](\d{1,2})[./-](\d{1,4})/;

/** How to make a text column of dates in another form the date column, when its values look so. */
export function dateNote(name: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || !DATE_LIKE.test(value)) return undefined;
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return (
    `'${shown}' is not a date the load reads (a DATE, a TIMESTAMP, ISO text YYYY-MM-DD or an integer ` +
    `YYYYMMDD): convert it in the query, e.g. to_date(${name}, 'DD.MM.YYYY') or CAST(${name} AS date)`
  );
}

const DATE_NAME = /(^|_)(day|date|dt|d)($|_)/i;
const COUNT_NAME = /(count|cnt|^n$|^num|_num|orders|transactions|visits|qty|quantity|events|clicks)/i;
const VALUE_NAME = /(amount|revenue|value|sales|total|sum|price|cost|volume)/i;

/** The columns a view would most likely use: names that say so first, else the first of the right kind. */
export function suggestShape(profiles: ColumnProfile[], rowCount: number): ShapeSuggestion {
  const days = profiles.filter((p) => p.kind === 'day' || p.kind === 'date');
  const dateColumn = (days.find((p) => DATE_NAME.test(p.name)) ?? days[0])?.name;
  const numbers = profiles.filter((p) => p.kind === 'number' || (p.kind === 'day' && p.name !== dateColumn));
  const named = (re: RegExp, from: ColumnProfile[]) => from.find((p) => re.test(p.name));
  let count = named(
    COUNT_NAME,
    numbers.filter((p) => p.integer),
  );
  let value =
    named(
      VALUE_NAME,
      numbers.filter((p) => p !== count),
    ) ?? numbers.find((p) => p !== count);
  if (!value && count) [value, count] = [count, undefined];
  // An id-like column (a value on almost every row of a large sample) would make one series per row.
  const idLike = (p: ColumnProfile) => rowCount >= 50 && p.distinct > rowCount * 0.5;
  const categories = profiles
    .filter((p) => p.kind === 'text' && p.distinct > 1 && !idLike(p))
    .map((p) => p.name);
  return { dateColumn, valueColumn: value?.name, countColumn: count?.name, categories };
}

/** A label for a column name: `sales_channel` → `Sales channel`. */
export function labelOf(name: string): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\s]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
