/** Reads anomaly records of one deployed data view (all_anomalies joined with cat_map), pre-filtered in SQL. */
import { toEpochDay } from '../calendar/days';
import { fiscalLabel } from '../calendar/fiscal';
import { type SQL, sql } from 'drizzle-orm';
import { categoryColumn } from '../dataset/ddl';
import type { Database } from '../db/database';
import { catalogTable } from '../dataset/catalog';
import { notDismissedCondition } from '../feedback/records';
import { anomaliesTable, recordsHaveColumn } from '../process-job';
import { addDays } from '../filters/time-range';
import type {
  AnomalyMeasure,
  AnomalyRecord,
  AnomalyResult,
  News,
  SelectionSettings,
  SortBy,
} from '../filters/types';
import type { ViewTarget } from '../filters/data-views';
import { newsOf, welcomeMoves } from '../filters/news';
import { categoryColumns, orderBy, whereClause } from './sql-parts';
import { setOwn } from '../shared/own';

/** How much to read: every selected anomaly, or only the Top N (per type when split) in rank order. */
export type ReadMode =
  /** Every selected anomaly, but no more than `cap` + 1 rows (one more tells the caller the cap was passed). */
  | { kind: 'all'; cap: number }
  | {
      kind: 'top';
      sortBy: SortBy;
      limit: number;
      splitByType: boolean;
    };

interface Row {
  id: number;
  series_id: number;
  measure: AnomalyMeasure | null;
  type: string;
  start_date: string;
  end_date: string;
  duration: number;
  actual_value: number | null;
  predicted_value: number | null;
  change: number | null;
  change_pct: number | null;
  change_cum: number | null;
  share_pct: number | null;
  recurrence: number | null;
  result: AnomalyResult;
  sin: number | null;
  sim: number | null;
  incident_id: number | null;
  [category: `c${number}`]: string | null;
}

// Text, made SQL where it is used: a bundle may evaluate this module before drizzle-orm's sql is
// initialised (esbuild wraps drizzle lazily, as lib/db/connect.ts imports its drivers dynamically),
// so no drizzle call runs when the module loads.
const columns = (incidents: boolean) =>
  'a.id, a.series_id, a.measure, a.type, a.start_date, a.end_date, a.duration, a.actual_value, a.predicted_value, a.change, ' +
  `a.change_pct, a.change_cum, a.share_pct, a.recurrence, a.result, a.sin, a.sim, ${incidents ? 'a.incident_id' : 'NULL::int AS incident_id'}`;

function num(v: unknown): number | null {
  // Drivers hand back numbers for float8/int4; text numerics (numeric, int8) are converted too.
  return v === null || v === undefined ? null : Number(v);
}

function toRecord(view: ViewTarget, row: Row): AnomalyRecord {
  const categories: Record<string, string | null> = {};
  view.categories.forEach((name, i) => {
    setOwn(categories, name, row[`c${i}`] ?? null);
  });
  return {
    id: Number(row.id),
    dataViewId: view.id,
    dataView: view.label,
    seriesId: Number(row.series_id),
    measure: row.measure === 'count' || row.measure === 'ratio' ? row.measure : 'value',
    type: row.type,
    startDate: row.start_date,
    endDate: row.end_date,
    duration: Number(row.duration),
    actualValue: num(row.actual_value),
    predictedValue: num(row.predicted_value),
    change: num(row.change),
    changePct: num(row.change_pct),
    changeCum: num(row.change_cum),
    sharePct: num(row.share_pct),
    recurrence: num(row.recurrence),
    result: row.result,
    categories,
    sin: num(row.sin),
    sim: num(row.sim),
    incidentId: num(row.incident_id),
    ...(view.fiscal ? { fiscalPeriod: fiscalLabel(view.fiscal, row.type, toEpochDay(row.start_date)) } : {}),
    comments: [],
    ...newsField(view, row),
  };
}

function newsField(view: ViewTarget, row: Row): { news?: News } {
  const news = newsOf(view.badWhen ?? {}, row.measure ?? 'value', row.result);
  return news === undefined ? {} : { news };
}

/** ` AND NOT (…)` leaving out the view's welcome moves (good news for their measure), or nothing. */
function notWelcome(view: ViewTarget): SQL {
  const moves = welcomeMoves(view.badWhen ?? {});
  if (moves.length === 0) return sql``;
  const one = moves.map((m) => sql`(COALESCE(a.measure, 'value') = ${m.measure} AND a.result = ${m.result})`);
  return sql` AND NOT (${sql.join(one, sql` OR `)})`;
}

