/**
 * From records to incidents (docs/incidents.md): the records grouped into events, each event's head
 * (the strongest record of its broadest series) and what explaining it needs, then the explanation
 * from the leaves under the broad series. Pure: the caller reads the leaves.
 */
import {
  explains,
  type GroupingOptions,
  GROUPING_DEFAULTS,
  groupRecords,
  headOf,
  inUnits,
  echoes,
  linked,
  type MemberRecord,
  overlapDays,
  ownBaseline,
  relativeChange,
} from './grouping';
import { codesKey, isLeaf, type Lattice } from './lattice';
import { historyDays, type LeafDays, leafChanges } from './leaf-window';
import { explainRatio, ratioLeaves, scaledToRatio } from './ratio-contributions';
import { type Explanation, explainChange, ROOT_CAUSE_DEFAULTS, type RootCauseOptions } from './root-cause';

export interface IncidentPlan {
  /** Indices into the records, the head first. */
  members: number[];
  head: number;
  /** Union of the members' windows (epoch days). */
  startDay: number;
  endDay: number;
  /** Every type and measure among the members; the head's first. */
  types: string[];
  measures: string[];
  /** The leaves to read to explain it (null when the broad series is a leaf: it is its own cause). */
  needs: {
    codes: Int32Array;
    measure: string;
    fromDay: number;
    toDay: number;
    window: [number, number];
  } | null;
}

export interface IncidentOptions {
  grouping: GroupingOptions;
  rootCause: RootCauseOptions;
  /** Weeks of baseline before a window. */
  weeks: number;
}

export const INCIDENT_DEFAULTS: IncidentOptions = {
  grouping: GROUPING_DEFAULTS,
  rootCause: ROOT_CAUSE_DEFAULTS,
  weeks: 4,
};

function firstOf<T>(head: T, all: T[]): T[] {
  return [head, ...[...new Set(all)].filter((x) => x !== head).sort()];
}

/** The plan of one group of records: its head, window, types, measures and what explaining it needs. */
export function planGroup(
  records: readonly MemberRecord[],
  group: readonly number[],
  opts: IncidentOptions = INCIDENT_DEFAULTS,
  head = headOf(records, group),
): IncidentPlan {
  const h = records[head];
  const members = [head, ...group.filter((i) => i !== head)];
  let startDay = h.startDay;
  let endDay = h.endDay;
  for (const i of members) {
    startDay = Math.min(startDay, records[i].startDay);
    endDay = Math.max(endDay, records[i].endDay);
  }
  return {
    members,
    head,
    startDay,
    endDay,
    types: firstOf(
      h.type,
      members.map((i) => records[i].type),
    ),
    measures: firstOf(
      h.measure,
      members.map((i) => records[i].measure),
    ),
    needs: isLeaf(h.codes)
      ? null
      : {
          codes: h.codes,
          measure: h.measure,
          fromDay: h.startDay - historyDays(opts.weeks),
          toDay: h.endDay,
          window: [h.startDay, h.endDay],
        },
  };
}

/** The incidents of the records and, for each, what its explanation needs (before any split). */
export function planIncidents(
  records: readonly MemberRecord[],
  opts: IncidentOptions = INCIDENT_DEFAULTS,
): IncidentPlan[] {
  return groupRecords(records, opts.grouping).map((group) => planGroup(records, group, opts));
}

/** True when two combinations fix one category to different values (no series lies under both). */
function conflicts(a: Int32Array, b: Int32Array): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== 0 && b[k] !== 0 && a[k] !== b[k]) return true;
  return false;
}

/** True when `inner` is `outer` or lies under it (each category `outer` fixes, `inner` fixes alike). */
function within(outer: Int32Array, inner: Int32Array): boolean {
  for (let k = 0; k < outer.length; k++) if (outer[k] !== 0 && outer[k] !== inner[k]) return false;
  return true;
}

/** How far apart two relative changes may be and still be one movement of a broad change. */
const BROAD_SPREAD = 3;

