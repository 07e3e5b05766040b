/**
 * After a detection cycle: the view's anomaly records grouped into incidents, each with its root cause,
 * stored with ids that last while the membership does (docs/incidents.md). An incident whose members
 * and head are those it had keeps its explanation; only new or changed ones read the leaves.
 */
import { carryIncidentFeedback } from './feedback';
import { createHash } from 'node:crypto';
import type { Database } from '../db/database';
import { readSeries, type SeriesMeasure, type SeriesSource, valuePerEvent } from '../dataset/series-store';
import type { Logger } from '../shared/logger';
import { absorbInto } from './absorb';
import { groupRecords, inUnits, type MemberRecord, ownBaseline } from './grouping';
import { continueByTrace, matchPrevious } from './identity';
import { isLeaf, type Lattice } from './lattice';
import type { LeafDays } from './leaf-window';
import {
  explainPlan,
  INCIDENT_DEFAULTS,
  type IncidentOptions,
  type IncidentPlan,
  planGroup,
  planIncidents,
  splitOff,
} from './plan';
import type { RatioCause } from './ratio-contributions';
import type { Explanation } from './root-cause';
import {
  categoriesOf,
  ensureIncidentTables,
  type IncidentRow,
  memberKey,
  movesOf,
  withHeirMoves,
  readCatalog,
  readMemberRecords,
  readStoredIncidents,
  type SeriesCatalog,
  writeIncidents,
  writeMoves,
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
  /** Milliseconds per phase: read (catalog, records, stored incidents), leaves, explain, write. */
  phases: { read: number; leaves: number; explain: number; write: number };
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
/** What a head's leaves are read as: a value leaf's unit (its value per event) needs its events too. */
const blockReadsOf = (measure: string): readonly SeriesMeasure[] =>
  readsOf(measure).includes('value') ? ['value', 'count'] : readsOf(measure);

/** Leaves read for a set of plans: rows of the catalog over days [from, to], per measure. */
interface LeafBlock {
  rowAt: Map<number, number>;
  from: number;
  to: number;
  measures: SeriesMeasure[];
  blocks: Awaited<ReturnType<typeof readSeries>>;
}

/** The catalog's leaf rows, and those under each series asked for so far (many plans share a head). */
interface LeafIndex {
  rows: number[];
  under: Map<string, number[]>;
}

function leafIndexOf(catalog: SeriesCatalog): LeafIndex {
  const rows: number[] = [];
  catalog.codes.forEach((c, i) => {
    if (isLeaf(c)) rows.push(i);
  });
  return { rows, under: new Map() };
}

/** The leaf rows under the series `codes`, in catalog order. */
function leavesUnder(index: LeafIndex, catalog: SeriesCatalog, codes: Int32Array): number[] {
  const key = codes.join(',');
  let out = index.under.get(key);
  if (!out) {
    out = index.rows.filter((r) => contains(codes, catalog.codes[r]));
    index.under.set(key, out);
  }
  return out;
}

/**
 * The leaves under the plans' heads, read in one statement (both measures when some plan needs both)
 * over the union of the plans' days: they cover most of the cube, and one pass over the view's data
 * costs about half of one pass per measure.
 */
async function readLeafBlock(
  db: Database,
  source: SeriesSource,
  catalog: SeriesCatalog,
  leafIndex: LeafIndex,
  plans: readonly IncidentPlan[],
): Promise<LeafBlock> {
  const measures = (['value', 'count'] as const).filter((m) =>
    plans.some((p) => blockReadsOf((p.needs as NonNullable<IncidentPlan['needs']>).measure).includes(m)),
  );
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  const wanted = new Set<number>();
  for (const p of plans) {
    const needs = p.needs as NonNullable<IncidentPlan['needs']>;
    from = Math.min(from, needs.fromDay);
    to = Math.max(to, needs.toDay);
    for (const r of leavesUnder(leafIndex, catalog, needs.codes)) wanted.add(r);
  }
  const rows = [...wanted].sort((a, b) => a - b);
  const blocks = await readSeries(
    db,
    source,
    rows.map((r) => catalog.ids[r]),
    { dayIndex0: from, days: to - from + 1 },
    measures,
    // Only the chunks of the batch's days: a 3-year view's whole chunks of every leaf took gigabytes.
    { windowOnly: true },
  );
  return { rowAt: new Map(rows.map((r, i) => [r, i])), from, to, measures: [...measures], blocks };
}

/** A plan's leaves from a block, or undefined when the block does not hold them all. */
function leavesFrom(
  block: LeafBlock,
  catalog: SeriesCatalog,
  leafIndex: LeafIndex,
  plan: IncidentPlan,
): LeafDays[] | undefined {
  const needs = plan.needs as NonNullable<IncidentPlan['needs']>;
  const reads = readsOf(needs.measure);
  if (needs.fromDay < block.from || needs.toDay > block.to) return undefined;
  if (!blockReadsOf(needs.measure).every((m) => block.measures.includes(m))) return undefined;
  const [first, second] = reads;
  const values = block.blocks[block.measures.indexOf(first)];
  const events = second === undefined ? undefined : block.blocks[block.measures.indexOf(second)];
  const counts = first === 'value' ? block.blocks[block.measures.indexOf('count')] : undefined;
  const leaves: LeafDays[] = [];
  for (const r of leavesUnder(leafIndex, catalog, needs.codes)) {
    const i = block.rowAt.get(r);
    if (i === undefined) return undefined;
    const start = i * values.days + (needs.fromDay - block.from);
    const end = start + (needs.toDay - needs.fromDay + 1);
    leaves.push({
      codes: catalog.codes[r],
      values: values.values.subarray(start, end),
      // A value leaf's value per event over the days its plan reads, as the contributions take it.
      unit: counts ? valuePerEvent(values.values, counts.values, values.present, start, end - start) || 1 : 1,
      ...(events ? { counts: events.values.subarray(start, end) } : {}),
    });
  }
  return leaves;
}

/**
 * The leaves each plan needs: from the blocks already read when they hold them (groups split off an
 * incident lie under its head), else from one more read, added to `read`.
 */
async function readLeaves(
  db: Database,
  source: SeriesSource,
  catalog: SeriesCatalog,
  leafIndex: LeafIndex,
  plans: readonly IncidentPlan[],
  read: LeafBlock[],
): Promise<Map<IncidentPlan, LeafDays[]>> {
  const out = new Map<IncidentPlan, LeafDays[]>();
  const missing: IncidentPlan[] = [];
  for (const p of plans) {
    if (!p.needs) continue;
    let found: LeafDays[] | undefined;
    for (const b of read) if ((found = leavesFrom(b, catalog, leafIndex, p))) break;
    if (found) out.set(p, found);
    else missing.push(p);
  }
  if (missing.length === 0) return out;
  // While the next block is read, at most one budget of earlier blocks stays.
  while (read.reduce((n, b) => n + cellsOf(b), 0) > LEAF_BLOCK_CELLS) read.shift();
  const block = await readLeafBlock(db, source, catalog, leafIndex, missing);
  // Blocks kept for later rounds stay within the budget too: the oldest go first (the next round's
  // groups, split off an incident, mostly lie under the last batch's heads).
  while (read.length > 0 && read.reduce((n, b) => n + cellsOf(b), cellsOf(block)) > LEAF_BLOCK_CELLS)
    read.shift();
  read.push(block);
  for (const p of missing) out.set(p, leavesFrom(block, catalog, leafIndex, p) ?? []);
  return out;
}

/**
 * The most values (leaves × days × measures) the leaf reads kept at a time hold: about 128 MB as float64.
 * A large view's incidents span years and most of its leaves, so the leaves are read in batches of this
 * many values, each read bringing only the chunks of its batch's window, which bounds the memory of a step
 * whatever the view's size (the measurements: docs/performance.md, Measurements behind the code).
 */
export const LEAF_BLOCK_CELLS = 16_000_000;

function cellsOf(b: LeafBlock): number {
  return b.rowAt.size * (b.to - b.from + 1) * b.measures.length;
}

/**
 * The plans to explain cut into batches, in day order, whose one leaf read each stays within `cells`
 * (a plan larger than that alone is a batch of its own). Every plan with needs is in one batch.
 */
export function leafBatches(
  plans: readonly IncidentPlan[],
  leavesOf: (p: IncidentPlan) => readonly number[],
  cells: number = LEAF_BLOCK_CELLS,
): IncidentPlan[][] {
  const needsOf = (p: IncidentPlan) => p.needs as NonNullable<IncidentPlan['needs']>;
  const sorted = plans.filter((p) => p.needs).sort((a, b) => needsOf(a).fromDay - needsOf(b).fromDay);
  const out: IncidentPlan[][] = [];
  let batch: IncidentPlan[] = [];
  let wanted = new Set<number>();
  let from = 0;
  let to = 0;
  let measures = new Set<string>();
  for (const p of sorted) {
    const n = needsOf(p);
    const nextFrom = batch.length ? Math.min(from, n.fromDay) : n.fromDay;
    const nextTo = batch.length ? Math.max(to, n.toDay) : n.toDay;
    const nextMeasures = new Set([...measures, ...blockReadsOf(n.measure)]);
    const leaves = leavesOf(p);
    let size = wanted.size;
    for (const r of leaves) if (!wanted.has(r)) size++;
    if (batch.length && size * (nextTo - nextFrom + 1) * nextMeasures.size > cells) {
      out.push(batch);
      batch = [];
      wanted = new Set();
      measures = new Set(blockReadsOf(n.measure));
      from = n.fromDay;
      to = n.toDay;
    } else {
      from = nextFrom;
      to = nextTo;
      measures = nextMeasures;
    }
    batch.push(p);
    for (const r of leaves) wanted.add(r);
  }
  if (batch.length) out.push(batch);
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
      ...ratioEffectOf(c),
    };
  });
}

