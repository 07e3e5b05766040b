/** The data views a filter runs over: its `<domain> / <name>` entries resolved against the views the caller can see. */
import type { FiscalCalendar } from '../calendar/fiscal';
import type { Database } from '../db/database';
import { readViews } from '../dataviews/scope';
import type { Caller } from '../identity/caller';
import { type BadDirections, badDirectionsOf } from './news';
import type { DataViewRef } from './types';
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
  /** The view's fiscal calendar (analysis.fiscal), when it has one. */
  fiscal?: FiscalCalendar;
  /** The measures' bad directions (analysis.measureProperties); empty when every measure is bad both ways. */
  badWhen?: BadDirections;
}

/** A deployed view the query reads. */
export type ViewTarget = ViewInfo & { schema: string };

export interface ResolvedViews {
  targets: ViewTarget[];
  warnings: string[];
}

/** Every data view the caller can see (admins: all), ordered by id. */
export async function readableViews(db: Database, caller: Caller): Promise<ViewInfo[]> {
  const views = await readViews(caller, db);
  return views
    .sort((a, b) => a.id - b.id)
    .map((v) => ({
      id: v.id,
      domain: v.domain,
      name: v.name,
      label: v.title,
      deployed: v.deployed && v.schemaName !== null,
      schema: v.schemaName,
      categories: (v.definition.categories ?? []).map((c) => c.name),
      ...(v.definition.analysis?.fiscal ? { fiscal: v.definition.analysis.fiscal } : {}),
      badWhen: badDirectionsOf(v.definition.analysis?.measureProperties),
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

/**
 * The fiscal calendar the fiscal time ranges of a filter use: the one its views share (undefined: none
 * has one, calendar periods). Views with different fiscal calendars are a 400 on timeRange.
 */
export function sharedFiscalCalendar(targets: readonly ViewInfo[]): FiscalCalendar | undefined {
  const distinct = new Map<string, { fiscal: FiscalCalendar | undefined; views: string[] }>();
  for (const v of targets) {
    const key = JSON.stringify(v.fiscal ?? null);
    const entry = distinct.get(key) ?? { fiscal: v.fiscal, views: [] };
    entry.views.push(v.label);
    distinct.set(key, entry);
  }
  if (distinct.size <= 1) return [...distinct.values()][0]?.fiscal;
  const list = [...distinct.values()]
    .map((e) => `${e.fiscal ? JSON.stringify(e.fiscal) : 'calendar periods'} (${e.views.join(', ')})`)
    .join('; ');
  throw ValidationError.field(
    'timeRange',
    `names fiscal periods, and the selected data views have different fiscal calendars: ${list}; choose data views of one fiscal calendar, or a calendar time range`,
  );
}
