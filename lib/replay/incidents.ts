/**
 * The incidents a change would add, remove, change, split and merge. Pure: the records of both sides are
 * grouped by the grouping every cycle uses (lib/incidents/plan.ts `planIncidents`: same result, windows
 * that meet, the same series or a related one that explains the change), nothing is explained or stored,
 * and the groups of the stored records are matched with those of the replayed ones by the records they
 * share. Both sides are grouped alike, so a definition that changes nothing changes no incident.
 */
import { fromEpochDay, toEpochDay } from '../calendar/days';
import type { MemberRecord } from '../incidents/grouping';
import { matchPrevious, sameKeys } from '../incidents/identity';
import { INCIDENT_DEFAULTS, planIncidents } from '../incidents/plan';
import { byRecord, inOrder } from './diff';
import type { ReplayIncident, ReplayIncidentDiff, ReplayRecord } from './types';

/** A record's stable key, as incidents name their members (series, measure, type, start). */
const keyOf = (r: ReplayRecord) => `${r.seriesId}:${r.measure}:${r.type}:${r.startDate}`;

interface Group {
  incident: ReplayIncident;
  keys: string[];
}

/** The most frequent non-null value (the smallest on a tie); null when there is none. */
function mostOf(ids: ReadonlyArray<number | null>): number | null {
  const n = new Map<number, number>();
  for (const id of ids) if (id !== null) n.set(id, (n.get(id) ?? 0) + 1);
  let best: number | null = null;
  for (const [id, c] of n)
    if (best === null || c > (n.get(best) as number) || (c === n.get(best) && id < best)) best = id;
  return best;
}

/**
 * The records grouped into incidents as a cycle groups them. `codesOf` gives a series' category codes
 * (lib/incidents/store.ts readCatalog); records of series it does not know are left out, as a cycle does.
 */
export function groupIncidents(
  records: readonly ReplayRecord[],
  codesOf: (seriesId: number) => Int32Array | undefined,
): Group[] {
  const kept: ReplayRecord[] = [];
  const members: MemberRecord[] = [];
  for (const r of records) {
    const codes = codesOf(r.seriesId);
    if (!codes) continue;
    kept.push(r);
    members.push({
      id: members.length,
      seriesId: r.seriesId,
      codes,
      measure: r.measure,
      type: r.type,
      result: r.result,
      startDay: toEpochDay(r.startDate),
      endDay: toEpochDay(r.endDate),
      actualValue: r.actualValue,
      predictedValue: r.predictedValue,
      changeCum: r.changeCum,
      // Relative strength is computed at publishing, over the whole table: neither side has it here.
      sin: null,
    });
  }
  return planIncidents(members, INCIDENT_DEFAULTS).map((p) => ({
    keys: p.members.map((i) => keyOf(kept[i])),
    incident: {
      storedId: mostOf(p.members.map((i) => kept[i].incidentId)),
      result: kept[p.head].result,
      startDate: fromEpochDay(p.startDay),
      endDate: fromEpochDay(p.endDay),
      size: p.members.length,
      measures: p.measures,
      types: p.types,
      head: kept[p.head],
    },
  }));
}

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const newestFirst = (a: ReplayIncident, b: ReplayIncident) =>
  text(b.startDate, a.startDate) || b.size - a.size || byRecord(a.head, b.head);

/**
 * The stored groups (`was`) and the replayed ones (`now`) that share records, as connected parts: each
 * part's stored and replayed groups (indices). A group that shares no record with the other side is a
 * part of its own.
 */
function partsOf(was: readonly Group[], now: readonly Group[]): Array<{ was: number[]; now: number[] }> {
  const owner = new Map<string, number>();
  was.forEach((g, j) => {
    for (const k of g.keys) owner.set(k, j);
  });
  // Union-find over stored groups 0..W-1 and replayed groups W..W+N-1.
  const up = Array.from({ length: was.length + now.length }, (_, i) => i);
  const find = (i: number): number => {
    while (up[i] !== i) i = up[i] = up[up[i]];
    return i;
  };
  now.forEach((g, i) => {
    for (const k of g.keys) {
      const j = owner.get(k);
      if (j !== undefined) up[find(was.length + i)] = find(j);
    }
  });
  const parts = new Map<number, { was: number[]; now: number[] }>();
  const partOf = (i: number) => {
    const root = find(i);
    let p = parts.get(root);
    if (!p) parts.set(root, (p = { was: [], now: [] }));
    return p;
  };
  for (let j = 0; j < was.length; j++) partOf(j).was.push(j);
  for (let i = 0; i < now.length; i++) partOf(was.length + i).now.push(i);
  return [...parts.values()];
}

