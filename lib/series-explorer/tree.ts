/**
 * The series explorer's walk through a data view: its series as a tree of category values, loaded one level
 * at a time (children of a node along one dimension, paged), and a search over every category value with a
 * limit. Series are rows of cat_map: a category left out (null) is its "all" value, and a child category
 * appears only together with its parent, so a node offers the dimensions that are unset and whose parent
 * (if any) is set.
 */
import { countRecordsBySeries } from '../process-job';
import { catalogTable } from '../dataset/catalog';
import type { Database } from '../db/database';
import { type SQL, sql } from 'drizzle-orm';
import { categoryColumn } from '../dataset/ddl';
import type { DataViewDefinition } from '../dataviews/definition/types';
import { readDeployedView } from '../dataviews/scope';
import type { DataViewRecord } from '../dataviews/views';
import { type Caller, requireRead } from '../identity/caller';
import { ValidationError } from '../shared/errors';
import { hasOwn, ownValue, setOwn } from '../shared/own';

export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 100;
export const MAX_SEARCH = 200;
export const DEFAULT_SEARCH = 50;

export interface ExplorerCategory {
  name: string;
  label: string;
  parent: string | null;
}

/** A view as the explorer reads it. */
export interface ExplorerView {
  id: number;
  label: string;
  schema: string;
  categories: ExplorerCategory[];
  detectors: Array<{ index: number; type: string }>;
  definition: DataViewDefinition;
  /** The view as lib/dataviews read it. */
  record: DataViewRecord;
}

/** The view the caller may read (404 otherwise), deployed (409 otherwise). */
export async function explorerView(c: { db: Database }, caller: Caller, id: number): Promise<ExplorerView> {
  requireRead(caller);
  const row = await readDeployedView(caller, c.db, id, ': it has no series yet.');
  const def = row.definition;
  return {
    id: row.id,
    label: row.title,
    schema: row.schema,
    categories: (def.categories ?? []).map((x) => ({
      name: x.name,
      label: x.label,
      parent: x.parent ?? null,
    })),
    detectors: (def.analysis?.detectors ?? []).map((d, index) => ({ index, type: String(d.type) })),
    definition: def,
    record: row,
  };
}

/**
 * Category values given in a query string as `c.<name>=<value>` (name compared ignoring case), checked against
 * the view's categories: an unknown name or an empty value is a 400 naming the parameter.
 */
export function categoriesFromQuery(
  view: Pick<ExplorerView, 'categories'>,
  query: Record<string, string | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('c.')) continue;
    const wanted = key.slice(2).toLowerCase();
    const cat = view.categories.find((x) => x.name.toLowerCase() === wanted);
    if (!cat) {
      throw ValidationError.field(
        key,
        `is not a category of this data view (known: ${view.categories.map((x) => x.name).join(', ') || 'none'})`,
      );
    }
    if (value === undefined || value === '') throw ValidationError.field(key, 'must not be empty');
    setOwn(out, cat.name, value);
  }
  return out;
}

/** Dimensions a node with these set categories can be split by: unset ones whose parent is set. */
export function openDimensions(
  categories: readonly ExplorerCategory[],
  set: Record<string, string>,
): string[] {
  return categories
    .filter((x) => !hasOwn(set, x.name) && (x.parent === null || hasOwn(set, x.parent)))
    .map((x) => x.name);
}

function limitParam(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw ValidationError.field(name, `must be an integer from 1 to ${max}, got '${value}'`);
  }
  return Number(value);
}

function offsetParam(value: string | undefined, name: string): number {
  if (value === undefined || value === '') return 0;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw ValidationError.field(name, `must be a whole number of 0 or more, got '${value}'`);
  }
  return Number(value);
}

/** cat_map conditions: the given categories equal, every other one of `nullOthers` null ("all"). */
function nodeConditions(view: ExplorerView, set: Record<string, string>, except: string | null): SQL[] {
  return view.categories
    .filter((x) => x.name !== except)
    .map((x) => {
      const col = sql.raw(`m.${categoryColumn(x.name)}`);
      const v = ownValue(set, x.name);
      return v === undefined ? sql`${col} IS NULL` : sql`${col} = ${v}`;
    });
}

const where = (conds: SQL[]) => (conds.length ? sql`WHERE ${sql.join(conds, sql` AND `)}` : sql``);

/** Anomaly counts of some series (one statement over the series index). */
async function anomalyCounts(c: { db: Database }, view: ExplorerView, ids: number[]) {
  const counts = new Map<number, number>();
  if (ids.length === 0) return counts;
  const rows = await countRecordsBySeries(c.db, view.schema, ids);
  for (const r of rows) counts.set(Number(r.series_id), Number(r.n));
  return counts;
}

export interface ExplorerNode {
  dataViewId: number;
  dataView: string;
  categories: ExplorerCategory[];
  detectors: Array<{ index: number; type: string }>;
  /** The node: its category values, its series (null when no such series was loaded) and anomaly count. */
  node: { categories: Record<string, string>; seriesId: number | null; anomalies: number };
  /** Dimensions it can be split by. */
  dimensions: string[];
  /** Children along `dimension` when asked: one page of values in alphabetical order, with the total. */
  children?: {
    dimension: string;
    search: string | null;
    offset: number;
    limit: number;
    total: number;
    items: Array<{ value: string; seriesId: number; anomalies: number; expandable: boolean }>;
  };
}

/**
 * GET /dataviews/{id}/explorer/tree?c.<name>=<value>…&dimension=&search=&offset=&limit=: a node of the tree
 * and, with `dimension`, one page of its children (values containing `search`, ignoring case).
 */
