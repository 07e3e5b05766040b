/**
 * Incidents keep their id across detection runs while their membership holds (docs/incidents.md,
 * "Identity"): a new grouping's incident takes the id of the previous incident it shares the most member
 * records with (records by their stable key: series, measure, type, start date), one to one. An event
 * that grows by a day keeps its id; one that split keeps it on its larger part.
 */

export interface Previous {
  id: number;
  memberKeys: readonly string[];
}

/** What an incident is recognised by when it shares no record key with its previous self. */
export interface Trace {
  result: string;
  /** Its broad series. */
  seriesId: number;
  startDay: number;
  endDay: number;
}

/**
 * For the drafts `matchPrevious` left without a previous incident (-1), the unclaimed previous incident of the
 * same direction and broad series whose window overlaps or touches theirs (the most shared days first): an
 * event that grew by a day at its start has records of other start dates, so other keys, but is the same event.
 */
export function continueByTrace(
  match: number[],
  drafts: readonly Trace[],
  previous: readonly Trace[],
): number[] {
  const out = [...match];
  const taken = new Set(match.filter((j) => j >= 0));
  const pairs: Array<{ i: number; j: number; shared: number }> = [];
  drafts.forEach((d, i) => {
    if (out[i] !== -1) return;
    previous.forEach((p, j) => {
      if (taken.has(j) || p.result !== d.result || p.seriesId !== d.seriesId) return;
      if (p.startDay > d.endDay + 1 || d.startDay > p.endDay + 1) return;
      pairs.push({ i, j, shared: Math.min(p.endDay, d.endDay) - Math.max(p.startDay, d.startDay) });
    });
  });
  pairs.sort((a, b) => b.shared - a.shared || a.j - b.j || a.i - b.i);
  for (const p of pairs) {
    if (out[p.i] !== -1 || taken.has(p.j)) continue;
    out[p.i] = p.j;
    taken.add(p.j);
  }
  return out;
}

/** For each draft (its member keys), the index of the previous incident it continues, or -1. */
export function matchPrevious(
  drafts: ReadonlyArray<readonly string[]>,
  previous: readonly Previous[],
): number[] {
  const owner = new Map<string, number>();
  previous.forEach((p, j) => {
    for (const k of p.memberKeys) owner.set(k, j);
  });
  const pairs: Array<{ i: number; j: number; shared: number; jaccard: number }> = [];
  drafts.forEach((keys, i) => {
    const shared = new Map<number, number>();
    for (const k of keys) {
      const j = owner.get(k);
      if (j !== undefined) shared.set(j, (shared.get(j) ?? 0) + 1);
    }
    for (const [j, n] of shared)
      pairs.push({ i, j, shared: n, jaccard: n / (keys.length + previous[j].memberKeys.length - n) });
  });
  pairs.sort((a, b) => b.shared - a.shared || b.jaccard - a.jaccard || a.j - b.j || a.i - b.i);
  const out = new Array<number>(drafts.length).fill(-1);
  const taken = new Set<number>();
  for (const p of pairs) {
    if (out[p.i] !== -1 || taken.has(p.j)) continue;
    out[p.i] = p.j;
    taken.add(p.j);
  }
  return out;
}

/** True when two key lists hold the same keys. */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((k) => set.has(k));
}
