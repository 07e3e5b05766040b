/**
 * The shape of a deployed view's series as detection needs it: every series with its parent and
 * the category in which it differs from that parent (its peer group), the view's day range, and a
 * plan of shards made of whole peer groups so that peer and cardinality baselines are computed
 * inside one shard.
 */
import { sql } from 'drizzle-orm';
import { yyyymmddToEpochDay } from '../calendar/days';
import { codeColumn } from '../dataset/ddl';
import { catalogTable, seriesStatsTable } from '../dataset/catalog';
import type { Database } from '../db/database';

/** Siblings: the children of one parent that differ from it in the same category. */
export interface PeerGroup {
  /** null for the root series (the total), which has no parent. */
  parentId: number | null;
  /** Category (definition order) in which the members differ from the parent; -1 for the root. */
  category: number;
  memberIds: number[];
}

export interface ViewLayout {
  /** Epoch day of the first day of the view and the number of days up to its last day. */
  dayIndex0: number;
  days: number;
  rootId: number | null;
  seriesCount: number;
  groups: PeerGroup[];
  /** Changes whenever a load commits: detection refuses to publish results of a mixed state. */
  fingerprint: string;
}

export interface Shard {
  index: number;
  groups: PeerGroup[];
  seriesCount: number;
}

export interface LayoutRow {
  series_id: number;
  parent_series_id: number | null;
  cat: number | null;
}

/** SQL of the category in which a cat_map row `c` differs from its parent `p` (null for the root). */
export function differingCategorySql(categories: Array<{ name: string }>): string {
  const diff = categories.map(
    (c, i) => `WHEN c.${codeColumn(c.name)} <> 0 AND p.${codeColumn(c.name)} = 0 THEN ${i}`,
  );
  return diff.length ? `CASE ${diff.join(' ')} END` : 'NULL::int';
}

/**
 * Peer groups of rows ordered by parent (root first), differing category and series, with the view's
 * day range (YYYYMMDD of all_series' first and last day).
 */
export function layoutOf(
  rows: LayoutRow[],
  firstDay: number | null,
  lastDay: number | null,
  fingerprint: string,
): ViewLayout {
  const groups: PeerGroup[] = [];
  let rootId: number | null = null;
  for (const r of rows) {
    const id = Number(r.series_id);
    const parentId = r.parent_series_id === null ? null : Number(r.parent_series_id);
    const category = r.cat === null ? -1 : Number(r.cat);
    if (parentId === null && rootId === null) rootId = id;
    const last = groups[groups.length - 1];
    if (last && last.parentId === parentId && last.category === category) last.memberIds.push(id);
    else groups.push({ parentId, category, memberIds: [id] });
  }
  const first = firstDay === null ? null : Number(firstDay);
  const end = lastDay === null ? null : Number(lastDay);
  const dayIndex0 = first === null ? 0 : yyyymmddToEpochDay(first);
  const days = first === null || end === null ? 0 : yyyymmddToEpochDay(end) - dayIndex0 + 1;
  return { dayIndex0, days, rootId, seriesCount: rows.length, groups, fingerprint };
}

/** Reads cat_map and all_series of `schema`; days = 0 when nothing was loaded yet. */
export async function readLayout(
  db: Database,
  schema: string,
  categories: Array<{ name: string }>,
): Promise<ViewLayout> {
  const cat = differingCategorySql(categories);
  const rows = await db.rows<LayoutRow>(
    sql.raw(`SELECT c.series_id, c.parent_series_id, ${cat} AS cat FROM ${catalogTable(schema)} c
      LEFT JOIN ${catalogTable(schema)} p ON p.series_id = c.parent_series_id
      ORDER BY c.parent_series_id NULLS FIRST, 3 NULLS FIRST, c.series_id`),
  );
  const [range] = await db.rows<{ first: number | null; last: number | null; fp: string | null }>(
    sql.raw(`SELECT min(first_day) AS first, max(last_day) AS last,
      concat_ws(':', count(*), sum(days), sum(total_value), sum(total_count), max(series_id)) AS fp FROM ${seriesStatsTable(schema)}`),
  );
  return layoutOf(rows, range?.first ?? null, range?.last ?? null, String(range?.fp ?? ''));
}

/** A tail of the view of at most this share of the shard size joins the last shard instead of making one more. */
export const TAIL_SHARE = 0.1;

/**
 * Whole peer groups, in order, packed into shards of about `shardSize` series (a larger group is one shard).
 * The last few groups, when they hold at most TAIL_SHARE of a shard size together, join the shard before
 * them: a shard of a handful of series would cost a worker its start (the plan, the setups) for nothing.
 * The plan depends on the groups and the shard size alone, so the shard workers cut it as the coordinator did.
 */
export function planShards(groups: readonly PeerGroup[], shardSize: number): Shard[] {
  const shards: Shard[] = [];
  let current: Shard | undefined;
  let rest = groups.reduce((n, g) => n + g.memberIds.length, 0);
  for (const g of groups) {
    const full =
      current !== undefined &&
      current.seriesCount + g.memberIds.length > shardSize &&
      rest > TAIL_SHARE * shardSize;
    if (current === undefined || full) {
      current = { index: shards.length, groups: [], seriesCount: 0 };
      shards.push(current);
    }
    current.groups.push(g);
    current.seriesCount += g.memberIds.length;
    rest -= g.memberIds.length;
  }
  return shards;
}

/** Each series with a parent, its parent and the category it adds (the mix table). */
export function mixLinks(layout: ViewLayout, categories: readonly string[]) {
  const out = { seriesIds: [] as number[], parentIds: [] as number[], categories: [] as string[] };
  for (const g of layout.groups) {
    if (g.parentId === null) continue;
    for (const id of g.memberIds) {
      out.seriesIds.push(id);
      out.parentIds.push(g.parentId);
      out.categories.push(categories[g.category] ?? '');
    }
  }
  return out;
}

/** Reads the fingerprint again (cheap) to tell whether a load committed meanwhile. */
export async function readFingerprint(db: Database, schema: string): Promise<string> {
  const [r] = await db.rows<{ fp: string | null }>(
    sql.raw(
      `SELECT concat_ws(':', count(*), sum(days), sum(total_value), sum(total_count), max(series_id)) AS fp FROM ${seriesStatsTable(schema)}`,
    ),
  );
  return String(r?.fp ?? '');
}
