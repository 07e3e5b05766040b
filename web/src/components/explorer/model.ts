/**
 * The series explorer's API shapes (from the generated API types: schemas/responses/explorer.schema.json)
 * and its URL: every state of the page is an address that can be shared.
 */
import type * as Api from '../../lib/api-types.gen';
import { addDays } from '../../lib/format';

export type ExplorerCategory = Api.ExplorerCategory;

/** GET /dataviews/{id}/explorer/tree: a node, its dimensions and one page of its children. */
export type TreeAnswer = Api.ExplorerNode;

/** GET /dataviews/{id}/explorer/search. */
export type SearchAnswer = Api.ExplorerSearch;

/** A stored anomaly of the series (every column of the view's anomalies table). */
export type SeriesAnomaly = Api.StoredAnomaly;

/** GET /dataviews/{id}/explorer/series/{seriesId}: the chart and the anomalies of one series. */
export type SeriesAnswer = Api.ExplorerSeries;

/** What the address holds. */
export interface ExplorerState {
  view: number | null;
  categories: Record<string, string>;
  type?: string;
  /** `count` draws the view's count measure, `ratio` value ÷ count; the value is the default. */
  measure?: 'count' | 'ratio';
  from?: string;
  to?: string;
  /** The window of the anomaly the explorer was opened from (its drivers' window): `wfrom`, `wto`. */
  windowFrom?: string;
  windowTo?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function readState(query: URLSearchParams): ExplorerState {
  const view = Number(query.get('view'));
  // Built from entries: a category named `__proto__` is a key like any other.
  const categories: Record<string, string> = Object.fromEntries(
    [...query].filter(([k, v]) => k.startsWith('c.') && v !== '').map(([k, v]) => [k.slice(2), v]),
  );
  const date = (k: string) => {
    const v = query.get(k) ?? '';
    return DATE.test(v) ? v : undefined;
  };
  return {
    view: Number.isSafeInteger(view) && view > 0 ? view : null,
    categories,
    type: query.get('type') || undefined,
    measure: otherMeasure(query.get('measure')),
    from: date('from'),
    to: date('to'),
    windowFrom: date('wfrom'),
    windowTo: date('wto'),
  };
}

/** The address of a state (categories in the view's order when known). */
export function explorerHref(s: ExplorerState): string {
  const q = new URLSearchParams();
  if (s.view) q.set('view', String(s.view));
  for (const [k, v] of Object.entries(s.categories)) q.set(`c.${k}`, v);
  if (s.type) q.set('type', s.type);
  if (s.measure) q.set('measure', s.measure);
  if (s.from) q.set('from', s.from);
  if (s.to) q.set('to', s.to);
  if (s.windowFrom && s.windowTo) {
    q.set('wfrom', s.windowFrom);
    q.set('wto', s.windowTo);
  }
  const text = q.toString();
  return text ? `/explorer?${text}` : '/explorer';
}

/** The categories of a node as the API's query (`c.<name>=<value>`). */
export function categoriesQuery(categories: Record<string, string>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(categories)) q.set(`c.${k}`, v);
  return q.toString();
}

/**
 * "Open in explorer" for an anomaly: its series, its detector, six weeks before to two weeks after, and
 * its own window picked (what drove the change is asked over it, not over the series' last days).
 */
export function anomalyExplorerHref(a: {
  dataViewId: number;
  type: string;
  /** Events merged by a filter: every type, the strongest first. */
  types?: string[];
  measure?: string;
  startDate: string;
  endDate: string;
  categories: Record<string, string | null>;
}): string {
  const categories: Record<string, string> = Object.fromEntries(
    Object.entries(a.categories ?? {}).filter(
      (e): e is [string, string] => e[1] !== null && e[1] !== undefined,
    ),
  );
  return explorerHref({
    view: a.dataViewId,
    categories,
    // An event's strongest type (a merged record's type may name several: "DOD + WOW").
    type: (a.types?.[0] ?? a.type).split('+')[0].trim().toLowerCase(),
    measure: otherMeasure(a.measure),
    from: addDays(a.startDate, -42),
    to: addDays(a.endDate, 14),
    windowFrom: a.startDate,
    windowTo: a.endDate,
  });
}

export function sameCategories(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/** Dimensions a node can be split by: unset ones whose parent is set. */
export function openDimensions(categories: ExplorerCategory[], set: Record<string, string>): string[] {
  return categories
    .filter((c) => !Object.hasOwn(set, c.name) && (c.parent === null || Object.hasOwn(set, c.parent)))
    .map((c) => c.name);
}

export function seriesTitle(categories: Record<string, string | null>, order?: ExplorerCategory[]): string {
  const names = order ? order.map((c) => c.name) : Object.keys(categories);
  const parts = names
    .filter((n) => Object.hasOwn(categories, n) && categories[n] !== null && categories[n] !== undefined)
    .map((n) => categories[n]);
  return parts.length ? parts.join(' › ') : 'All (total)';
}

/**
 * The view the explorer opens when the address names none: the last one used (still readable), else
 * the only one there is; null when the user must choose.
 */
export function initialView(views: ReadonlyArray<{ id: number }>, lastUsed: number | null): number | null {
  if (lastUsed !== null && views.some((v) => v.id === lastUsed)) return lastUsed;
  return views.length === 1 ? views[0].id : null;
}

const LAST_VIEW_KEY = 'anomaly-monitor.explorer.view';

/** The view last opened in the explorer on this browser (localStorage: it outlives the tab). */
export function lastUsedView(): number | null {
  try {
    const n = Number(localStorage.getItem(LAST_VIEW_KEY));
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

export function rememberView(id: number): void {
  try {
    localStorage.setItem(LAST_VIEW_KEY, String(id));
  } catch {
    // Storage refused (private mode): the explorer simply asks again next time.
  }
}

/** A measure other than the value (the default, left out of addresses), or undefined. */
export function otherMeasure(m: string | null | undefined): 'count' | 'ratio' | undefined {
  return m === 'count' || m === 'ratio' ? m : undefined;
}
