/**
 * One event is one incident (docs/incidents.md, "Grouping"): once every incident is explained, an incident
 * whose head lies within another incident's specific root cause (its series fixes the cause's categories), or
 * whose own specific root causes all do (the same event seen from a broader series),
 * moved the same way and overlaps that incident's window joins it, however small its share of the broad
 * change: a channel-wide gap is one row, not one more per hotel and leaf of the channel. An incident made
 * only of echoes (Peer, Mix) joins only an event that starts within a day of it. An incident of the other
 * direction that starts within a day after another's last day, within its cause (or its broad series when
 * the cause is the series itself, or on a series between the cause and the broad series) and lasts no
 * longer than it, is that event's **return** (the day after a
 * gap or a drop, the day after a spike) and joins it. Pure.
 */
import { type MemberRecord, overlapDays } from './grouping';
import { levelOf } from './lattice';

export interface Absorbable {
  head: MemberRecord;
  /** The days of the incident's own event: its head's window. */
  startDay: number;
  endDay: number;
  /** The days of all its members (the event's whole extent). */
  firstDay: number;
  lastDay: number;
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

/** The level of the broadest of `causes` that holds `b` (its head, or all its own causes); ∞ when none. */
function causeLevel(causes: readonly Int32Array[], b: Absorbable): number {
  let level = Number.POSITIVE_INFINITY;
  for (const c of causes)
    if (within(c, b.head.codes) || (b.causes.length > 0 && b.causes.every((own) => within(c, own))))
      level = Math.min(level, levelOf(c));
  return level;
}

/**
 * The event whose return incident `i` is (-1: none): of the other direction, starting within a day of the
 * day after its last day, no longer than it, within its cause (or its broad series when it has no specific
 * cause) or on a series between its cause and its broad series; the broadest such cause, then the larger
 * incident.
 */
function returnOf(incidents: readonly Absorbable[], i: number, slackDays: number): number {
  const b = incidents[i];
  let best = -1;
  let bestLevel = Number.POSITIVE_INFINITY;
  incidents.forEach((a, j) => {
    if (j === i || a.echoesOnly || a.head.result === b.head.result) return;
    if (Math.abs(b.firstDay - (a.lastDay + 1)) > slackDays) return;
    if (b.lastDay - b.firstDay > a.lastDay - a.firstDay) return;
    const causes = a.causes.length > 0 ? a.causes : [a.head.codes];
    let level = causeLevel(causes, b);
    // Or seen on a series between the cause and the broad series (the channel a gap of one segment emptied).
    if (level === Number.POSITIVE_INFINITY && within(a.head.codes, b.head.codes))
      if (causes.some((c) => within(b.head.codes, c))) level = levelOf(b.head.codes);
    if (level < bestLevel || (level === bestLevel && best >= 0 && a.size > incidents[best].size))
      [best, bestLevel] = [j, level];
  });
  return best;
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
      const level = causeLevel(a.causes, b);
      if (level === Number.POSITIVE_INFINITY) return;
      if (level < bestLevel || (level === bestLevel && a.size > incidents[best].size))
        [best, bestLevel] = [j, level];
    });
    return best >= 0 ? best : returnOf(incidents, i, slackDays);
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
