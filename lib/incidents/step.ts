/**
 * After a detection cycle: the view's anomaly records grouped into incidents, each with its root cause,
 * stored with ids that last while the membership does (docs/incidents.md). An incident whose members
 * and head are those it had keeps its explanation; only new or changed ones read the leaves.
 */
import type { Database } from '../db/database';
import { readSeries, type SeriesMeasure, type SeriesSource } from '../dataset/series-store';
import type { Logger } from '../shared/logger';
import { matchPrevious, sameKeys } from './identity';
import { isLeaf, type Lattice } from './lattice';
import type { LeafDays } from './leaf-window';
import {
  explainPlan,
  INCIDENT_DEFAULTS,
  type IncidentOptions,
  type IncidentPlan,
  planIncidents,
} from './plan';
import type { Explanation } from './root-cause';
import {
  categoriesOf,
  ensureIncidentTables,
  type IncidentRow,
  memberKey,
  readCatalog,
  readMemberRecords,
  readStoredIncidents,
  type SeriesCatalog,
  writeIncidents,
} from './store';
import type { IncidentBroad, IncidentCause } from './types';

export interface IncidentStepDeps {
  db: Database;
  log?: Logger;
}

export interface IncidentView {
  id: number;
  /** Where the view's series are. */
  source: SeriesSource;
  categories: ReadonlyArray<{ name: string; parent?: string | null }>;
}

export interface IncidentStepResult {
  incidents: number;
  records: number;
  /** Incidents first seen in this cycle (their ids). */
  created: number[];
  /** Incidents whose explanation was computed in this cycle (the others kept theirs). */
  explained: number;
  ms: number;
}

export function latticeOf(view: IncidentView): Lattice {
  const names = view.categories.map((c) => c.name);
  return {
    categories: names,
    parents: view.categories.map((c) => (c.parent ? names.indexOf(c.parent) : -1)),
  };
}

/** What a head's measure reads: its own series, or for a ratio (value per event) the value and the events. */
const READS: Record<string, readonly SeriesMeasure[]> = {
  value: ['value'],
  count: ['count'],
  ratio: ['value', 'count'],
};
const readsOf = (measure: string) => READS[measure] ?? READS.value;

/** The leaves each plan needs, read once per measure over the union of the plans' days. */
async function readLeaves(
  db: Database,
  source: SeriesSource,
  catalog: SeriesCatalog,
  plans: readonly IncidentPlan[],
): Promise<Map<IncidentPlan, LeafDays[]>> {
  const out = new Map<IncidentPlan, LeafDays[]>();
  const leafRows: number[] = [];
  catalog.codes.forEach((c, i) => {
    if (isLeaf(c)) leafRows.push(i);
  });
  for (const [measure, measures] of Object.entries(READS)) {
    const mine = plans.filter((p) => p.needs && readsOf(p.needs.measure) === measures);
    if (mine.length === 0) continue;
    let from = Number.POSITIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    const wanted = new Set<number>();
    for (const p of mine) {
      const needs = p.needs as NonNullable<IncidentPlan['needs']>;
      from = Math.min(from, needs.fromDay);
      to = Math.max(to, needs.toDay);
      for (const r of leafRows) if (contains(needs.codes, catalog.codes[r])) wanted.add(r);
    }
    const rows = [...wanted].sort((a, b) => a - b);
    const [block, events] = await readSeries(
      db,
      source,
      rows.map((r) => catalog.ids[r]),
      { dayIndex0: from, days: to - from + 1 },
      measures,
    );
    for (const p of mine) {
      const needs = p.needs as NonNullable<IncidentPlan['needs']>;
      const leaves: LeafDays[] = [];
      rows.forEach((r, i) => {
        if (!contains(needs.codes, catalog.codes[r])) return;
        const start = i * block.days + (needs.fromDay - from);
        const end = start + (needs.toDay - needs.fromDay + 1);
        leaves.push({
          codes: catalog.codes[r],
          values: block.values.subarray(start, end),
          unit: measure === 'count' ? 1 : block.valuePerEvent?.[i] || 1,
          ...(events ? { counts: events.values.subarray(start, end) } : {}),
        });
      });
      out.set(p, leaves);
    }
  }
  return out;
}

