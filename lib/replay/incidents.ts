/**
 * The incidents a change would add, remove and change. Pure: the records of both sides are grouped by the
 * grouping every cycle uses (lib/incidents/plan.ts `planIncidents`: same result, windows that meet, the
 * same series or a related one that explains the change), nothing is explained or stored, and the groups
 * of the stored records are matched with those of the replayed ones as incidents keep their ids
 * (lib/incidents/identity.ts: most shared members, one to one). Both sides are grouped alike, so a
 * definition that changes nothing changes no incident.
 */
import { fromEpochDay, toEpochDay } from '../calendar/days';
import type { MemberRecord } from '../incidents/grouping';
import { matchPrevious, sameKeys } from '../incidents/identity';
import { INCIDENT_DEFAULTS, planIncidents } from '../incidents/plan';
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

const newestFirst = (a: ReplayIncident, b: ReplayIncident) =>
  b.startDate.localeCompare(a.startDate) || b.size - a.size || a.head.seriesId - b.head.seriesId;

/**
 * Matches the incidents of the stored records (`before`) with those of the replayed ones (`after`):
 * an unmatched stored one is removed, an unmatched replayed one added, a matched one whose members
 * differ changed (with how many joined and left).
 */
export function diffIncidents(
  before: readonly ReplayRecord[],
  after: readonly ReplayRecord[],
  codesOf: (seriesId: number) => Int32Array | undefined,
  rowLimit: number,
): ReplayIncidentDiff {
  const was = groupIncidents(before, codesOf);
  const now = groupIncidents(after, codesOf);
  const match = matchPrevious(
    now.map((g) => g.keys),
    was.map((g, id) => ({ id, memberKeys: g.keys })),
  );
  const taken = new Set<number>();
  const added: ReplayIncident[] = [];
  const changed: ReplayIncidentDiff['changed'] = [];
  let unchanged = 0;
  now.forEach((g, i) => {
    const j = match[i];
    if (j < 0) {
      added.push(g.incident);
      return;
    }
    taken.add(j);
    const prev = was[j];
    if (sameKeys(prev.keys, g.keys)) {
      unchanged++;
      return;
    }
    const old = new Set(prev.keys);
    const fresh = new Set(g.keys);
    changed.push({
      before: prev.incident,
      after: { ...g.incident, storedId: prev.incident.storedId },
      joined: g.keys.filter((k) => !old.has(k)).length,
      left: prev.keys.filter((k) => !fresh.has(k)).length,
    });
  });
  const removed = was.filter((_, j) => !taken.has(j)).map((g) => g.incident);
  added.sort(newestFirst);
  removed.sort(newestFirst);
  changed.sort((a, b) => newestFirst(a.after, b.after));
  return {
    counts: {
      before: was.length,
      after: now.length,
      added: added.length,
      removed: removed.length,
      changed: changed.length,
      unchanged,
    },
    added: added.slice(0, rowLimit),
    removed: removed.slice(0, rowLimit),
    changed: changed.slice(0, rowLimit),
  };
}
