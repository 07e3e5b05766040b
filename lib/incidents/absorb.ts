/**
 * One event is one incident (docs/incidents.md, "Grouping"): once every incident is explained, an incident
 * whose head lies within another incident's specific root cause (its series fixes the cause's categories), or
 * whose own specific root causes all do (the same event seen from a broader series),
 * moved the same way and overlaps that incident's window joins it, however small its share of the broad
 * change: a channel-wide gap is one row, not one more per hotel and leaf of the channel. An incident made
 * only of echoes (Peer, Mix) joins only an event that starts within a day of it. Pure.
 */
import { type MemberRecord, overlapDays } from './grouping';
import { levelOf } from './lattice';

export interface Absorbable {
  head: MemberRecord;
  /** The days of the incident's own event: its head's window. */
  startDay: number;
  endDay: number;
  /** Every member is a Peer or Mix record. */
  echoesOnly: boolean;
  /** The codes of its specific root causes (none when its cause is the broad series). */
  causes: readonly Int32Array[];
  size: number;
}

/** True when `inner` is `outer` or lies under it (each category `outer` fixes, `inner` fixes alike). */
function within(outer: Int32Array, inner: Int32Array): boolean {
  for (let k = 0; k < outer.length; k++) if (outer[k] !== 0 && outer[k] !== inner[k]) return false;
  return true;
}

/**
 * For each incident, the index of the incident it joins (-1: it stays its own). Among the incidents whose
 * cause holds its head, the one with the broadest such cause joins it (then the larger, then the first);
 * chains resolve to their end, so a leaf's incident inside a hotel's inside a channel's joins the channel's.
 */
export function absorbInto(incidents: readonly Absorbable[], slackDays = 1): number[] {
  const target = incidents.map((b, i) => {
    let best = -1;
    let bestLevel = Number.POSITIVE_INFINITY;
    incidents.forEach((a, j) => {
      if (j === i || a.causes.length === 0 || a.head.result !== b.head.result) return;
      if (b.echoesOnly ? Math.abs(b.startDay - a.startDay) > slackDays : overlapDays(a, b) === 0) return;
      let level = Number.POSITIVE_INFINITY;
      for (const c of a.causes)
        if (within(c, b.head.codes) || (b.causes.length > 0 && b.causes.every((own) => within(c, own))))
          level = Math.min(level, levelOf(c));
      if (level === Number.POSITIVE_INFINITY) return;
      if (level < bestLevel || (level === bestLevel && a.size > incidents[best].size))
        [best, bestLevel] = [j, level];
    });
    return best;
  });
  // A cycle (incidents in each other's causes) stays at its largest; then chains end at an incident that stays.
  for (let i = 0; i < target.length; i++) {
    const path: number[] = [];
    let at = i;
    while (at >= 0 && !path.includes(at)) {
      path.push(at);
      at = target[at];
    }
    if (at < 0) continue;
    const cycle = path.slice(path.indexOf(at));
    target[cycle.reduce((x, y) => (incidents[y].size > incidents[x].size ? y : x))] = -1;
  }
  return target.map((t) => {
    let at = t;
    while (at >= 0 && target[at] >= 0) at = target[at];
    return at;
  });
}
