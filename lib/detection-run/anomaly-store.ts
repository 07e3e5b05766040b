/**
 * Where a detection run writes: a staging table per run (`anomalies_run_<runId>`, unlogged) filled
 * shard by shard; anomaly-publish.ts turns it into the view's anomalies. A failed run only leaves a
 * staging table, dropped at once or by the next run.
 */
import { sql } from 'drizzle-orm';
import { ident } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { AnomalyDraft } from '../detection/types';
import { intArrayLiteral } from './series-reader';

export const COLUMNS =
  'series_id, type, detector_index, start_date, end_date, duration, actual_value, predicted_value, change, change_pct, change_cum, share_pct, recurrence, result';
/** Rows per INSERT statement (arrays travel as 14 text parameters). */
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
    sql.raw(`CREATE UNLOGGED TABLE ${t} (series_id integer NOT NULL, type text NOT NULL, detector_index smallint NOT NULL,
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

const num = (x: number | null) => (x === null || !Number.isFinite(x) ? 'NULL' : String(x));
const floats = (xs: Array<number | null>) => `{${xs.map(num).join(',')}}`;
const texts = (xs: string[]) => `{${xs.map((x) => `"${x.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** Appends anomalies (with their detector index) to the run's staging table. */
export async function appendStage(
  db: Database,
  schema: string,
  runId: number,
  anomalies: readonly AnomalyDraft[],
  detectorIndex: readonly number[],
): Promise<void> {
  const t = sql.raw(stageTable(schema, runId));
  for (let from = 0; from < anomalies.length; from += CHUNK) {
    const part = anomalies.slice(from, from + CHUNK);
    const col = <T>(f: (a: AnomalyDraft) => T) => part.map(f);
    await db.rows(sql`INSERT INTO ${t} (${sql.raw(COLUMNS)})
      SELECT * FROM unnest(${intArrayLiteral(col((a) => Number(a.seriesId)))}::int[], ${texts(col((a) => a.type))}::text[],
        ${intArrayLiteral(detectorIndex.slice(from, from + CHUNK))}::smallint[], ${texts(col((a) => a.startDate))}::date[],
        ${texts(col((a) => a.endDate))}::date[], ${intArrayLiteral(col((a) => a.duration))}::int[],
        ${floats(col((a) => a.actualValue))}::float8[], ${floats(col((a) => a.predictedValue))}::float8[],
        ${floats(col((a) => a.change))}::float8[], ${floats(col((a) => a.changePct))}::float8[],
        ${floats(col((a) => a.changeCum))}::float8[], ${floats(col((a) => a.sharePct))}::float8[],
        ${intArrayLiteral(col((a) => a.recurrence))}::int[], ${texts(col((a) => a.result))}::text[])`);
  }
}