/** The stored incidents a replayed group shares records with (their ids, those that have one). */
function storedIdsOf(g: Group, was: readonly Group[], part: readonly number[]): number[] {
  const keys = new Set(g.keys);
  const ids = part
    .filter((j) => was[j].keys.some((k) => keys.has(k)))
    .map((j) => was[j].incident.storedId)
    .filter((id): id is number => id !== null);
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * Matches the incidents of the stored records (`before`) with those of the replayed ones (`after`) by the
 * records they share: a stored group sharing none is removed, a replayed one sharing none added; one
 * stored and one replayed group sharing records are the same incident, changed when their members
 * differ (with how many joined and left); one stored group whose records now fall into several replayed
 * ones is split, several stored into one replayed merged, and several into several regrouped. Each
 * replayed incident of a split, merge or regrouping names the stored incidents it shares records with
 * (`storedIds`); the one a cycle would give a stored id to (most shared members, lib/incidents/identity.ts)
 * carries it as `storedId`. Both sides are put in one order first (byRecord), so the answer does not
 * depend on the order the records were read in.
 */
export function diffIncidents(
  before: readonly ReplayRecord[],
  after: readonly ReplayRecord[],
  codesOf: (seriesId: number) => Int32Array | undefined,
  rowLimit: number,
): ReplayIncidentDiff {
  const was = groupIncidents(inOrder(before), codesOf);
  const now = groupIncidents(inOrder(after), codesOf);
  const match = matchPrevious(
    now.map((g) => g.keys),
    was.map((g, id) => ({ id, memberKeys: g.keys })),
  );
  const replayed = (i: number) => ({
    ...now[i].incident,
    storedId: match[i] < 0 ? null : was[match[i]].incident.storedId,
  });
  const out = emptyDiff(was.length, now.length);
  for (const part of partsOf(was, now)) {
    const [j] = part.was;
    const [i] = part.now;
    if (part.now.length === 0) out.removed.push(was[j].incident);
    else if (part.was.length === 0) out.added.push(now[i].incident);
    else if (part.was.length === 1 && part.now.length === 1) {
      if (sameKeys(was[j].keys, now[i].keys)) {
        out.counts.unchanged++;
        continue;
      }
      const old = new Set(was[j].keys);
      const fresh = new Set(now[i].keys);
      out.changed.push({
        before: was[j].incident,
        after: replayed(i),
        joined: now[i].keys.filter((k) => !old.has(k)).length,
        left: was[j].keys.filter((k) => !fresh.has(k)).length,
      });
    } else {
      const kind = part.was.length === 1 ? 'split' : part.now.length === 1 ? 'merged' : 'regrouped';
      out.regrouped.push({
        kind,
        before: part.was.map((x) => was[x].incident).sort(newestFirst),
        after: part.now
          .map((x) => ({ ...replayed(x), storedIds: storedIdsOf(now[x], was, part.was) }))
          .sort(newestFirst),
      });
    }
  }
  return finish(out, rowLimit);
}

function emptyDiff(before: number, after: number): ReplayIncidentDiff {
  return {
    counts: {
      before,
      after,
      added: 0,
      removed: 0,
      changed: 0,
      unchanged: 0,
      split: 0,
      merged: 0,
      regrouped: 0,
    },
    added: [],
    removed: [],
    changed: [],
    regrouped: [],
  };
}

/** Counts the lists, puts each newest first and cuts it to the row limit. */
function finish(d: ReplayIncidentDiff, rowLimit: number): ReplayIncidentDiff {
  d.added.sort(newestFirst);
  d.removed.sort(newestFirst);
  d.changed.sort((a, b) => newestFirst(a.after, b.after));
  d.regrouped.sort((a, b) => newestFirst(a.after[0], b.after[0]));
  Object.assign(d.counts, {
    added: d.added.length,
    removed: d.removed.length,
    changed: d.changed.length,
    split: d.regrouped.filter((r) => r.kind === 'split').length,
    merged: d.regrouped.filter((r) => r.kind === 'merged').length,
    regrouped: d.regrouped.filter((r) => r.kind === 'regrouped').length,
  });
  return {
    counts: d.counts,
    added: d.added.slice(0, rowLimit),
    removed: d.removed.slice(0, rowLimit),
    changed: d.changed.slice(0, rowLimit),
    regrouped: d.regrouped.slice(0, rowLimit),
  };
}
