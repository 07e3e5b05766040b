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
      if (base > 0 && !Number.isNaN(x[t])) scratch[k++] = x[t] / base - 1;
    }
    voters[t] = k;
    if (k >= minPeers) {
      const sorted = scratch.subarray(0, k).sort();
      change[t] = k % 2 === 1 ? sorted[(k - 1) >> 1] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
    }
  }
  return { change, members: voters };
}

/** Number of children with a non-zero value (and source data, when presence is given) per day. */
export function buildCardinalityBaseline(
  children: readonly Float64Array[],
  presents?: readonly (Uint8Array | undefined)[],
): Float64Array {
  const n = children.length === 0 ? 0 : children[0].length;
  const counts = new Float64Array(n);
  for (let i = 0; i < children.length; i++) {
    const x = children[i];
    const present = presents?.[i];
    for (let t = 0; t < n; t++) {
      const v = x[t];
      if (v !== 0 && !Number.isNaN(v) && (present === undefined || present[t] !== 0)) counts[t]++;
    }
  }
  return counts;
}

/** Sum of the children per day: the parent values of the mix detector when no parent series is stored. */
export function sumSeries(series: readonly Float64Array[]): Float64Array {
  const n = series.length === 0 ? 0 : series[0].length;
  const out = new Float64Array(n);
  for (const x of series) for (let t = 0; t < n; t++) out[t] += x[t];
  return out;
}
