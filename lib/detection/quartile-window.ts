/**
 * A sliding window of the last `capacity` numbers that tells whether a value lies outside the
 * window's Tukey fences (DT's rule) with exact quartiles, without keeping the window sorted:
 * a sorted insertion per push cost more than the rest of the detector.
 *
 * Two pivot values bracket each quartile for as long as the counts of window values below the
 * lower pivot and up to the upper one say so; those counts cost a few branch-free comparisons per
 * push. Most values lie well inside (or outside) every fence the brackets allow; only a value near
 * a fence needs the exact quartiles, found among the few values inside the brackets. A quartile
 * that leaves its bracket gets new pivots from a sorted copy of an earlier window (close enough,
 * and their counts are taken afresh); the window is sorted again only when that copy is too old.
 * Pushed values must not be NaN.
 */
import { sortRing } from './sorted-window';

export class QuartileWindow {
  private ring: Float64Array;
  /** The window as it was when last sorted: where new pivots are taken from. */
  private sorted: Float64Array;
  private sortedSize = 0;
  private band1: Float64Array;
  private band3: Float64Array;
  private capacity = 1;
  private head = 0;
  size = 0;
  /** [lo1, hi1, lo3, hi3]: lo1 <= Q1 <= hi1 and lo3 <= Q3 <= hi3 while the counts agree. */
  private readonly pivots = new Float64Array(4);
  /** Window values < lo1, <= hi1, < lo3, <= hi3. */
  private readonly counts = new Int32Array(4);
  /** Where each pivot sits in `sorted`. */
  private readonly at = new Int32Array(4);
  /** The fences' multiple of the IQR and the least IQR. */
  private k = 1.5;
  private minIqr = 0;
  /** See boundFences. */
  private readonly fences = new Float64Array(4);
  private ranksFor = -1;
  private l1 = 0;
  private l3 = 0;
  private frac1 = 0;
  private frac3 = 0;

  constructor(maxCapacity = 64) {
    this.ring = new Float64Array(maxCapacity);
    this.sorted = new Float64Array(maxCapacity);
    this.band1 = new Float64Array(maxCapacity);
    this.band3 = new Float64Array(maxCapacity);
  }

  /**
   * Empties the window and sets how many values it keeps, and the fences: Q1 - k·IQR and
   * Q3 + k·IQR (k > 0), the IQR taken as at least minIqr.
   */
  reset(capacity: number, k: number, minIqr: number): void {
    this.k = k;
    this.minIqr = minIqr;
    if (capacity > this.ring.length) {
      this.ring = new Float64Array(capacity);
      this.sorted = new Float64Array(capacity);
      this.band1 = new Float64Array(capacity);
      this.band3 = new Float64Array(capacity);
    }
    this.capacity = Math.max(1, capacity);
    this.head = 0;
    this.size = 0;
    this.sortedSize = 0;
    // Brackets that hold nothing: the first query sorts and places real pivots.
    this.pivots[0] = Number.POSITIVE_INFINITY;
    this.pivots[1] = Number.NEGATIVE_INFINITY;
    this.pivots[2] = Number.POSITIVE_INFINITY;
    this.pivots[3] = Number.NEGATIVE_INFINITY;
    this.counts.fill(0);
    this.ranksFor = -1;
    this.boundFences();
  }

  push(value: number): void {
    const p = this.pivots;
    const n = this.counts;
    if (this.size === this.capacity) {
      const old = this.ring[this.head];
      this.ring[this.head] = value;
      this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
      n[0] += Number(value < p[0]) - Number(old < p[0]);
      n[1] += Number(value <= p[1]) - Number(old <= p[1]);
      n[2] += Number(value < p[2]) - Number(old < p[2]);
      n[3] += Number(value <= p[3]) - Number(old <= p[3]);
      return;
    }
    // head is 0 until the window is full (see popNewest).
    this.ring[this.size++] = value;
    n[0] += Number(value < p[0]);
    n[1] += Number(value <= p[1]);
    n[2] += Number(value < p[2]);
    n[3] += Number(value <= p[3]);
  }

  /** Removes the `count` most recently pushed values (older evicted values do not come back). */
  popNewest(count: number): void {
    const k = Math.min(count, this.size);
    if (k === 0) return;
    const p = this.pivots;
    const n = this.counts;
    const r = this.ring;
    // Rotate the survivors to the front: while the window is not full its values are then
    // ring[0, size), which is all that the scans read.
    const t = this.band1;
    const keep = this.size - k;
    for (let i = 0, slot = this.head; i < this.size; i++, slot = slot + 1 === this.capacity ? 0 : slot + 1) {
      const v = r[slot];
      if (i < keep) t[i] = v;
      else {
        n[0] -= Number(v < p[0]);
        n[1] -= Number(v <= p[1]);
        n[2] -= Number(v < p[2]);
        n[3] -= Number(v <= p[3]);
      }
    }
    r.set(t.subarray(0, keep));
    this.head = 0;
    this.size = keep;
  }