function contains(outer: Int32Array, inner: Int32Array): boolean {
  for (let k = 0; k < outer.length; k++) if (outer[k] !== 0 && outer[k] !== inner[k]) return false;
  return true;
}

function causesOf(x: Explanation, catalog: SeriesCatalog, names: readonly string[]): IncidentCause[] {
  return x.causes.map((c) => {
    const id = catalog.byCodes.get(c.codes.join(','));
    const row = id === undefined ? undefined : catalog.byId.get(id);
    return {
      seriesId: id ?? null,
      categories:
        row === undefined
          ? Object.fromEntries(names.map((n, k) => [n, c.codes[k] === 0 ? null : String(c.codes[k])]))
          : categoriesOf(catalog, names, row),
      actual: c.actual,
      expected: c.expected,
      change: c.change,
      changePct: c.changePct,
      explainsPct: c.explainsPct,
      broad: c.broad,
    };
  });
}

/** Groups, explains and stores the incidents of a view's current anomaly records. */
export async function buildIncidents(
  deps: IncidentStepDeps,
  view: IncidentView,
  jobId: number | null,
  opts: IncidentOptions = INCIDENT_DEFAULTS,
): Promise<IncidentStepResult> {
  const t0 = performance.now();
  const { db } = deps;
  const schema = view.source.schema;
  const names = view.categories.map((c) => c.name);
  await ensureIncidentTables(db, schema);
  const catalog = await readCatalog(db, schema, names);
  const records = await readMemberRecords(db, schema, catalog);
  const plans = planIncidents(records, opts);
  const previous = await readStoredIncidents(db, schema);
  const keys = plans.map((p) => p.members.map((i) => memberKey(records[i])));
  const match = matchPrevious(keys, previous);
  const reuse = plans.map((p, i) => {
    const prev = match[i] >= 0 ? previous[match[i]] : undefined;
    return prev && sameKeys(prev.memberKeys, keys[i]) && prev.headKey === memberKey(records[p.head])
      ? prev
      : undefined;
  });
  const toExplain = plans.filter((_, i) => reuse[i] === undefined);
  const leaves = await readLeaves(db, view.source, catalog, toExplain);
  const lattice = latticeOf(view);
  const rows: IncidentRow[] = plans.map((p, i) => {
    const head = records[p.head];
    const prev = match[i] >= 0 ? previous[match[i]] : undefined;
    let broad: IncidentBroad;
    let rootCauses: IncidentCause[];
    const kept = reuse[i];
    if (kept) {
      broad = kept.broad;
      rootCauses = kept.rootCauses;
    } else {
      const x = explainPlan(lattice, records, p, leaves.get(p) ?? [], opts);
      const headRow = catalog.byId.get(head.seriesId) as number;
      broad = {
        seriesId: head.seriesId,
        categories: categoriesOf(catalog, names, headRow),
        actual: x.actual,
        expected: x.expected,
        change: x.change,
        changePct: x.changePct,
      };
      rootCauses = causesOf(x, catalog, names);
    }
    return {
      id: prev?.id ?? null,
      result: head.result,
      measures: p.measures,
      types: p.types,
      startDay: p.startDay,
      endDay: p.endDay,
      size: p.members.length,
      broad,
      rootCauses,
      head,
      memberKeys: keys[i],
      memberIds: p.members.map((m) => records[m].id),
      firstSeenAt: prev?.firstSeenAt ?? null,
      firstSeenJob: prev?.firstSeenJob ?? null,
    };
  });
  const ids = await writeIncidents(db, schema, rows, jobId);
  const created = ids.filter((_, i) => rows[i].id === null);
  const ms = performance.now() - t0;
  deps.log?.info('incidents built', {
    dataViewId: view.id,
    records: records.length,
    incidents: rows.length,
    created: created.length,
    explained: toExplain.length,
    ms: Math.round(ms),
  });
  return { incidents: rows.length, records: records.length, created, explained: toExplain.length, ms };
}
