/**
 * Cross-series baselines for the peer and cardinality detectors, computed once per group and
 * stored in the data view's baseline tables (docs/detectors.md, "Baseline tables"). Pure
 * functions over aligned daily arrays; the worker decides which series form a group.
 */

export interface PeerBaselineOptions {
  /** Presence flags per member; a day without source data does not vote. */
  presents?: readonly (Uint8Array | undefined)[];
  /** Weeks of same-weekday history that define a member's normal level (default 4). */
  weeks?: number;
  /** Fewer voting members than this leave the day without a baseline (NaN). Default 3. */
  minPeers?: number;
  /**
   * Per member, the least normal level (its same-weekday mean) at which it votes: the peer detector's
   * minVolume in the member's units. A member selling a room or two a day changes by ±100 % at random;
   * its votes made a group of tiny channels "expect" 12 bookings where 3 were usual.
   */
  minLevels?: readonly number[];
}

export interface PeerBaseline {
  /** Median relative change of the members per day (0.1 = +10 %), NaN when too few voted. */
  change: Float64Array;
  /** Members that voted per day. */
  members: Uint16Array;
}

/**
 * Median over the members of each member's relative change against its own same-weekday mean of
 * the previous weeks. A member's peer detector expects it to move by this median.
 */
export function buildPeerBaseline(
  members: readonly Float64Array[],
  options: PeerBaselineOptions = {},
): PeerBaseline {
  const weeks = options.weeks ?? 4;
  const minPeers = options.minPeers ?? 3;
  const n = members.length === 0 ? 0 : members[0].length;
  const change = new Float64Array(n).fill(Number.NaN);
  const voters = new Uint16Array(n);
  const scratch = new Float64Array(members.length);
  const first = members.map((_, i) => {
    const present = options.presents?.[i];
    if (!present) return 0;
    let s = 0;
    while (s < n && present[s] === 0) s++;
    return s;
  });
  for (let t = 0; t < n; t++) {
    let k = 0;
    for (let i = 0; i < members.length; i++) {
      const x = members[i];
      const present = options.presents?.[i];
      if (t - 7 * weeks < first[i] || (present !== undefined && present[t] === 0)) continue;
      // Its normal level from the same weekdays that had source data: a day the source lacked (a load
      // that brought nothing) is no level, and a zero there made every member's next weeks look high.
      let sum = 0;
      let known = 0;
      for (let w = 1; w <= weeks; w++) {
        if (present !== undefined && present[t - 7 * w] === 0) continue;
        sum += x[t - 7 * w];
        known++;
      }
      if (known * 2 < weeks) continue;
      const base = sum / known;
      if (base > 0 && base >= (options.minLevels?.[i] ?? 0) && !Number.isNaN(x[t]))
        scratch[k++] = x[t] / base - 1;
    }
    voters[t] = k;
    if (k >= minPeers) {
      const sorted = scratch.subarray(0, k).sort();
      change[t] = k % 2 === 1 ? sorted[(k - 1) >> 1] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
    }
  }
  return { change, members: voters };
}

/**
 * Number of children with a non-zero value (and source data, when presence is given) per day; with
 * `minLevels`, only the children that are material count (see isMaterial).
 */
export function buildCardinalityBaseline(
  children: readonly Float64Array[],
  presents?: readonly (Uint8Array | undefined)[],
  minLevels?: readonly number[],
): Float64Array {
  const n = children.length === 0 ? 0 : children[0].length;
  const counts = new Float64Array(n);
  for (let i = 0; i < children.length; i++) {
    const x = children[i];
    const present = presents?.[i];
    const minLevel = minLevels?.[i] ?? 0;
    if (minLevel > 0 && !isMaterial(x, minLevel)) continue;
    for (let t = 0; t < n; t++) {
      const v = x[t];
      if (v !== 0 && !Number.isNaN(v) && (present === undefined || present[t] !== 0)) counts[t]++;
    }
  }
  return counts;
}

/**
 * Whether a child is material for cardinality: its mean over MATERIAL_DAYS days (counted from its
 * first non-zero day; at least MATERIAL_MIN_DAYS of them) reaches `minLevel` somewhere in the series.
 * A material child counts on every day it has a value, from its first (an opening is a new child on
 * the day it opens; a closing, the days it has nothing); a child selling a few rooms a week never
 * counts. Materiality is the child's, not the day's: a level that a child crosses as it grows or
 * fades with the season is not a child appearing or disappearing.
 */
function isMaterial(x: Float64Array, minLevel: number): boolean {
  const n = x.length;
  let first = -1;
  let sum = 0;
  for (let t = 0; t < n; t++) {
    const v = x[t];
    if (first < 0) {
      if (v === 0 || Number.isNaN(v)) continue;
      first = t;
    }
    if (!Number.isNaN(v)) sum += v;
    const days = t - first + 1;
    if (days > MATERIAL_DAYS) {
      const old = x[t - MATERIAL_DAYS];
      if (!Number.isNaN(old)) sum -= old;
    }
    if (days >= MATERIAL_MIN_DAYS && sum / Math.min(days, MATERIAL_DAYS) >= minLevel) return true;
  }
  return false;
}

/** Days of a child's history that decide whether it is material for cardinality. */
const MATERIAL_DAYS = 56;
/** Days of a child's history before it can be material at all. */
const MATERIAL_MIN_DAYS = 7;

/** Sum of the children per day: the parent values of the mix detector when no parent series is stored. */
export function sumSeries(series: readonly Float64Array[]): Float64Array {
  const n = series.length === 0 ? 0 : series[0].length;
  const out = new Float64Array(n);
  for (const x of series) for (let t = 0; t < n; t++) out[t] += x[t];
  return out;
}
