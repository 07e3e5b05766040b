/**
 * The tables of one deployed data view, in a PostgreSQL schema of its own (`dv_<id>`):
 *   int            rows as the source query returned them (categories as text, day as YYYYMMDD integer)
 *   cat_map        one row per series: its category combination (NULL = all), level and parent series
 *   data           one row per series and day, gaps filled
 *   all_series     per series: first and last day, totals, shares
 *   all_anomalies  detector output with significance
 *   baseline_peer, baseline_mix, baseline_cardinality   baselines of those detectors
 * Category columns are `c_<name>` so that no category can collide with the fixed columns.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';

export interface DatasetShape {
  categories: Array<{ name: string }>;
}

export const DATASET_TABLES = [
  'int',
  'cat_map',
  'data',
  'all_series',
  'all_anomalies',
  'baseline_peer',
  'baseline_mix',
  'baseline_cardinality',
] as const;
/** Tables emptied by Clean deployment (baselines are kept, they are rebuilt ad hoc). */
export const DATA_TABLES = ['int', 'data', 'cat_map', 'all_series', 'all_anomalies'] as const;

export function schemaNameFor(dataViewId: number): string {
  return `dv_${dataViewId}`;
}

/** Quotes an identifier that was generated or validated as [A-Za-z_][A-Za-z0-9_]*; refuses anything else. */
export function ident(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`unsafe identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

export function categoryColumn(name: string): string {
  return ident(`c_${name.toLowerCase()}`);
}

export async function datasetExists(db: Database, schema: string): Promise<boolean> {
  const rows = await db.rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = ${schema}`,
  );
  return (rows[0]?.n ?? 0) > 0;
}

/** Creates the schema and every table; call inside a transaction. */
export async function createDataset(db: Database, schema: string, shape: DatasetShape): Promise<void> {
  const s = ident(schema);
  const cats = shape.categories.map((c) => categoryColumn(c.name));
  const catText = cats.map((c) => `${c} text`).join(', ');
  const statements = [
    `CREATE SCHEMA ${s}`,
    `CREATE TABLE ${s}."int" (day integer NOT NULL, ${catText}, value double precision NOT NULL, cnt double precision NOT NULL DEFAULT 0)`,
    `CREATE INDEX int_day ON ${s}."int" (day)`,
    `CREATE TABLE ${s}.cat_map (series_id integer PRIMARY KEY, ${catText}, level smallint NOT NULL, parent_series_id integer, series_key text NOT NULL UNIQUE)`,
    `CREATE TABLE ${s}.data (series_id integer NOT NULL, day integer NOT NULL, value double precision NOT NULL, cnt double precision NOT NULL DEFAULT 0, filled boolean NOT NULL DEFAULT false, PRIMARY KEY (series_id, day))`,
    `CREATE TABLE ${s}.all_series (series_id integer PRIMARY KEY, first_day integer, last_day integer, days integer NOT NULL DEFAULT 0, total_value double precision NOT NULL DEFAULT 0, total_count double precision NOT NULL DEFAULT 0, share_parent double precision, share_total double precision)`,
    `CREATE TABLE ${s}.all_anomalies (id serial PRIMARY KEY, series_id integer NOT NULL, type text NOT NULL, detector_index smallint NOT NULL DEFAULT 0, start_date date NOT NULL, end_date date NOT NULL, duration integer NOT NULL, actual_value double precision, predicted_value double precision, change double precision, change_pct double precision, change_cum double precision, share_pct double precision, recurrence integer NOT NULL DEFAULT 0, result text NOT NULL CHECK (result IN ('Positive', 'Negative')), sin double precision, sim double precision, created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX all_anomalies_start ON ${s}.all_anomalies (start_date)`,
    `CREATE INDEX all_anomalies_series ON ${s}.all_anomalies (series_id)`,
    `CREATE TABLE ${s}.baseline_peer (series_id integer NOT NULL, weekday smallint NOT NULL, ratio double precision NOT NULL, PRIMARY KEY (series_id, weekday))`,
    `CREATE TABLE ${s}.baseline_mix (series_id integer NOT NULL, weekday smallint NOT NULL, share double precision NOT NULL, PRIMARY KEY (series_id, weekday))`,
    `CREATE TABLE ${s}.baseline_cardinality (series_id integer NOT NULL, weekday smallint NOT NULL, distinct_children double precision NOT NULL, PRIMARY KEY (series_id, weekday))`,
  ];
  for (const statement of statements) await db.rows(sql.raw(statement));
}

/** Drops the schema with every table and datum. */
export async function dropDataset(db: Database, schema: string): Promise<void> {
  await db.rows(sql.raw(`DROP SCHEMA IF EXISTS ${ident(schema)} CASCADE`));
}

/** Empties the data tables, keeping the tables. */
export async function cleanDataset(db: Database, schema: string): Promise<void> {
  const s = ident(schema);
  await db.rows(sql.raw(`TRUNCATE ${DATA_TABLES.map((t) => `${s}.${ident(t)}`).join(', ')} RESTART IDENTITY`));
}

/** The tables present in a dataset schema (for status and tests). */
export async function datasetTables(db: Database, schema: string): Promise<string[]> {
  const rows = await db.rows<{ table_name: string }>(
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}
