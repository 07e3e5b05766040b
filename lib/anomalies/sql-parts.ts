/** SQL fragments over a view's all_anomalies (alias `a`) that mirror lib/filters/select.ts and rank.ts exactly. */
import { type SQL, sql } from 'drizzle-orm';
import { categoryColumn } from '../dataset/ddl';
import { catalogTable } from '../dataset/catalog';
import type { NumericBound, SelectionSettings, SortBy } from '../filters/types';

/** NaN counts as "not computed" in the domain code, so SQL treats it like NULL. */
function measure(column: string, magnitude = false): string {
  const plain = `NULLIF(a.${column}, 'NaN'::float8)`;
  return magnitude ? `abs(${plain})` : plain;
}

const SORT_EXPRESSIONS: Record<SortBy, string> = {
  Duration: 'a.duration',
  Date: 'a.start_date',
  SIN: measure('sin'),
  SIM: measure('sim'),
  'Anomaly Value': measure('actual_value'),
  'Predicted Value': measure('predicted_value'),
  Change: measure('change', true),
  'Change %': measure('change_pct', true),
  'Change Cum': measure('change_cum', true),
  'Category Share %': measure('share_pct'),
};

/** Keys over NOT NULL columns: plain DESC, so that a backward scan of an ascending index can serve it. */
const NOT_NULL_KEYS = new Set<SortBy>(['Duration', 'Date']);

/** ORDER BY of rankAnomalies: the key descending with unknown values last, then SIN descending, then id. */
export function orderBy(sortBy: SortBy): SQL {
  const key = `${SORT_EXPRESSIONS[sortBy]} DESC${NOT_NULL_KEYS.has(sortBy) ? '' : ' NULLS LAST'}`;
  return sql.raw(`${key}, ${measure('sin')} DESC NULLS LAST, a.id ASC`);
}

function bound(expression: string, b: NumericBound | undefined): SQL[] {
  if (!b) return [];
  const out: SQL[] = [];
  // A null measure fails any bound (NULL comparisons are not true), as in applyFilter.
  if (b.from !== null) out.push(sql`${sql.raw(expression)} >= ${b.from}::float8`);
  if (b.to !== null) out.push(sql`${sql.raw(expression)} <= ${b.to}::float8`);
  return out;
}

/** Category constraints by column; undefined when the view lacks a constrained category (nothing can match). */
export function categoryColumns(
  viewCategories: readonly string[],
  constraints: Record<string, string>,
): Array<[string, string]> | undefined {
  const known = new Set(viewCategories);
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(constraints)) {
    if (!known.has(name)) return undefined;
    out.push([categoryColumn(name), value]);
  }
  return out;
}

/**
 * WHERE conditions: date overlap, types (ignoring case), result signs, measures, numeric bounds, categories via cat_map.
 * `startFloor` (dateFrom minus the longest anomaly's span) adds a lower start_date bound that the overlap implies.
 */
export function whereClause(
  schema: string,
  window: { dateFrom: string; dateTo: string },
  settings: SelectionSettings,
  categories: Array<[string, string]>,
  startFloor?: string,
): SQL {
  const conditions: SQL[] = [
    sql`a.start_date <= ${window.dateTo}::date`,
    sql`a.end_date >= ${window.dateFrom}::date`,
  ];
  if (startFloor) conditions.push(sql`a.start_date >= ${startFloor}::date`);
  if (settings.anomalyTypes.length) {
    const types = settings.anomalyTypes.map((t) => sql`${t.toLowerCase()}`);
    conditions.push(sql`lower(a.type) IN (${sql.join(types, sql`, `)})`);
  }
  if (settings.anomalyResults.length) {
    const results = settings.anomalyResults.map((r) => sql`${r}`);
    conditions.push(sql`a.result IN (${sql.join(results, sql`, `)})`);
  }
  // Both measures (or none named) select everything; one measure selects its rows.
  if (settings.measures?.length === 1) conditions.push(sql`a.measure = ${settings.measures[0]}`);
  conditions.push(
    ...bound('a.recurrence', settings.recurrence),
    ...bound(measure('change_pct', true), settings.changePct),
    ...bound(measure('change', true), settings.change),
    ...bound(measure('share_pct'), settings.sharePct),
  );
  if (categories.length) {
    const eqs = categories.map(([column, value]) => sql`m.${sql.raw(column)} = ${value}`);
    conditions.push(
      sql`a.series_id IN (SELECT m.series_id FROM ${sql.raw(catalogTable(schema))} m WHERE ${sql.join(eqs, sql` AND `)})`,
    );
  }
  return sql.join(conditions, sql` AND `);
}
