/**
 * Grouping the anomaly records of one view into incidents (docs/incidents.md, "Grouping"): two records
 * are one event when they have the same result, their windows overlap or touch (a day either side), and
 *   - they are on the same series (any detector, any measure: more revenue and more bookings), or
 *   - one series is an ancestor of the other in the category lattice, both are on the same measure, and
 *     the more specific one's change explains a material part of the broader one's over the overlap.
 * The links are transitive: a leaf, its hotel, its district and the grand total are one incident.
 * Then a group made only of Peer and Mix records (the siblings that look low next to a spike) joins the
 * event it echoes (`attachEchoes`); an echo never links two events.
 */
import { isAncestor, levelOf } from './lattice';

export interface MemberRecord {
  id: number;
  seriesId: number;
  codes: Int32Array;
  measure: string;
  type: string;
  result: 'Positive' | 'Negative';
  /** Epoch days, inclusive. */
  startDay: number;
  endDay: number;
  /** Per day over the judged days (as stored). */
  actualValue: number | null;
  predictedValue: number | null;
  /** Total change over the window. */
  changeCum: number | null;
  /** Share of the view's total of the same measure over the window, percent (null when unknown). */
  sharePct?: number | null;
  sin: number | null;
}

export interface GroupingOptions {
  /** Days two windows may be apart and still be one event. */
  slackDays: number;
  /** Least share of the broader series' daily change that the specific one's daily change must be. */
  minExplained: number;
}

export const GROUPING_DEFAULTS: GroupingOptions = { slackDays: 1, minExplained: 0.25 };

class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r];
    while (this.parent[i] !== r) {
      const next = this.parent[i];
      this.parent[i] = r;
      i = next;
    }
    return r;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** The measure that is value ÷ count (lib/process-job/ratio.ts): not a sum over the leaves. */
const RATIO = 'ratio';

/** Types whose actual and predicted values are not in the measure's units (Cardinality counts children). */
const NOT_IN_UNITS = new Set(['Cardinality']);

/** True when the record's values are amounts of its measure (they can be compared across series). */
export function inUnits(r: Pick<MemberRecord, 'type'>): boolean {
  return !NOT_IN_UNITS.has(r.type);
}

/** actual ÷ predicted − 1 (0 when nothing was predicted). */
export const relativeChange = (r: MemberRecord) =>
  r.predictedValue && r.actualValue !== null ? r.actualValue / Math.abs(r.predictedValue) - 1 : 0;

const days = (r: MemberRecord) => r.endDay - r.startDay + 1;
const daily = (r: MemberRecord) => (r.changeCum ?? 0) / Math.max(1, days(r));

/** Days the two windows share (0 when they only touch). */
export function overlapDays(
  a: Pick<MemberRecord, 'startDay' | 'endDay'>,
  b: Pick<MemberRecord, 'startDay' | 'endDay'>,
): number {
  return Math.max(0, Math.min(a.endDay, b.endDay) - Math.max(a.startDay, b.startDay) + 1);
}

/**
 * True when `part`'s change over the days it shares with `whole` (at least one: windows that touch) is
 * at least `min` of `whole`'s change over its whole window, in the same direction (both on one measure).
 * A three-day spike does not explain a quarter's change; a gap explains the week it emptied.
 */
export function explains(part: MemberRecord, whole: MemberRecord, min: number): boolean {
  const total = whole.changeCum ?? 0;
  if (total === 0) return false;
  return (daily(part) * Math.max(1, overlapDays(part, whole))) / total >= min;
}

/**
 * True when two records of related series moved alike (the ripple of one event: every part of a
 * department that dropped by two thirds dropped by about two thirds) over windows that mostly coincide.
 */
function alike(a: MemberRecord, b: MemberRecord): boolean {
  const ra = relativeChange(a);
  const rb = relativeChange(b);
  if (ra === 0 || rb === 0) return false;
  const ratio = ra / rb;
  return ratio >= 0.5 && ratio <= 2 && overlapDays(a, b) * 2 >= Math.max(days(a), days(b));
}

