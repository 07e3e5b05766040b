/** What monitoring shows of a dataset: its series range, series count and anomaly count. */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { datasetTables, ident } from './ddl';

export interface DatasetSummary {
  /** First and last day of the loaded series, yyyy-MM-dd. */
  firstDate: string | null;
  lastDate: string | null;
  series: number;
  anomalies: number;
}

/** 20240131 → '2024-01-31'. */
export function dayToDate(day: number | null | undefined): string | null {
  if (day === null || day === undefined) return null;
  const s = String(day);
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
}

/** The summary of a deployed dataset; undefined when its tables are not there (not deployed, or dropped meanwhile). */
export async function datasetSummary(db: Database, schema: string): Promise<DatasetSummary | undefined> {
  const tables = await datasetTables(db, schema);
  if (!tables.includes('all_series') || !tables.includes('all_anomalies')) return undefined;
  const s = ident(schema);
  try {
    const [r] = await db.rows<{
      first: number | null;
      last: number | null;
      series: number;
      anomalies: number;
    }>(
      sql.raw(`SELECT (SELECT min(first_day) FROM ${s}.all_series) AS first,
        (SELECT max(last_day) FROM ${s}.all_series) AS last,
        (SELECT count(*)::int FROM ${s}.all_series) AS series,
        (SELECT count(*)::int FROM ${s}.all_anomalies) AS anomalies`),
    );
    return {
      firstDate: dayToDate(r.first),
      lastDate: dayToDate(r.last),
      series: Number(r.series),
      anomalies: Number(r.anomalies),
    };
  } catch {
    // The view was undeployed between the two statements: nothing to show.
    return undefined;
  }
}
