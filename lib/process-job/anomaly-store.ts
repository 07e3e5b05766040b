/**
 * Where a detection run writes: a staging table per run (`anomalies_run_<runId>`, unlogged) filled
 * shard by shard; anomaly-publish.ts turns it into the view's anomalies. A failed run only leaves a
 * staging table, dropped at once or by the next run.
 */
import { sql } from 'drizzle-orm';
import { ident } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { AnomalyColumns } from '../detection/anomaly-columns';
import type { AnalysedMeasure } from '../dataviews/definition/types';
import { intArrayLiteral } from '../dataset/ddl';

export const COLUMNS =
  'series_id, measure, type, detector_index, start_date, end_date, duration, actual_value, predicted_value, change, change_pct, change_cum, share_pct, recurrence, result';

/**
 * The measures detection analyses (ratio.ts): `value`, `count` (column cnt) and `ratio` (value ÷ count
 * per day, derived at detection time from the other two).
 */
export type Measure = AnalysedMeasure;
export const MEASURES: readonly Measure[] = ['value', 'count', 'ratio'];
/** Rows per INSERT statement (arrays travel as 15 text parameters). */
const CHUNK = 20_000;

/** The run's staging table (anomalies as detected) and its shadow of all_anomalies (while publishing). */
export function stageTable(schema: string, runId: number): string {
  return `${ident(schema)}.${ident(`anomalies_run_${Math.trunc(runId)}`)}`;
}

export function nextTable(schema: string, runId: number): string {
  return `${ident(schema)}.${ident(`anomalies_next_${Math.trunc(runId)}`)}`;
}

/** Creates (or empties) the run's staging table. */
export async function createStage(db: Database, schema: string, runId: number): Promise<void> {
  const t = stageTable(schema, runId);
  await db.rows(sql.raw(`DROP TABLE IF EXISTS ${t}`));
  await db.rows(
    sql.raw(`CREATE UNLOGGED TABLE ${t} (series_id integer NOT NULL, measure text NOT NULL DEFAULT 'value', type text NOT NULL, detector_index smallint NOT NULL,
      start_date date NOT NULL, end_date date NOT NULL, duration integer NOT NULL, actual_value double precision,
      predicted_value double precision, change double precision, change_pct double precision, change_cum double precision,
      share_pct double precision, recurrence integer NOT NULL, result text NOT NULL)`),
  );
}

/** Drops the run's staging and shadow tables. */
export async function dropStage(db: Database, schema: string, runId: number): Promise<void> {
  await db.rows(sql.raw(`DROP TABLE IF EXISTS ${stageTable(schema, runId)}, ${nextTable(schema, runId)}`));
}

/** Run ids of the staging and shadow tables present in the schema (left by crashed runs, or running now). */
export async function stageRunIds(db: Database, schema: string): Promise<number[]> {
  const rows = await db.rows<{ table_name: string }>(
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} AND table_name LIKE 'anomalies%'`,
  );
  const ids = rows
    .map((r) => /^anomalies_(?:run|next)_(\d+)$/.exec(r.table_name)?.[1])
    .filter((x) => x !== undefined);
  return [...new Set(ids.map(Number))];
}

const num = (x: number) => (Number.isFinite(x) ? String(x) : 'NULL');
const floats = (xs: ArrayLike<number>) => `{${Array.prototype.map.call(xs, num).join(',')}}`;
const texts = (xs: readonly string[]) => `{${xs.map((x) => `"${x.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** Appends anomalies (with their detector index) of one measure to the run's staging table. */
export async function appendStage(
  db: Database,
  schema: string,
  runId: number,
  anomalies: AnomalyColumns,
  measure: Measure = 'value',
): Promise<void> {
  const t = sql.raw(stageTable(schema, runId));
  const a = anomalies;
  for (let from = 0; from < a.length; from += CHUNK) {
    const to = Math.min(a.length, from + CHUNK);
    const n = to - from;
    const startDates: string[] = new Array(n);
    const endDates: string[] = new Array(n);
    const change = new Float64Array(n);
    const changePct = new Float64Array(n);
    const changeCum = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const i = from + k;
      const d = a.draft(i);
      startDates[k] = d.startDate;
      endDates[k] = d.endDate;
      change[k] = d.change;
      changePct[k] = d.changePct ?? Number.NaN;
      changeCum[k] = d.changeCum;
    }
    const results = a.positive.subarray(from, to);
    await db.rows(sql`INSERT INTO ${t} (${sql.raw(COLUMNS)})
      SELECT s, ${measure}::text, t, d, sd, ed, du, av, pv, c, cp, cc, sp, r, res FROM unnest(${intArrayLiteral(a.seriesIds.slice(from, to).map(Number))}::int[], ${texts(a.types.slice(from, to))}::text[],
        ${intArrayLiteral(a.detector.subarray(from, to))}::smallint[], ${texts(startDates)}::date[],
        ${texts(endDates)}::date[], ${intArrayLiteral(a.duration.subarray(from, to))}::int[],
        ${floats(a.actual.subarray(from, to))}::float8[], ${floats(a.predicted.subarray(from, to))}::float8[],
        ${floats(change)}::float8[], ${floats(changePct)}::float8[],
        ${floats(changeCum)}::float8[], ${floats(a.sharePct.subarray(from, to))}::float8[],
        ${intArrayLiteral(a.recurrence.subarray(from, to))}::int[], ${texts(Array.from(results, (r) => (r === 1 ? 'Positive' : 'Negative')))}::text[])
        AS u(s, t, d, sd, ed, du, av, pv, c, cp, cc, sp, r, res)`);
  }
}
