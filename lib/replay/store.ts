/**
 * The replays table (one row per replay job: the definition replayed and, once done, the difference) and
 * the reads of a view's dataset a replay compares with. A replay writes nothing else.
 */
import { sql } from 'drizzle-orm';
import { categoryColumn } from '../dataset/ddl';
import { anomaliesTable, recordsHaveColumn } from '../process-job';
import { catalogTable } from '../dataset/catalog';
import type { Database } from '../db/database';
import type { DataViewDefinition } from '../dataviews/definition/index';
import type { ReplayRecord, ReplayResult } from './types';

export async function insertReplay(
  db: Database,
  jobId: number,
  dataViewId: number,
  definition: DataViewDefinition,
): Promise<void> {
  await db.rows(sql`INSERT INTO replays (job_id, data_view_id, definition)
    VALUES (${jobId}, ${dataViewId}, ${JSON.stringify(definition)}::jsonb)`);
}

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

export async function readReplayRow(
  db: Database,
  jobId: number,
): Promise<{ dataViewId: number; definition: DataViewDefinition; result: ReplayResult | null } | undefined> {
  const [row] = await db.rows<{ data_view_id: number; definition: unknown; result: unknown }>(
    sql`SELECT data_view_id, definition, result FROM replays WHERE job_id = ${jobId}`,
  );
  if (!row) return undefined;
  return {
    dataViewId: Number(row.data_view_id),
    definition: json<DataViewDefinition>(row.definition),
    result: row.result === null ? null : json<ReplayResult>(row.result),
  };
}

export async function writeReplayResult(db: Database, jobId: number, result: ReplayResult): Promise<void> {
  await db.rows(sql`UPDATE replays SET result = ${JSON.stringify(result)}::jsonb WHERE job_id = ${jobId}`);
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Every record the view holds now, as a replay compares them (with its incident, when records carry one). */
export async function readStoredRecords(db: Database, schema: string): Promise<ReplayRecord[]> {
  const [cols] = await db.rows<{ measure: boolean; incident: boolean }>(sql`SELECT
      ${recordsHaveColumn(schema, 'measure')} AS measure,
      ${recordsHaveColumn(schema, 'incident_id')} AS incident`);
  const rows = await db.rows<Record<string, unknown>>(
    sql.raw(`SELECT series_id, ${cols.measure ? 'measure' : "'value' AS measure"}, type, detector_index,
      start_date::text AS start_date, end_date::text AS end_date, duration, actual_value, predicted_value,
      change_pct, change_cum, result, ${cols.incident ? 'incident_id' : 'NULL::int AS incident_id'}
      FROM ${anomaliesTable(schema)}`),
  );
  return rows.map((r) => ({
    seriesId: Number(r.series_id),
    measure: r.measure === 'count' || r.measure === 'ratio' ? r.measure : 'value',
    type: String(r.type),
    detectorIndex: Number(r.detector_index),
    startDate: String(r.start_date),
    endDate: String(r.end_date),
    duration: Number(r.duration),
    actualValue: num(r.actual_value),
    predictedValue: num(r.predicted_value),
    changePct: num(r.change_pct),
    changeCum: num(r.change_cum),
    result: r.result === 'Positive' ? 'Positive' : 'Negative',
    incidentId: num(r.incident_id),
  }));
}

/** The category values (null = all) of the given series. */
export async function readSeriesCategories(
  db: Database,
  schema: string,
  categories: readonly string[],
  seriesIds: readonly number[],
): Promise<Map<number, Record<string, string | null>>> {
  const out = new Map<number, Record<string, string | null>>();
  if (seriesIds.length === 0) return out;
  const cols = categories.map((n, i) => `${categoryColumn(n)} AS c${i}`);
  const rows = await db.rows<Record<string, unknown>>(
    sql`SELECT series_id${sql.raw(cols.length ? `, ${cols.join(', ')}` : '')} FROM ${sql.raw(catalogTable(schema))}
      WHERE series_id = ANY(${`{${[...new Set(seriesIds)].map((id) => Math.trunc(id)).join(',')}}`}::int[])`,
  );
  for (const r of rows) {
    const values: Record<string, string | null> = {};
    categories.forEach((name, i) => {
      values[name] = (r[`c${i}`] as string | null) ?? null;
    });
    out.set(Number(r.series_id), values);
  }
  return out;
}
