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
      let sum = 0;
      for (let w = 1; w <= weeks; w++) sum += x[t - 7 * w];
      const base = sum / weeks;
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
 * `minLevels`, only the children that are material count: from when their mean over the 56 days before
 * reaches their level (the cardinality detector's minVolume in the child's units) until it falls
 * below half of it.
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
    // Materiality: the child counts on a day (with or without data) only while it is material: from
    // when the mean of its MATERIAL_DAYS days before (fewer in a view's first weeks, at least 7) reaches minLevel until it falls below half of
    // it (so that a child near the level does not flicker in and out), so that a child selling a
    // few rooms a week neither appears nor disappears.
    let sum = 0;
    let isMaterial = minLevel <= 0;
    for (let t = 0; t < n; t++) {
      const v = x[t];
      if (minLevel > 0 && t >= MATERIAL_MIN_DAYS) {
        // The days before, up to MATERIAL_DAYS (a young view judges on the weeks it has).
        const mean = sum / Math.min(t, MATERIAL_DAYS);
        if (isMaterial ? mean < minLevel / 2 : mean >= minLevel) isMaterial = !isMaterial;
      }
      const material = isMaterial;
      if (material && v !== 0 && !Number.isNaN(v) && (present === undefined || present[t] !== 0)) counts[t]++;
      if (minLevel > 0) {
        if (!Number.isNaN(v)) sum += v;
        if (t >= MATERIAL_DAYS) {
          const old = x[t - MATERIAL_DAYS];
          if (!Number.isNaN(old)) sum -= old;
        }
      }
    }
  }
  return counts;
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
