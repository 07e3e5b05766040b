/**
 * A sliding window of the last `capacity` numbers for rolling quantiles and trimmed means without
 * allocation. A push only writes a ring; the sorted copy is rebuilt when a query finds it stale.
 * Keeping the values sorted on every push cost more than the rest of the spike detector, which
 * asks for its noise scale on a few days in a hundred. Long windows, where a sort costs more than
 * many sorted insertions, stay sorted on every push instead.
 */

/** Windows longer than this stay sorted on every push. */
const LAZY_MAX = 96;
/** A lazy window turns eager once it has been sorted on more than 1 in this many pushes. */
const EAGER_QUERY_SHARE = 8;

export class SortedWindow {
  private ring: Float64Array;
  private sorted: Float64Array;
  private capacity = 1;
  private head = 0;
  size = 0;
  /** The sorted copy no longer matches the ring. */
  private stale = false;
  private eager = false;
  /** Pushes and sorts since reset: a window queried on most days switches to staying sorted. */
  private pushes = 0;
  private sorts = 0;

  constructor(maxCapacity = 64) {
    this.ring = new Float64Array(maxCapacity);
    this.sorted = new Float64Array(maxCapacity);
  }

  /** Empties the window and sets how many values it keeps. */
  reset(capacity: number): void {
    if (capacity > this.ring.length) {
      this.ring = new Float64Array(capacity);
      this.sorted = new Float64Array(capacity);
    }
    this.capacity = Math.max(1, capacity);
    this.head = 0;
    this.size = 0;
    this.stale = false;
    this.eager = this.capacity > LAZY_MAX;
    this.pushes = 0;
    this.sorts = 0;
  }

  push(value: number): void {
    this.pushes++;
    if (this.size === this.capacity) {
      const old = this.ring[this.head];
      this.ring[this.head] = value;
      this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
      if (this.eager) this.replaceSorted(old, value);
    } else {
      let slot = this.head + this.size;
      if (slot >= this.capacity) slot -= this.capacity;
      this.ring[slot] = value;
      this.size++;
      if (this.eager) this.insertSorted(value);
    }
    if (!this.eager) this.stale = true;
  }

  /** Removes the `count` most recently pushed values (older evicted values do not come back). */
  popNewest(count: number): void {
    const k = Math.min(count, this.size);
    for (let i = 0; i < k; i++) {
      if (this.eager) {
        let slot = this.head + this.size - 1;
        if (slot >= this.capacity) slot -= this.capacity;
        this.removeSorted(this.ring[slot]);
      }
      this.size--;
    }
    if (k > 0 && !this.eager) this.stale = true;
  }

  /** Linear-interpolated quantile, q in 0..1; NaN when empty. */
  quantile(q: number): number {
    const n = this.size;
    if (n === 0) return Number.NaN;
    if (this.stale) this.sort();
    const pos = q * (n - 1);
    const lo = Math.floor(pos);
    const frac = pos - lo;
    const a = this.sorted[lo];
    return frac === 0 ? a : a + (this.sorted[lo + 1] - a) * frac;
  }

  /** Mean of the smallest `fraction` of the values (a trimmed mean of magnitudes); NaN when empty. */
  lowerMean(fraction: number): number {
    const n = this.size;
    if (n === 0) return Number.NaN;
    if (this.stale) this.sort();
    const k = Math.max(1, Math.floor(n * fraction));
    let sum = 0;
    for (let i = 0; i < k; i++) sum += this.sorted[i];
    return sum / k;
  }

  /**
   * Mean of all values; NaN when empty. For non-negative values it is never below lowerMean (which
   * leaves out the largest), and it costs no sort: a bound that settles most spike decisions.
   */
  mean(): number {
    const n = this.size;
    if (n === 0) return Number.NaN;
    let sum = 0;
    for (let i = 0, slot = this.head; i < n; i++, slot = slot + 1 === this.capacity ? 0 : slot + 1)
      sum += this.ring[slot];
    return sum / n;
  }

  private sort(): void {
    sortRing(this.ring, this.head, this.size, this.capacity, this.sorted);
    this.stale = false;
    // Asked for on more than one day in eight (a noisy series under a low business threshold):
    // sorted insertions from now on cost less than a sort per query.
    if (++this.sorts > 16 && this.sorts * EAGER_QUERY_SHARE > this.pushes) this.eager = true;
  }

  /** Inserts the value just appended to the ring (size already counts it). */
  private insertSorted(value: number): void {
    const s = this.sorted;
    let i = this.size - 1;
    while (i > 0 && s[i - 1] > value) {
      s[i] = s[i - 1];
      i--;
    }
    s[i] = value;
  }

  /** Evicts `old` and inserts `value` in one pass: only the slots between the two positions move. */
  private replaceSorted(old: number, value: number): void {
    const s = this.sorted;
    const n = this.size;
    let i = this.indexOf(old);
    if (i < 0) i = n - 1; // not found (cannot happen for numbers): overwrite the largest
    if (value > s[i]) {
      while (i + 1 < n && s[i + 1] < value) {
        s[i] = s[i + 1];
        i++;
      }
    } else {
      while (i > 0 && s[i - 1] > value) {
        s[i] = s[i - 1];
        i--;
      }
    }
    s[i] = value;
  }

  /** Removes one copy of value (size still counts it). */
  private removeSorted(value: number): void {
    const s = this.sorted;
    const n = this.size;
    const i = this.indexOf(value);
    if (i < 0) return;
    for (let j = i; j < n - 1; j++) s[j] = s[j + 1];
  }

  private indexOf(value: number): number {
    const s = this.sorted;
    const n = this.size;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n && s[lo] === value) return lo;
    // Missed by the search (only NaN would be): scan.
    for (let i = 0; i < n; i++) if (s[i] === value) return i;
    return -1;
  }
}

/** Writes the `size` values of a ring starting at `head` to `out`, sorted ascending. */
export function sortRing(
  ring: Float64Array,
  head: number,
  size: number,
  capacity: number,
  out: Float64Array,
): void {
  if (size > 96) {
    // Insertion sort is quadratic: long windows go to the native sort.
    for (let i = 0, slot = head; i < size; i++, slot = slot + 1 === capacity ? 0 : slot + 1)
      out[i] = ring[slot];
    out.subarray(0, size).sort();
    return;
  }
  for (let i = 0, slot = head; i < size; i++, slot = slot + 1 === capacity ? 0 : slot + 1) {
    const v = ring[slot];
    let j = i;
    while (j > 0 && out[j - 1] > v) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = v;
  }
}