export async function explorerTree(
  c: { db: Database },
  caller: Caller,
  id: number,
  query: Record<string, string | undefined>,
): Promise<ExplorerNode> {
  const view = await explorerView(c, caller, id);
  const set = categoriesFromQuery(view, query);
  const dims = openDimensions(view.categories, set);
  const m = sql.raw(`${catalogTable(view.schema)} m`);
  const [own] = await c.db.rows<{ series_id: number }>(
    sql`SELECT m.series_id FROM ${m} ${where(nodeConditions(view, set, null))} LIMIT 1`,
  );
  const seriesId = own ? Number(own.series_id) : null;
  const answer: ExplorerNode = {
    dataViewId: view.id,
    dataView: view.label,
    categories: view.categories,
    detectors: view.detectors,
    node: {
      categories: set,
      seriesId,
      anomalies: seriesId === null ? 0 : ((await anomalyCounts(c, view, [seriesId])).get(seriesId) ?? 0),
    },
    dimensions: dims,
  };
  const dimension = query.dimension;
  if (dimension === undefined || dimension === '') {
    for (const k of ['search', 'offset', 'limit']) {
      if (query[k] !== undefined && query[k] !== '')
        throw ValidationError.field(k, 'needs dimension (which category to list the values of)');
    }
    return answer;
  }
  const dim = view.categories.find((x) => x.name.toLowerCase() === dimension.toLowerCase());
  if (!dim || !dims.includes(dim.name)) {
    throw ValidationError.field(
      'dimension',
      dim
        ? `'${dimension}' cannot split this node (open: ${dims.join(', ') || 'none'})`
        : `'${dimension}' is not a category of this data view`,
    );
  }
  const offset = offsetParam(query.offset, 'offset');
  const limit = limitParam(query.limit, 'limit', DEFAULT_PAGE, MAX_PAGE);
  const search = query.search?.trim() || null;
  if (search && search.length > 200) throw ValidationError.field('search', 'must be at most 200 characters');
  const col = sql.raw(`m.${categoryColumn(dim.name)}`);
  const conds = [...nodeConditions(view, set, dim.name), sql`${col} IS NOT NULL`];
  if (search) conds.push(sql`strpos(lower(${col}), lower(${search})) > 0`);
  const rows = await c.db.rows<{ series_id: number; value: string; total: number }>(sql`
    SELECT m.series_id, ${col} AS value, count(*) OVER ()::int AS total FROM ${m} ${where(conds)}
    ORDER BY ${col} LIMIT ${limit} OFFSET ${offset}`);
  let total = rows.length ? Number(rows[0].total) : 0;
  if (rows.length === 0 && offset > 0) {
    const [n] = await c.db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${m} ${where(conds)}`);
    total = Number(n.n);
  }
  const counts = await anomalyCounts(
    c,
    view,
    rows.map((r) => Number(r.series_id)),
  );
  answer.children = {
    dimension: dim.name,
    search,
    offset,
    limit,
    total,
    items: rows.map((r) => ({
      value: r.value,
      seriesId: Number(r.series_id),
      anomalies: counts.get(Number(r.series_id)) ?? 0,
      expandable: openDimensions(view.categories, { ...set, [dim.name]: r.value }).length > 0,
    })),
  };
  return answer;
}

export interface ExplorerSearch {
  dataViewId: number;
  search: string;
  limit: number;
  /** More series match than `limit`: narrow the search. */
  truncated: boolean;
  items: Array<{ seriesId: number; categories: Record<string, string>; anomalies: number }>;
}

/**
 * GET /dataviews/{id}/explorer/search?q=&limit=: series with a category value containing q (ignoring case),
 * the broadest first (fewest categories set), at most `limit`.
 */
export async function explorerSearch(
  c: { db: Database },
  caller: Caller,
  id: number,
  query: Record<string, string | undefined>,
): Promise<ExplorerSearch> {
  const view = await explorerView(c, caller, id);
  const q = (query.q ?? '').trim();
  if (q === '') throw ValidationError.field('q', 'is required (a part of a category value)');
  if (q.length > 200) throw ValidationError.field('q', 'must be at most 200 characters');
  const limit = limitParam(query.limit, 'limit', DEFAULT_SEARCH, MAX_SEARCH);
  if (view.categories.length === 0)
    return { dataViewId: view.id, search: q, limit, truncated: false, items: [] };
  const cols = view.categories.map((x) => sql.raw(`m.${categoryColumn(x.name)}`));
  const any = sql.join(
    cols.map((col) => sql`strpos(lower(${col}), lower(${q})) > 0`),
    sql` OR `,
  );
  const select = sql.raw(view.categories.map((x, i) => `m.${categoryColumn(x.name)} AS c${i}`).join(', '));
  const rows = await c.db.rows<{ series_id: number } & Record<string, string | null>>(sql`
    SELECT m.series_id, ${select} FROM ${sql.raw(`${catalogTable(view.schema)} m`)} WHERE ${any}
    ORDER BY m.level, ${sql.join(cols, sql`, `)} LIMIT ${limit + 1}`);
  const truncated = rows.length > limit;
  const page = rows.slice(0, limit);
  const counts = await anomalyCounts(
    c,
    view,
    page.map((r) => Number(r.series_id)),
  );
  return {
    dataViewId: view.id,
    search: q,
    limit,
    truncated,
    items: page.map((r) => {
      const categories: Record<string, string> = {};
      view.categories.forEach((x, i) => {
        const v = r[`c${i}`];
        if (v !== null && v !== undefined) setOwn(categories, x.name, v);
      });
      return { seriesId: Number(r.series_id), categories, anomalies: counts.get(Number(r.series_id)) ?? 0 };
    }),
  };
}
