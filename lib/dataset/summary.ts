/**
 * What status and monitoring show of a dataset, without scanning it: the loaded range, series and rows
 * come from the records of the last finished load and detection (their job detail), and the row counts
 * of the tables are the catalog's estimates (pg_class.reltuples, as of the last ANALYZE; the load and
 * the detection analyse the tables they write). Reading pg_class takes no lock on the view's tables, so
 * these answers never wait behind a load (which drops and renames tables under an exclusive lock).
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { BUILD_TABLE_PREFIX, DATA_TABLES } from './ddl';

export interface DatasetSummary {
  /** First and last day of the loaded series, yyyy-MM-dd. */
  firstDate: string | null;
  lastDate: string | null;
  series: number;
  anomalies: number;
  /** Source rows read by the last finished load (null before one). */
  rows?: number | null;
  /** Daily rows of the series after the last finished load (gap filling included). */
  dataRows?: number | null;
  /** When the last load and the last detection finished (ISO), the records these figures come from. */
  loadedAt?: string | null;
  analysedAt?: string | null;
  /** Where the figures come from: job records, catalog estimates, or nothing yet. */
  source?: 'jobs' | 'estimates' | 'none';
}

/** 20240131 → '2024-01-31'. */
export function dayToDate(day: number | null | undefined): string | null {
  if (day === null || day === undefined) return null;
  const s = String(day);
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
}

/** Table → estimated rows; null when the table was never analysed (the catalog does not know). */
export type RowEstimates = Record<string, number | null>;

/**
 * Every table of the given schemas with the catalog's row estimate (-1: never analysed), one read of
 * pg_class; a partitioned table (data after a load on PGlite) counts the sum of its partitions' estimates.
 */
export async function catalogTables(
  db: Database,
  schemas: string[],
): Promise<Map<string, Array<{ table: string; tuples: number }>>> {
  const out = new Map<string, Array<{ table: string; tuples: number }>>();
  if (schemas.length === 0) return out;
  const rows = await db.rows<{ schema: string; table: string; tuples: number | string }>(sql`
    SELECT n.nspname AS schema, c.relname AS table,
      CASE WHEN c.relkind = 'p' THEN (
        SELECT CASE WHEN count(*) = 0 OR bool_and(p.reltuples < 0) THEN c.reltuples ELSE sum(greatest(p.reltuples, 0)) END
        FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = c.oid)
      ELSE c.reltuples END AS tuples
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN (${sql.join(
      schemas.map((s) => sql`${s}`),
      sql`, `,
    )}) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition AND c.relname NOT LIKE ${`${BUILD_TABLE_PREFIX.replace(/_/g, '\\_')}%`}
    ORDER BY 1, 2`);
  for (const r of rows) {
    const list = out.get(r.schema) ?? [];
    list.push({ table: r.table, tuples: Number(r.tuples) });
    out.set(r.schema, list);
  }
  return out;
}

/** The data tables' estimates (DATA_TABLES order) out of catalogTables' list. */
export function estimatesOf(
  tables: Array<{ table: string; tuples: number }> | undefined,
): RowEstimates | undefined {
  if (!tables) return undefined;
  const out: RowEstimates = {};
  for (const t of DATA_TABLES) {
    const found = tables.find((x) => x.table === t);
    if (found) out[t] = found.tuples < 0 ? null : Math.round(found.tuples);
  }
  return out;
}

/** One catalog read for any number of dataset schemas: the data tables present and their estimated rows. */
export async function rowEstimates(db: Database, schemas: string[]): Promise<Map<string, RowEstimates>> {
  const out = new Map<string, RowEstimates>();
  for (const [schema, tables] of await catalogTables(db, schemas)) out.set(schema, estimatesOf(tables)!);
  return out;
}

/** The parts of a finished job that the summary reads. */
export interface FinishedJobRecord {
  finishedAt: Date | string | null;
  detail: Record<string, unknown>;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const iso = (d: Date | string | null | undefined): string | null =>
  d === null || d === undefined ? null : new Date(d).toISOString();

/**
 * The dataset summary from the last finished load (or custom load) and detection, falling back to the
 * catalog estimates where a record says nothing (e.g. before the first detection).
 */
export function summarizeDataset(
  load: FinishedJobRecord | undefined,
  process: FinishedJobRecord | undefined,
  estimates: RowEstimates | undefined,
): DatasetSummary {
  const l = load?.detail ?? {};
  const p = process?.detail ?? {};
  const newAnomalies = num(p.anomalies);
  const anomalies =
    newAnomalies !== null ? newAnomalies + (num(p.keptAnomalies) ?? 0) : (estimates?.all_anomalies ?? null);
  const series = num(l.series) ?? num(p.series) ?? estimates?.all_series ?? null;
  const fromJobs = load !== undefined || process !== undefined;
  return {
    firstDate: str(l.firstDate) ?? str(p.firstDate),
    lastDate: str(l.lastDate) ?? str(p.lastDate),
    series: series ?? 0,
    anomalies: anomalies ?? 0,
    rows: num(l.rows),
    dataRows: num(l.dataRows),
    loadedAt: iso(load?.finishedAt),
    analysedAt: iso(process?.finishedAt),
    source: fromJobs
      ? 'jobs'
      : estimates && Object.values(estimates).some((v) => v !== null)
        ? 'estimates'
        : 'none',
  };
}