/** Detectors that judge a series against its siblings or its parent: a sibling's event moves them too. */
const RELATIVE = new Set(['Peer', 'Mix']);

/** True when the record's expectation is the series' own history (not corrected by other series). */
export function ownBaseline(r: Pick<MemberRecord, 'type'>): boolean {
  return inUnits(r) && !RELATIVE.has(r.type);
}

/**
 * True when `echo`'s series stands beside `event`'s branch of the lattice: they differ in one category
 * that both fix, and every other category `echo` fixes is fixed alike in `event` (a sibling of the event's
 * series or of one of its ancestors: Moravia beside Bohemia/Prague/web, Plzen beside Prague/web).
 */
export function besideBranch(echo: Int32Array, event: Int32Array): boolean {
  let diff = 0;
  for (let k = 0; k < echo.length; k++) {
    if (echo[k] === 0 || echo[k] === event[k]) continue;
    if (event[k] === 0) return false;
    diff++;
  }
  return diff === 1;
}

/**
 * An echo: a Peer or Mix record that sees a series move against its siblings when a series beside it had
 * the event (one channel spiking makes the others look low next to it), in the opposite direction and
 * smaller, on its own window: it starts within a day of the event (a record of another start date is
 * another event's).
 */
export function echoes(relative: MemberRecord, event: MemberRecord, slackDays: number): boolean {
  return (
    RELATIVE.has(relative.type) &&
    !RELATIVE.has(event.type) &&
    inUnits(event) &&
    relative.result !== event.result &&
    Math.abs(relative.startDay - event.startDay) <= slackDays &&
    besideBranch(relative.codes, event.codes) &&
    Math.abs(relativeChange(event)) >= Math.abs(relativeChange(relative))
  );
}

/**
 * A Cardinality record (children with a value, counted) and a child that went missing or appeared: a
 * direct child whose record is a gap or a change of at least 80 %, in the same direction.
 */
function counts(cardinality: MemberRecord, child: MemberRecord): boolean {
  return (
    cardinality.type === 'Cardinality' &&
    inUnits(child) &&
    levelOf(child.codes) === levelOf(cardinality.codes) + 1 &&
    isAncestor(cardinality.codes, child.codes) &&
    (child.type === 'Gap' || Math.abs(relativeChange(child)) >= 0.8)
  );
}

export function linked(a: MemberRecord, b: MemberRecord, opts: GroupingOptions): boolean {
  if (a.result !== b.result) return false;
  if (counts(a, b) || counts(b, a)) return true;
  if (!inUnits(a) || !inUnits(b)) return a.seriesId === b.seriesId && overlapDays(a, b) > 0;
  if (a.measure !== b.measure)
    // The value and the count of one series on the same days: one event that names both measures.
    return a.seriesId === b.seriesId && overlapDays(a, b) * 2 >= Math.min(days(a), days(b));
  if (a.seriesId === b.seriesId)
    return explains(a, b, opts.minExplained) || explains(b, a, opts.minExplained);
  const [broad, specific] = isAncestor(a.codes, b.codes)
    ? [a, b]
    : isAncestor(b.codes, a.codes)
      ? [b, a]
      : [null, null];
  if (broad === null || specific === null) return false;
  return explains(specific, broad, opts.minExplained) || alike(specific, broad);
}

/** The sets of the union-find over indices 0..n−1, each in index order. */
function groupsOf(n: number, uf: UnionFind): number[][] {
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const root = uf.find(i);
    const g = groups.get(root);
    if (g) g.push(i);
    else groups.set(root, [i]);
  }
  return [...groups.values()];
}

/**
 * The records that may be an echo's event, found by branch instead of among every record: for a series
 * that fixes the categories F, those (judged against their own history) that fix each category of F and
 * agree on all of them but one. Indices in ascending order, as a scan of every record meets them.
 */