/**
 * The members of a planned incident that its explanation shows to be other events, reached through a
 * chain of links (a city's spike during a chain-wide season: the city's aggregate moved with both; a
 * month-long record that overlaps a week-long event). Of the records that move like the head (its
 * measure, its direction, in its units), a record of another series stays when it lies within a
 * specific root cause (it is the cause, or part of it), and is otherwise another event when
 *   - it lies outside every root cause (it fixes a category to another value than each cause does), or
 *   - most of its window lies outside the head's (a month's rise is not the week's spike), or
 *   - the cause is the broad series itself (everything moved alike) and its relative change is more than
 *     three times apart from the head's while it explains less than a material part of it.
 * Every other record (another measure, an echo of the other direction, a count of children) stays
 * while it is linked to a record that stays or echoes one. The head always stays.
 */
export function splitOff(
  records: readonly MemberRecord[],
  plan: IncidentPlan,
  x: Pick<Explanation, 'broad' | 'causes'>,
  opts: IncidentOptions = INCIDENT_DEFAULTS,
): number[] {
  const h = records[plan.head];
  const hr = relativeChange(h);
  const apart = (r: MemberRecord) => {
    if (!x.broad || hr === 0) return false;
    const ratio = relativeChange(r) / hr;
    return (ratio > BROAD_SPREAD || ratio < 1 / BROAD_SPREAD) && !explains(r, h, opts.grouping.minExplained);
  };
  const stays = new Set<number>([plan.head]);
  const others: number[] = [];
  const rest: number[] = [];
  // The event's window: the head's and that of the members within a specific root cause (the cause's own
  // records), so a record between the broad series and the cause is judged against the days the cause moved.
  const window = { startDay: h.startDay, endDay: h.endDay };
  for (const i of plan.members) {
    if (i === plan.head) continue;
    const r = records[i];
    if (r.measure !== h.measure || r.result !== h.result || !inUnits(r)) {
      others.push(i);
      continue;
    }
    if (r.seriesId === h.seriesId || (!x.broad && x.causes.some((c) => within(c.codes, r.codes)))) {
      stays.add(i);
      if (r.seriesId !== h.seriesId) {
        window.startDay = Math.min(window.startDay, r.startDay);
        window.endDay = Math.max(window.endDay, r.endDay);
      }
    } else rest.push(i);
  }
  for (const i of rest) {
    const r = records[i];
    if (x.causes.every((c) => conflicts(c.codes, r.codes))) continue;
    else if (overlapDays(r, window) * 2 < r.endDay - r.startDay + 1) continue;
    else if (apart(r)) continue;
    else stays.add(i);
  }
  // The rest stay while linked to a record that stays, or echo one (links hold between windows that overlap
  // or touch, as grouping compares them).
  const slack = opts.grouping.slackDays;
  const near = (a: MemberRecord, b: MemberRecord) =>
    Math.max(a.startDay, b.startDay) <= Math.min(a.endDay, b.endDay) + slack;
  let grew = true;
  while (grew) {
    grew = false;
    for (const i of others) {
      if (stays.has(i)) continue;
      const r = records[i];
      for (const j of stays)
        if (near(r, records[j]) && (linked(r, records[j], opts.grouping) || echoes(r, records[j], slack))) {
          stays.add(i);
          grew = true;
          break;
        }
    }
  }
  return plan.members.filter((i) => !stays.has(i));
}

/**
 * The head's expected total over its window (per-day mean × days), when its detector's expectation is
 * the series' own history. Peer and Mix correct theirs by other series (a hotel "should" have risen with
 * its peers), which would make every leaf look moved; their windows keep the leaves' own baseline.
 */
function expectedTotal(r: MemberRecord, events: number | undefined): number | undefined {
  if (!ownBaseline(r)) return undefined;
  if (r.predictedValue === null || !Number.isFinite(r.predictedValue)) return undefined;
  // A ratio's prediction is per event: the value expected at the events that happened.
  if (r.measure === 'ratio') return events === undefined ? undefined : r.predictedValue * events;
  return r.predictedValue * (r.endDay - r.startDay + 1);
}

