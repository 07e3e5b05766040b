/** The data views a filter runs over: its `<domain> / <name>` entries resolved against the views the caller can see. */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { type Caller, visibleDataViewIds } from '../identity/caller';
import type { DataViewRef } from '../filters/types';
import { ValidationError } from '../shared/errors';

/** A data view as the anomaly query needs it. */
export interface ViewInfo {
  id: number;
  domain: string;
  name: string;
  /** `<domain> / <name>` as anomaly records show it. */
  label: string;
  deployed: boolean;
  /** The dataset schema (`dv_<id>`) when deployed. */
  schema: string | null;
  /** Category names of the definition, in definition order. */
  categories: string[];
}

/** A deployed view the query reads. */
export type ViewTarget = ViewInfo & { schema: string };

export interface ResolvedViews {
  targets: ViewTarget[];
  warnings: string[];
}

function categoryNames(json: string | null): string[] {
  if (!json) return [];
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed
    .map((c) => (c && typeof c === 'object' ? (c as { name?: unknown }).name : undefined))
    .filter((n): n is string => typeof n === 'string');
}

/** Every data view the caller can see (admins: all), ordered by id. */
export async function readableViews(db: Database, caller: Caller): Promise<ViewInfo[]> {
  const visible = visibleDataViewIds(caller);
  if (visible && visible.length === 0) return [];
  const scope = visible
    ? sql`WHERE id IN (${sql.join(
        visible.map((id) => sql`${id}`),
        sql`, `,
      )})`
    : sql``;
  const rows = await db.rows<{
    id: number;
    domain: string;
    name: string;
    deployed: boolean;
    schema_name: string | null;
    categories: string | null;
  }>(sql`SELECT id, domain, name, deployed, schema_name, (definition -> 'categories')::text AS categories
         FROM data_views ${scope} ORDER BY id`);
  return rows.map((r) => ({
    id: Number(r.id),
    domain: r.domain,
    name: r.name,
    label: `${r.domain} / ${r.name}`,
    deployed: r.deployed && r.schema_name !== null,
    schema: r.schema_name,
    categories: categoryNames(r.categories),
  }));
}

function refKey(domain: string, name: string): string {
  // Domain and name are unique ignoring case (data_views_domain_name_key).
  return `${domain.toLowerCase()}\u0000${name.toLowerCase()}`;
}

/**
 * The filter's views among `views` (those the caller can see); no refs means all of them.
 * An entry that is unknown or not visible is a 400 on `dataViews` when `strict` (unsaved settings, saving),
 * otherwise a warning (a saved filter outlives renames and reassignments). Views not deployed have no anomalies.
 */
export function resolveViews(
  views: readonly ViewInfo[],
  refs: readonly DataViewRef[],
  strict: boolean,
): ResolvedViews {
  const warnings: string[] = [];
  let chosen: ViewInfo[];
  if (refs.length === 0) {
    chosen = [...views];
  } else {
    const byKey = new Map(views.map((v) => [refKey(v.domain, v.name), v]));
    const missing: string[] = [];
    chosen = [];
    for (const ref of refs) {
      const view = byKey.get(refKey(ref.domain, ref.name));
      if (view) {
        if (!chosen.includes(view)) chosen.push(view);
      } else missing.push(`${ref.domain} / ${ref.name}`);
    }
    if (missing.length && strict) {
      throw new ValidationError(
        `Invalid filter: dataViews names data views that are unknown or not accessible: ${missing.join('; ')}.`,
        missing.map((m) => ({ path: 'dataViews', message: `data view '${m}' is unknown or not accessible` })),
      );
    }
    for (const m of missing) warnings.push(`Data view '${m}' is unknown or not accessible; it was skipped.`);
    for (const v of chosen) {
      if (!v.deployed) warnings.push(`Data view '${v.label}' is not deployed; it has no anomalies.`);
    }
  }
  const targets = chosen.filter((v): v is ViewTarget => v.deployed && v.schema !== null);
  return { targets: targets.sort((a, b) => a.id - b.id), warnings };
}