function besideIndex(records: readonly MemberRecord[]): (echo: Int32Array) => number[] {
  const events: number[] = [];
  records.forEach((r, j) => {
    if (ownBaseline(r)) events.push(j);
  });
  const key = branchKeyOf(records);
  // By the echo's fixed categories (a bit mask) and the one where they differ: the event's codes on the others.
  const byBranch = new Map<number, Map<number | string, number[]>>();
  const indexOf = (mask: number, k: number) => {
    let index = byBranch.get(mask * 64 + k);
    if (!index) {
      index = new Map();
      for (const j of events) {
        const codes = records[j].codes;
        let fixesAll = true;
        for (let f = 0; f < codes.length; f++) if (mask & (1 << f) && codes[f] === 0) fixesAll = false;
        if (!fixesAll) continue;
        const at = key(codes, mask, k);
        const list = index.get(at);
        if (list) list.push(j);
        else index.set(at, [j]);
      }
      byBranch.set(mask * 64 + k, index);
    }
    return index;
  };
  return (echo) => {
    let mask = 0;
    for (let k = 0; k < echo.length; k++) if (echo[k] !== 0) mask |= 1 << k;
    const out: number[] = [];
    for (let k = 0; k < echo.length; k++) {
      if (echo[k] === 0) continue;
      for (const j of indexOf(mask, k).get(key(echo, mask, k)) ?? [])
        if (records[j].codes[k] !== echo[k]) out.push(j);
    }
    return out.length > 1 ? out.sort((a, b) => a - b) : out;
  };
}

/**
 * The codes on the categories of `mask` but `k` as one key: a number (mixed radix over the records'
 * largest codes) when it is exact, else text.
 */
function branchKeyOf(
  records: readonly MemberRecord[],
): (codes: Int32Array, mask: number, k: number) => number | string {
  const n = records[0]?.codes.length ?? 0;
  const radix = new Array<number>(n).fill(1);
  let exact = n <= 30;
  for (const r of records)
    for (let f = 0; f < n; f++) {
      if (r.codes[f] < 0) exact = false;
      radix[f] = Math.max(radix[f], r.codes[f] + 1);
    }
  if (radix.reduce((a, b) => a * b, 1) > Number.MAX_SAFE_INTEGER) exact = false;
  return (codes, mask, k) => {
    if (!exact) {
      let text = '';
      for (let f = 0; f < n; f++) if (mask & (1 << f) && f !== k) text += `${codes[f]},`;
      return text;
    }
    let key = 0;
    for (let f = 0; f < n; f++) key = key * radix[f] + (mask & (1 << f) && f !== k ? codes[f] : 0);
    return key;
  };
}

/**
 * The echo-only groups (every record a Peer or Mix record) join the event they echo: the largest
 * (by total change) opposite-direction record of another group beside whose branch they stand, starting
 * within a day of it, else a record of the same series and direction judged against its own history that
 * starts within a day (an event and its echoes are one incident, one alert). Only groups of echoes move,
 * each to one event, so an echo never links two events.
 */
function attachEchoes(records: readonly MemberRecord[], uf: UnionFind, opts: GroupingOptions): void {
  const echoOnly = groupsOf(records.length, uf).filter((g) => g.every((i) => RELATIVE.has(records[i].type)));
  const moves: [number, number][] = [];
  const beside = besideIndex(records);
  const ownOf = new Map<number, number[]>();
  records.forEach((r, j) => {
    if (!ownBaseline(r)) return;
    const list = ownOf.get(r.seriesId);
    if (list) list.push(j);
    else ownOf.set(r.seriesId, [j]);
  });
  for (const group of echoOnly) {
    let best = -1;
    let bestSize = 0;
    for (const i of group)
      for (const j of beside(records[i].codes)) {
        if (!echoes(records[i], records[j], opts.slackDays)) continue;
        const size = Math.abs(records[j].changeCum ?? 0);
        if (best < 0 || size > bestSize) [best, bestSize] = [j, size];
      }
    // The series' own record of the same direction that starts within a day (its share fell as it fell).
    if (best < 0)
      for (const i of group)
        for (const j of ownOf.get(records[i].seriesId) ?? []) {
          const r = records[j];
          if (r.result !== records[i].result || Math.abs(r.startDay - records[i].startDay) > opts.slackDays)
            continue;
          const size = Math.abs(r.changeCum ?? 0);
          if (best < 0 || size > bestSize) [best, bestSize] = [j, size];
        }
    if (best >= 0) moves.push([group[0], best]);
  }
  // After the search: a group attached first must not become another echo group's event.
  for (const [echo, event] of moves) uf.union(echo, event);
}