/** What a read needs to know of a view's anomalies before it reads them. */
export interface ViewSpan {
  /** Days from start to end of its longest anomaly (null: no anomalies). */
  span: number | null;
  /** Whether its records carry incident ids (views detected before incidents existed do not, until their next run). */
  incidents: boolean;
}

/**
 * Per view, its longest anomaly's span, read from the span index in one statement (it turns the overlap test
 * into a start_date range, which the planner can estimate and scan), and whether its records have incident ids.
 */
export async function readSpans(db: Database, views: readonly ViewTarget[]): Promise<Map<number, ViewSpan>> {
  if (views.length === 0) return new Map();
  const parts = views.map(
    (v) =>
      sql`SELECT ${v.id}::int AS id, (SELECT max(end_date - start_date) FROM ${sql.raw(anomaliesTable(v.schema))}) AS span,
        ${recordsHaveColumn(v.schema, 'incident_id')} AS incidents`,
  );
  const rows = await db.rows<{ id: number; span: number | null; incidents: boolean }>(
    sql.join(parts, sql` UNION ALL `),
  );
  return new Map(
    rows.map((r) => [
      Number(r.id),
      { span: r.span === null ? null : Number(r.span), incidents: r.incidents === true },
    ]),
  );
}

/** The inner selection: filtered rows of all_anomalies, cut to the Top N in SQL when the mode allows. */
function selection(view: ViewTarget, where: SQL, mode: ReadMode, incidents: boolean): SQL {
  const table = sql.raw(anomaliesTable(view.schema));
  const COLUMNS = columns(incidents);
  if (mode.kind === 'all')
    return sql`SELECT ${sql.raw(COLUMNS)} FROM ${table} a WHERE ${where} LIMIT ${mode.cap + 1}`;
  if (mode.splitByType) {
    // Top N of each type: the union over views of each view's Top N per type holds the overall Top N per type.
    return sql`SELECT ${sql.raw(COLUMNS)} FROM (
        SELECT a.*, row_number() OVER (PARTITION BY a.type ORDER BY ${orderBy(mode.sortBy)}) AS rank_in_type
        FROM ${table} a WHERE ${where}
      ) a WHERE a.rank_in_type <= ${mode.limit}`;
  }
  return sql`SELECT ${sql.raw(COLUMNS)} FROM ${table} a WHERE ${where} ORDER BY ${orderBy(mode.sortBy)} LIMIT ${mode.limit}`;
}

/**
 * Anomalies of one view overlapping the window and satisfying the selection, with their categories.
 * The SQL conditions equal applyFilter's, so cutting to the Top N here loses nothing the merge would keep.
 */
export async function readViewAnomalies(
  db: Database,
  view: ViewTarget,
  /** From readSpans; null or a null span when the view has no anomalies. */
  spanOf: ViewSpan | null,
  window: { dateFrom: string; dateTo: string },
  settings: SelectionSettings,
  mode: ReadMode,
): Promise<AnomalyRecord[]> {
  const categories = categoryColumns(view.categories, settings.categories);
  if (!categories) return [];
  const span = spanOf?.span ?? null;
  if (span === null) return [];
  const selected = whereClause(view.schema, window, settings, categories, addDays(window.dateFrom, -span));
  const shown = settings.hideDismissed
    ? sql`${selected} AND ${notDismissedCondition(view.id, spanOf?.incidents ? anomaliesTable(view.schema) : undefined)}`
    : selected;
  const where = settings.hideWelcome ? sql`${shown}${notWelcome(view)}` : shown;
  const catColumns = view.categories.length
    ? sql.raw(view.categories.map((name, i) => `, m.${categoryColumn(name)} AS c${i}`).join(''))
    : sql``;
  const rows = await db.rows<Row>(sql`
    SELECT s.id, s.series_id, s.measure, s.type, s.start_date::text AS start_date, s.end_date::text AS end_date, s.duration,
           s.actual_value, s.predicted_value, s.change, s.change_pct, s.change_cum, s.share_pct, s.recurrence,
           s.result, s.sin, s.sim, s.incident_id ${catColumns}
    FROM (${selection(view, where, mode, spanOf?.incidents === true)}) s
    LEFT JOIN ${sql.raw(catalogTable(view.schema))} m ON m.series_id = s.series_id`);
  return rows.map((r) => toRecord(view, r));
}