/** A ratio cause's kind (lib/incidents/ratio-contributions.ts), else nothing. */
function ratioEffectOf(c: Explanation['causes'][number]): Pick<IncidentCause, 'effect' | 'mixOf'> {
  const r = c as Partial<RatioCause>;
  return {
    ...(r.effect !== undefined ? { effect: r.effect } : {}),
    ...(r.mixOf !== undefined ? { mixOf: r.mixOf } : {}),
  };
}

/** A stable name of a group of records (their keys, in any order). */
function groupHash(keys: readonly string[]): string {
  return createHash('sha1')
    .update([...keys].sort().join('\n'))
    .digest('base64url');
}

interface Explained {
  plan: IncidentPlan;
  explainedFrom: string;
  broad: IncidentBroad;
  rootCauses: IncidentCause[];
}

/** Rounds of splitting after which a group is kept whole (each round only makes groups smaller). */
const MAX_ROUNDS = 6;

/**
 * The incidents whose head lies within another's specific root cause, moved the same way over its days,
 * joined to it (absorb.ts): `done` is changed in place.
 */
function absorbIncidents(
  done: Explained[],
  records: readonly MemberRecord[],
  catalog: SeriesCatalog,
  opts: IncidentOptions,
): void {
  const target = absorbInto(
    done.map((d) => {
      const head = records[d.plan.head];
      const causes: Int32Array[] = [];
      for (const c of d.rootCauses) {
        const row = c.broad || c.seriesId === null ? undefined : catalog.byId.get(c.seriesId);
        if (row !== undefined) causes.push(catalog.codes[row]);
      }
      return {
        head,
        startDay: head.startDay,
        endDay: head.endDay,
        firstDay: d.plan.startDay,
        lastDay: d.plan.endDay,
        echoesOnly: d.plan.members.every((m) => !ownBaseline(records[m]) && inUnits(records[m])),
        causes,
        size: d.plan.members.length,
      };
    }),
    opts.grouping.slackDays,
  );
  if (target.every((t) => t < 0)) return;
  const joined = new Map<number, number[]>();
  target.forEach((t, i) => {
    if (t < 0) return;
    const list = joined.get(t);
    if (list) list.push(...done[i].plan.members);
    else joined.set(t, [...done[i].plan.members]);
  });
  const kept = done.filter((_, i) => target[i] < 0);
  for (const [t, members] of joined) {
    const d = done[t];
    d.plan = planGroup(records, [...d.plan.members, ...members], opts, d.plan.head);
  }
  done.splice(0, done.length, ...kept);
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
  const previous = await readStoredIncidents(db, schema);
  const t1 = performance.now();
  const lattice = latticeOf(view);
  const keyOf = records.map((r) => memberKey(r));
  // An explanation is reused when the same group of records with the same head was explained before.
  const explainedBefore = new Map<string, (typeof previous)[number]>();
  for (const p of previous) if (p.explainedFrom) explainedBefore.set(`${p.headKey}|${p.explainedFrom}`, p);
  const done: Explained[] = [];
  let pending = planIncidents(records, opts);
  let explained = 0;
  let leavesMs = 0;
  const read: LeafBlock[] = [];
  const leafIndex = leafIndexOf(catalog);
  for (let round = 0; pending.length > 0; round++) {
    const hashes = pending.map((p) => groupHash(p.members.map((i) => keyOf[i])));
    const kept = pending.map((p, i) => explainedBefore.get(`${keyOf[p.head]}|${hashes[i]}`));
    const explanations = new Map<IncidentPlan, Explanation>();
    const toExplain = pending.filter((_, i) => kept[i] === undefined);
    for (const p of toExplain) if (!p.needs) explanations.set(p, explainPlan(lattice, records, p, [], opts));
    // Batch by batch, so that only one batch's leaves are in memory at a time.
    for (const batch of leafBatches(toExplain, (p) => leavesUnder(leafIndex, catalog, p.needs!.codes))) {
      const tl = performance.now();
      const leaves = await readLeaves(db, view.source, catalog, leafIndex, batch, read);
      leavesMs += performance.now() - tl;
      for (const p of batch) explanations.set(p, explainPlan(lattice, records, p, leaves.get(p) ?? [], opts));
    }
    const next: number[][] = [];
    pending.forEach((p, i) => {
      const head = records[p.head];
      const prev = kept[i];
      let broad: IncidentBroad;
      let rootCauses: IncidentCause[];
      let out: number[];
      if (prev) {
        broad = prev.broad;
        rootCauses = prev.rootCauses;
        const stays = new Set(prev.memberKeys);
        out = p.members.filter((m) => !stays.has(keyOf[m]));
      } else {
        const x = explanations.get(p) as Explanation;
        explained++;
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
        out = round + 1 < MAX_ROUNDS ? splitOff(records, p, x, opts) : [];
      }
      const gone = new Set(out);
      const plan = out.length
        ? planGroup(
            records,
            p.members.filter((m) => !gone.has(m)),
            opts,
            p.head,
          )
        : p;
      done.push({ plan, explainedFrom: hashes[i], broad, rootCauses });
      if (out.length)
        for (const g of groupRecords(
          out.map((m) => records[m]),
          opts.grouping,
        ))
          next.push(g.map((k) => out[k]));
    });
    pending = next.map((g) => planGroup(records, g, opts));
  }
  absorbIncidents(done, records, catalog, opts);
  const keys = done.map((d) => d.plan.members.map((i) => keyOf[i]));
  const match = continueByTrace(
    matchPrevious(keys, previous),
    done.map((d) => ({
      result: records[d.plan.head].result,
      seriesId: d.broad.seriesId,
      startDay: d.plan.startDay,
      endDay: d.plan.endDay,
    })),
    previous,
  );
  const rows: IncidentRow[] = done.map((d, i) => {
    const p = d.plan;
    const prev = match[i] >= 0 ? previous[match[i]] : undefined;
    return {
      id: prev?.id ?? null,
      result: records[p.head].result,
      measures: p.measures,
      types: p.types,
      startDay: p.startDay,
      endDay: p.endDay,
      size: p.members.length,
      broad: d.broad,
      rootCauses: d.rootCauses,
      head: records[p.head],
      memberKeys: keys[i],
      memberIds: p.members.map((m) => records[m].id),
      firstSeenAt: prev?.firstSeenAt ?? null,
      firstSeenJob: prev?.firstSeenJob ?? null,
      explainedFrom: d.explainedFrom,
    };
  });
  const t3 = performance.now();
  const ids = await writeIncidents(db, schema, rows, jobId, new Map(previous.map((p) => [p.id, p])));
  const created = ids.filter((_, i) => rows[i].id === null);
  // Feedback given on an event reaches the members it gained since (docs/feedback.md).
  const carried = await carryIncidentFeedback(
    db,
    view.id,
    done.map((d, i) => ({
      id: ids[i],
      result: records[d.plan.head].result,
      startDay: d.plan.startDay,
      endDay: d.plan.endDay,
      members: d.plan.members.map((m) => records[m]),
      rootCauses: d.rootCauses,
    })),
    names,
    (seriesId) => {
      const row = catalog.byId.get(seriesId);
      return row === undefined ? undefined : catalog.values[row];
    },
  );
  // An id a regrouping dissolved answers where its records went (GET …/incidents/{id}); a dismissed one whose
  // records detection no longer reports, the incidents that inherited its feedback.
  await writeMoves(db, schema, withHeirMoves(movesOf(previous, rows, ids), carried.heirs, ids), ids);
  const t4 = performance.now();
  const ms = t4 - t0;
  const phases = {
    read: Math.round(t1 - t0),
    leaves: Math.round(leavesMs),
    explain: Math.round(t3 - t1 - leavesMs),
    write: Math.round(t4 - t3),
  };
  deps.log?.info('incidents built', {
    dataViewId: view.id,
    records: records.length,
    incidents: rows.length,
    created: created.length,
    explained,
    feedbackCarried: carried.carried,
    ms: Math.round(ms),
    phases,
  });
  return { incidents: rows.length, records: records.length, created, explained, ms, phases };
}