/** The records split into incidents: lists of indices into `records`, each in input order. */
export function groupRecords(
  records: readonly MemberRecord[],
  opts: GroupingOptions = GROUPING_DEFAULTS,
): number[][] {
  const uf = new UnionFind(records.length);
  // Only records of one result link: rises and falls are compared apart.
  for (const result of ['Positive', 'Negative']) {
    const order = records
      .map((_, i) => i)
      .filter((i) => records[i].result === result)
      .sort((i, j) => records[i].startDay - records[j].startDay || i - j);
    for (let x = 0; x < order.length; x++) {
      const a = records[order[x]];
      for (let y = x + 1; y < order.length; y++) {
        const b = records[order[y]];
        if (b.startDay > a.endDay + opts.slackDays) break;
        if (linked(a, b, opts)) uf.union(order[x], order[y]);
      }
    }
  }
  attachEchoes(records, uf, opts);
  return groupsOf(records.length, uf);
}

/**
 * The broadest series of an incident's records (those judged against their own history when there are any,
 * else those in the measure's units): the fewest fixed categories, then the one that contains most members,
 * then the largest change; its strongest record (highest SIN) heads the incident.
 */
export function headOf(records: readonly MemberRecord[], all: readonly number[]): number {
  // Records judged against their own history head an incident when there are any (not an echo: a Peer or
  // Mix record that looked low next to the event), else records in the measure's units (a row's figures
  // are amounts).
  const own = all.filter((i) => ownBaseline(records[i]));
  const inUnitsOnly = all.filter((i) => inUnits(records[i]));
  const members = own.length > 0 ? own : inUnitsOnly.length > 0 ? inUnitsOnly : all;
  let best = members[0];
  const contained = (i: number) =>
    members.reduce(
      (n, j) =>
        n +
        (records[j].seriesId === records[i].seriesId || isAncestor(records[i].codes, records[j].codes)
          ? 1
          : 0),
      0,
    );
  const score = (i: number) => [
    -levelOf(records[i].codes),
    contained(i),
    Math.abs(records[i].changeCum ?? 0),
    records[i].sin ?? -1,
  ];
  let bestScore = score(best);
  for (const i of members.slice(1)) {
    const s = score(i);
    for (let k = 0; k < s.length; k++) {
      if (s[k] === bestScore[k]) continue;
      if (s[k] > bestScore[k]) {
        best = i;
        bestScore = s;
      }
      break;
    }
  }
  // The strongest record of that series: one in the measure's units when there is one, then one of an
  // additive measure (value, count) before a ratio of them. The change of a sum is the sum of its leaves'
  // changes; an aggregate's ratio (value per event) also moves when only the mix moved (one dear
  // department's orders doubled), which no leaf's own ratio shows, so the ratio cannot be explained
  // from the leaves when the value can.
  const series = records[best].seriesId;
  const rank = (i: number) => [
    inUnits(records[i]) ? 1 : 0,
    records[i].measure === RATIO ? 0 : 1,
    records[i].sin ?? -1,
  ];
  let bestRank = rank(best);
  for (const i of members) {
    if (records[i].seriesId !== series) continue;
    const r = rank(i);
    const k = r.findIndex((x, j) => x !== bestRank[j]);
    if (k >= 0 && r[k] > bestRank[k]) [best, bestRank] = [i, r];
  }
  return best;
}