  /**
   * +1 when value lies above the upper fence, -1 below the lower one, else 0; quartiles are
   * linear-interpolated as in SortedWindow.quantile. Needs a non-empty window.
   */
  flag(value: number): number {
    const size = this.size;
    if (size !== this.ranksFor) this.setRanks(size);
    const l1 = this.l1;
    const l3 = this.l3;
    const n = this.counts;
    // Quartile ranks l and l + 1 inside the bracket: count(< lo) <= l and count(<= hi) >= l + 2.
    // A value inside both fences is told by the inner pivots alone (hi1, lo3): the outer ones are
    // checked only for the few values that are not, which saves most rebrackets.
    if (n[1] < l1 + 2) this.rebracket(0, l1);
    if (n[2] > l3) this.rebracket(2, l3);
    const f = this.fences;
    if (value <= f[0] && value >= f[1]) return 0;
    return this.outerFlag(value);
  }

  /** flag for a value not inside the fences' inner bounds: the outer pivots must bracket too. */
  private outerFlag(value: number): number {
    const n = this.counts;
    if (n[0] > this.l1) this.rebracket(0, this.l1);
    if (n[3] < this.l3 + 2) this.rebracket(2, this.l3);
    const f = this.fences;
    if (value <= f[0] && value >= f[1]) return 0;
    if (value > f[2]) return 1;
    if (value < f[3]) return -1;
    return this.exactFlag(value);
  }

  /**
   * flag from exact quartiles, found among the values inside the brackets: first the one
   * nearer the value's side (it weighs 1 + k in that fence, the other k), which often settles it.
   */
  private exactFlag(value: number): number {
    const k = this.k;
    const minIqr = this.minIqr;
    const p = this.pivots;
    let q1: number;
    let q3: number;
    if (value > this.fences[0]) {
      q3 = this.locate(2, this.band3, this.l3, this.frac3);
      const flag = decide(value, k, minIqr, p[0], p[1], q3, q3);
      if (flag !== UNDECIDED) return flag;
      q1 = this.locate(0, this.band1, this.l1, this.frac1);
    } else {
      q1 = this.locate(0, this.band1, this.l1, this.frac1);
      const flag = decide(value, k, minIqr, q1, q1, p[2], p[3]);
      if (flag !== UNDECIDED) return flag;
      q3 = this.locate(2, this.band3, this.l3, this.frac3);
    }
    let iqr = q3 - q1;
    if (iqr < minIqr) iqr = minIqr;
    return value > q3 + k * iqr ? 1 : value < q1 - k * iqr ? -1 : 0;
  }

  /**
   * The exact quantile between ranks l and l + 1 (at frac) from the values inside bracket j,
   * which is then narrowed if it has grown wide.
   */
  private locate(j: number, band: Float64Array, l: number, frac: number): number {
    const lo = this.pivots[j];
    const hi = this.pivots[j + 1];
    const r = this.ring;
    let m = 0;
    for (let i = 0; i < this.size; i++) {
      const v = r[i];
      band[m] = v;
      m += Number(v >= lo) - Number(v > hi);
    }
    sortPrefix(band, m);
    const q = interpolate(band, m, l - this.counts[j], frac);
    this.narrow(j, band, m, l);
    return q;
  }

  /** Quartile ranks and interpolation fractions for a window of `size` values. */
  private setRanks(size: number): void {
    const pos1 = 0.25 * (size - 1);
    const pos3 = 0.75 * (size - 1);
    this.l1 = Math.floor(pos1);
    this.l3 = Math.floor(pos3);
    this.frac1 = pos1 - this.l1;
    this.frac3 = pos3 - this.l3;
    this.ranksFor = size;
  }

  /**
   * New pivots j, j + 1 a few ranks either side of quartile rank l. They are read from the sorted copy,
   * at the ranks the old pivots' counts point to; when that copy has drifted too far for them to
   * bracket the quartile, the window is sorted again.
   */
  private rebracket(j: number, l: number): void {
    const size = this.size;
    const gap = gapFor(size);
    const a = l - gap;
    const b = l + 1 + gap;
    const ss = this.sortedSize;
    if (ss > 0) {
      // Near a pivot, sorted rank + (its count now - its sorted rank) ≈ rank now; a miss tells how
      // far off that was, so a second try usually lands.
      let ia = this.at[j] + a - this.counts[j];
      let ib = this.at[j + 1] + b + 1 - this.counts[j + 1];
      for (let attempt = 0; attempt < 3; attempt++) {
        ia = ia < 0 ? 0 : ia >= ss ? ss - 1 : ia;
        ib = ib < ia ? ia : ib >= ss ? ss - 1 : ib;
        const lo = this.sorted[ia];
        const hi = this.sorted[ib];
        const r = this.ring;
        let below = 0;
        let upTo = 0;
        for (let i = 0; i < size; i++) {
          const v = r[i];
          below += Number(v < lo);
          upTo += Number(v <= hi);
        }
        const okLo = below <= l;
        const okHi = upTo >= l + 2;
        if (okLo && okHi) {
          this.setPivots(j, lo, hi, below, upTo, ia, ib);
          return;
        }
        if ((!okLo && ia === 0) || (!okHi && ib === ss - 1)) break;
        if (!okLo) ia += a - below;
        if (!okHi) ib += b + 1 - upTo;
      }
    }
    // Sort the window; its ranks are exact, so the new pivots bracket both quartiles.
    const s = this.sorted;
    sortRing(this.ring, this.head, size, this.capacity, s);
    this.sortedSize = size;
    for (let q = 0; q <= 2; q += 2) {
      const lq = q === 0 ? this.l1 : this.l3;
      const ia = Math.max(0, lq - gap);
      const ib = Math.min(size - 1, lq + 1 + gap);
      let first = ia;
      while (first > 0 && s[first - 1] === s[ia]) first--;
      let last = ib;
      while (last + 1 < size && s[last + 1] === s[ib]) last++;
      this.setPivots(q, s[ia], s[ib], first, last + 1, ia, ib);
    }
  }