/** The leaves' events over days [s, e] of their arrays (a ratio's leaves carry them), else undefined. */
function eventsIn(leaves: readonly LeafDays[], s: number, e: number): number | undefined {
  if (!leaves.every((l) => l.counts !== undefined)) return undefined;
  let n = 0;
  for (const l of leaves) for (let t = s; t <= e; t++) n += (l.counts as Float64Array)[t] ?? 0;
  return n;
}

/**
 * The explanation of a planned incident from the leaves under its broad series (values from
 * `needs.fromDay` on). Without needs (a leaf), the leaf itself is the cause.
 */
export function explainPlan(
  lattice: Lattice,
  records: readonly MemberRecord[],
  plan: IncidentPlan,
  leaves: readonly LeafDays[],
  opts: IncidentOptions = INCIDENT_DEFAULTS,
): Explanation {
  const h = records[plan.head];
  const direction = h.result === 'Positive' ? 1 : -1;
  if (plan.needs === null || leaves.length === 0) {
    const days = h.endDay - h.startDay + 1;
    const actual = (h.actualValue ?? 0) * days;
    const expected = (h.predictedValue ?? 0) * days;
    const change = actual - expected;
    const changePct = Math.abs(expected) > 1e-9 ? (change / Math.abs(expected)) * 100 : null;
    return {
      actual,
      expected,
      change,
      changePct,
      causes: [
        {
          codes: h.codes,
          actual,
          expected,
          change,
          changePct,
          explainsPct: 100,
          z: 0,
          broad: plan.needs !== null,
        },
      ],
      cuboid: null,
      broad: plan.needs !== null,
    };
  }
  if (h.measure === 'ratio' && leaves.every((l) => l.counts !== undefined))
    return explainRatioPlan(lattice, records, plan, leaves, opts);
  const changes = leafChanges(leaves, {
    from: plan.needs.fromDay,
    start: h.startDay,
    end: h.endDay,
    weeks: opts.weeks,
    expectedTotal: expectedTotal(
      h,
      eventsIn(leaves, h.startDay - plan.needs.fromDay, h.endDay - plan.needs.fromDay),
    ),
  });
  return explainChange(lattice, h.codes, changes, {
    ...opts.rootCause,
    direction,
    flagged: flaggedOf(records, plan),
  });
}

/** The incident's own series in the head's direction and measure: named at one test's price. */
function flaggedOf(records: readonly MemberRecord[], plan: IncidentPlan): Set<string> {
  const h = records[plan.head];
  return new Set(
    plan.members
      .map((i) => records[i])
      .filter((r) => r.result === h.result && r.measure === h.measure)
      .map((r) => codesKey(r.codes)),
  );
}

/**
 * An incident headed by a ratio (value per event): the segments whose rate moved, or the mix
 * (lib/incidents/ratio-contributions.ts), over the head's window, its expected rate the detector's.
 */
function explainRatioPlan(
  lattice: Lattice,
  records: readonly MemberRecord[],
  plan: IncidentPlan,
  leaves: readonly LeafDays[],
  opts: IncidentOptions,
): Explanation {
  const h = records[plan.head];
  const needs = plan.needs as NonNullable<IncidentPlan['needs']>;
  const spec = { from: needs.fromDay, start: h.startDay, end: h.endDay, weeks: opts.weeks };
  const predicted =
    ownBaseline(h) && h.predictedValue !== null && Number.isFinite(h.predictedValue)
      ? h.predictedValue
      : undefined;
  return explainRatio(lattice, h.codes, scaledToRatio(ratioLeaves(leaves, spec), predicted), {
    ...opts.rootCause,
    direction: h.result === 'Positive' ? 1 : -1,
    flagged: flaggedOf(records, plan),
  });
}
