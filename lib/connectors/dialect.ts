/**
 * What SQL the service writes around a source query differs by database: how to take only the first
 * row (LIMIT 1, TOP 1, FETCH FIRST 1 ROWS ONLY), how to name a derived table (Oracle takes no `AS`
 * there), and how to write a day for a date column of each kind. The split load (lib/pipeline
 * load-split-plan.ts) writes its probe, its grouped passes and its parts' day predicates through the
 * dialect of its connector's type. Pure.
 */
import type { SqlDialect, DayKind } from './source-port';
import type { ConnectorType } from './types';

/** A source query as the body of a derived table: without trailing semicolons and whitespace. */
export function queryBody(text: string): string {
  return text.replace(/[\s;]+$/, '');
}

/** `(query) alias`, the query on lines of its own (a trailing line comment cannot swallow the parenthesis). */
function derived(text: string, alias: string): string {
  return `(\n${queryBody(text)}\n) ${alias}`;
}

function isoDate(day: number): string {
  const s = String(Math.trunc(day)).padStart(8, '0');
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
}

/** The day as a literal to compare a date column of `kind` with (`date`: the database's own date literal). */
function literal(dateLiteral: (day: number) => string) {
  return (day: number, kind: DayKind): string => {
    if (kind === 'integer') return String(Math.trunc(day));
    if (kind === 'text') return `'${isoDate(day)}'`;
    return dateLiteral(day);
  };
}

const ansiDate = (day: number) => `DATE '${isoDate(day)}'`;

/** PostgreSQL and Snowflake: LIMIT, CAST(… AS date), SUBSTR. */
const limitDialect: SqlDialect = {
  firstRow: (text) => `SELECT * FROM ${derived(text, 'q')} LIMIT 1`,
  derived,
  dayLiteral: literal(ansiDate),
  dayOf: (column, kind) =>
    kind === 'integer' ? column : kind === 'text' ? `SUBSTR(${column}, 1, 10)` : `CAST(${column} AS DATE)`,
};

/** SQL Server and Fabric: TOP, SUBSTRING, no ANSI date literal ('YYYYMMDD' reads the same in every DATEFORMAT). */
const topDialect: SqlDialect = {
  firstRow: (text) => `SELECT TOP 1 * FROM ${derived(text, 'q')}`,
  derived,
  dayLiteral: literal((day) => `CAST('${String(Math.trunc(day))}' AS date)`),
  dayOf: (column, kind) =>
    kind === 'integer' ? column : kind === 'text' ? `SUBSTRING(${column}, 1, 10)` : `CAST(${column} AS date)`,
};

/** Oracle (12c and later): FETCH FIRST, TRUNC for the day of a DATE or TIMESTAMP. */
const fetchFirstDialect: SqlDialect = {
  firstRow: (text) => `SELECT * FROM ${derived(text, 'q')} FETCH FIRST 1 ROWS ONLY`,
  derived,
  dayLiteral: literal(ansiDate),
  dayOf: (column, kind) =>
    kind === 'integer' ? column : kind === 'text' ? `SUBSTR(${column}, 1, 10)` : `TRUNC(${column})`,
};

export const DIALECTS: Record<ConnectorType, SqlDialect> = {
  pgsql: limitDialect,
  snowflake: limitDialect,
  mssql: topDialect,
  fabric: topDialect,
  oracle: fetchFirstDialect,
};

/**
 * The kind of a date column by a value a driver gave: `integer` (a number, or 8 digits as a driver gives
 * NUMERIC), `date` (a Date: a DATE or TIMESTAMP column), `text` (ISO text, 2024-03-01…); undefined otherwise.
 */
export function dayKindOf(v: unknown): DayKind | undefined {
  if (typeof v === 'number' || typeof v === 'bigint') return 'integer';
  if (v instanceof Date) return 'date';
  if (typeof v === 'string') {
    if (/^\s*\d{8}\s*$/.test(v)) return 'integer';
    if (/^\d{4}-\d{2}-\d{2}/.test(v)) return 'text';
  }
  return undefined;
}