  private setPivots(
    j: number,
    lo: number,
    hi: number,
    below: number,
    upTo: number,
    ia: number,
    ib: number,
  ): void {
    this.pivots[j] = lo;
    this.pivots[j + 1] = hi;
    this.counts[j] = below;
    this.counts[j + 1] = upTo;
    this.at[j] = ia;
    this.at[j + 1] = ib;
    this.boundFences();
  }

  /**
   * Re-centres bracket j on quartile rank l when it has grown wider than placed, from the sorted
   * band of all window values inside it (so the new counts are exact).
   */
  private narrow(j: number, band: Float64Array, m: number, l: number): void {
    const gap = gapFor(this.size);
    if (m <= 2 * gap + 2) return;
    const below = this.counts[j];
    const ia = Math.max(0, l - gap - below);
    const ib = Math.min(m - 1, l + 1 + gap - below);
    let first = ia;
    while (first > 0 && band[first - 1] === band[ia]) first--;
    let last = ib;
    while (last + 1 < m && band[last + 1] === band[ib]) last++;
    // Keep the sorted copy's offset from the current ranks for the next rebracket.
    const jb = this.at[j + 1] + below + last + 1 - this.counts[j + 1];
    this.setPivots(j, band[ia], band[ib], below + first, below + last + 1, this.at[j] + first, jb);
  }

  /**
   * Bounds on the fences that hold wherever the quartiles lie in their brackets, less a margin so
   * that rounding in the exact fences cannot disagree: [inside up to, inside from, above, below].
   */
  private boundFences(): void {
    const p = this.pivots;
    const f = this.fences;
    const k = this.k;
    const iqrMin = Math.max(p[2] - p[1], this.minIqr);
    const iqrMax = Math.max(p[3] - p[0], this.minIqr);
    const slack = 1e-9 * (1 + Math.abs(p[0]) + Math.abs(p[1]) + Math.abs(p[2]) + Math.abs(p[3]));
    f[0] = p[2] + k * iqrMin - slack;
    f[1] = p[1] - k * iqrMin + slack;
    f[2] = p[3] + k * iqrMax + slack;
    f[3] = p[0] - k * iqrMax - slack;
  }
}

/**
 * Ranks between a quartile and each pivot when placed: wider brackets last more pushes, narrower
 * ones decide more values near a fence (3 for DT's 56 days measured fastest).
 */
function gapFor(size: number): number {
  return Math.max(2, size >> 4);
}

function sortPrefix(s: Float64Array, m: number): void {
  for (let i = 1; i < m; i++) {
    const v = s[i];
    let x = i;
    while (x > 0 && s[x - 1] > v) {
      s[x] = s[x - 1];
      x--;
    }
    s[x] = v;
  }
}

const UNDECIDED = 2;

/**
 * The Tukey flag of value when Q1 lies in [q1lo, q1hi] and Q3 in [q3lo, q3hi], or UNDECIDED when
 * that depends on where (with a margin for rounding in the exact fences).
 */
function decide(
  value: number,
  k: number,
  minIqr: number,
  q1lo: number,
  q1hi: number,
  q3lo: number,
  q3hi: number,
): number {
  const iqrMin = Math.max(q3lo - q1hi, minIqr);
  const iqrMax = Math.max(q3hi - q1lo, minIqr);
  const slack = 1e-9 * (1 + Math.abs(q1lo) + Math.abs(q1hi) + Math.abs(q3lo) + Math.abs(q3hi));
  if (value <= q3lo + k * iqrMin - slack && value >= q1hi - k * iqrMin + slack) return 0;
  if (value > q3hi + k * iqrMax + slack) return 1;
  if (value < q1lo - k * iqrMax - slack) return -1;
  return UNDECIDED;
}

/** The quantile between sorted[lo] and sorted[lo + 1] at frac, as SortedWindow.quantile computes it. */
function interpolate(sorted: Float64Array, n: number, lo: number, frac: number): number {
  const a = sorted[lo];
  return frac === 0 || lo + 1 >= n ? a : a + (sorted[lo + 1] - a) * frac;
}
