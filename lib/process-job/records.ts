/**
 * The published anomaly records of a view (`dv_<id>.all_anomalies`, with their `incident_id`): the process
 * job owns the table (docs/architecture.md, Per-view tables), so every statement another module runs on it
 * is here, and a query of another module that joins the records takes the table from `anomaliesTable`.
 * The statements are the ones their callers ran before; the callers keep what they do with the rows.
 */
import { type SQL, sql } from 'drizzle-orm';
import { ident } from '../dataset/ddl';
import type { Database } from '../db/database';

/** The view's records table, schema-qualified and quoted, for a query that joins or reads the records. */
export function anomaliesTable(schema: string): string {
  return `${ident(schema)}.all_anomalies`;
}

/** Adds the records' `incident_id` column (views deployed before incidents existed). */
export async function addIncidentIdColumn(db: Database, schema: string): Promise<void> {
  await db.rows(
    sql.raw(`ALTER TABLE ${anomaliesTable(schema)} ADD COLUMN IF NOT EXISTS incident_id integer`),
  );
}

/** SQL that is true when the records carry `incident_id` (read from the catalog, not information_schema). */
export function incidentIdColumnExists(schema: string): SQL {
  return sql`EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
      WHERE attrelid = to_regclass(${anomaliesTable(schema)}) AND attname = 'incident_id' AND NOT attisdropped)`;
}

/** Every record as the incidents' grouping reads it, by id. */
export async function readGroupingRecords(db: Database, schema: string): Promise<Record<string, unknown>[]> {
  return db.rows<Record<string, unknown>>(
    sql.raw(`SELECT id, series_id, measure, type, result, to_char(start_date, 'YYYY-MM-DD') AS s, to_char(end_date, 'YYYY-MM-DD') AS e,
      actual_value, predicted_value, change_cum, share_pct, sin FROM ${anomaliesTable(schema)} ORDER BY id`),
  );
}

/** Clears the incident id of the records that are no longer members of any incident (`members`: an int[] literal). */
export async function clearStaleIncidentIds(tx: Database, schema: string, members: string): Promise<void> {
  await tx.rows(sql`UPDATE ${sql.raw(anomaliesTable(schema))} SET incident_id = NULL
    WHERE incident_id IS NOT NULL AND NOT (id = ANY(${members}::int[]))`);
}

/** Sets each record's incident id (pairs of record id and incident id); only those that change are written. */
export async function writeIncidentIds(
  tx: Database,
  schema: string,
  part: ReadonlyArray<readonly [number, number]>,
): Promise<void> {
  await tx.rows(sql`UPDATE ${sql.raw(anomaliesTable(schema))} a SET incident_id = x.incident
      FROM unnest(${`{${part.map((p) => p[0]).join(',')}}`}::int[], ${`{${part.map((p) => p[1]).join(',')}}`}::int[]) AS x(id, incident)
      WHERE a.id = x.id AND a.incident_id IS DISTINCT FROM x.incident`);
}

export interface MemberKeyRow {
  series_id: number;
  measure: 'value' | 'count' | 'ratio';
  type: string;
  s: string;
  e: string;
}

/** The keys of the records of one incident, by record id. */
export async function readIncidentMemberKeys(
  db: Database,
  schema: string,
  incidentId: number,
): Promise<MemberKeyRow[]> {
  return db.rows<MemberKeyRow>(sql`
    SELECT series_id, coalesce(measure, 'value') AS measure, type, start_date::text AS s, end_date::text AS e
    FROM ${sql.raw(anomaliesTable(schema))} WHERE incident_id = ${incidentId} ORDER BY id`);
}

/** The key of one record as feedback names it. */
export interface RecordKey {
  seriesId: number;
  measure: string;
  type: string;
  startDate: string;
}

/** The end date of the current record of a key, or undefined when the view has none now. */
export async function recordEndDate(
  db: Database,
  schema: string,
  k: RecordKey,
): Promise<{ endDate: string } | undefined> {
  const [row] = await db.rows<{ end_date: string }>(sql`
    SELECT end_date::text AS end_date FROM ${sql.raw(anomaliesTable(schema))}
    WHERE series_id = ${k.seriesId} AND coalesce(measure, 'value') = ${k.measure} AND type = ${k.type}
      AND start_date = ${k.startDate}::date
    LIMIT 1`);
  return row ? { endDate: row.end_date } : undefined;
}

/** Every column of the records of one series (to_jsonb: also columns added later, dates as text), newest first. */
export async function readSeriesRecordsJson(
  db: Database,
  schema: string,
  seriesId: number,
): Promise<Array<{ j: unknown }>> {
  return db.rows<{ j: unknown }>(sql`
    SELECT to_jsonb(a) AS j FROM ${sql.raw(anomaliesTable(schema))} a
    WHERE a.series_id = ${seriesId} ORDER BY a.start_date DESC, a.id`);
}

/** Record counts of some series (one statement over the series index). */
export async function countRecordsBySeries(
  db: Database,
  schema: string,
  ids: readonly number[],
): Promise<Array<{ series_id: number; n: number }>> {
  return db.rows<{ series_id: number; n: number }>(sql`
    SELECT series_id, count(*)::int AS n FROM ${sql.raw(anomaliesTable(schema))}
    WHERE series_id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}) GROUP BY series_id`);
}

/** SQL that is true when the view's records have `column` (information_schema; `schema` unquoted). */
export function recordsHaveColumn(schema: string, column: string): SQL {
  return sql`EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = 'all_anomalies'
          AND column_name = ${column})`;
}
