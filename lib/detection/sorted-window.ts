/**
 * A sliding window of the last `capacity` numbers kept sorted, for rolling medians and quantiles
 * without allocation: each push is a binary search plus a shift of at most `capacity` slots.
 */
export class SortedWindow {
  private ring: Float64Array;
  private sorted: Float64Array;
  private capacity = 0;
  private head = 0;
  size = 0;

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
    this.total = 0;
    this.sinceExact = 0;
  }

  push(value: number): void {
    if (this.size === this.capacity) {
      const old = this.ring[this.head];
      this.total -= old;
      this.ring[this.head] = value;
      this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
      this.replaceSorted(old, value);
    } else {
      let slot = this.head + this.size;
      if (slot >= this.capacity) slot -= this.capacity;
      this.ring[slot] = value;
      this.size++;
      this.insertSorted(value);
    }
    this.addTotal(value);
  }

  /** Removes the `count` most recently pushed values (older evicted values do not come back). */
  popNewest(count: number): void {
    const k = Math.min(count, this.size);
    for (let i = 0; i < k; i++) {
      let slot = this.head + this.size - 1;
      if (slot >= this.capacity) slot -= this.capacity;
      this.total -= this.ring[slot];
      this.removeSorted(this.ring[slot]);
      this.size--;
    }
  }

  /** Linear-interpolated quantile, q in 0..1; NaN when empty. */
  quantile(q: number): number {
    const n = this.size;
    if (n === 0) return Number.NaN;
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
    const k = Math.max(1, Math.floor(n * fraction));
    // Total minus the few largest values: fewer additions than summing the kept ones.
    let top = 0;
    for (let i = k; i < n; i++) top += this.sorted[i];
    return (this.total - top) / k;
  }

  /** Sum of the values in the window. */
  total = 0;
  private sinceExact = 0;

  private addTotal(delta: number): void {
    this.total += delta;
    // A running sum drifts when large values come and go; recompute it exactly now and then.
    if (++this.sinceExact >= 4 * this.capacity) {
      let sum = 0;
      for (let i = 0; i < this.size; i++) sum += this.sorted[i];
      this.total = sum;
      this.sinceExact = 0;
    }
  }

  private lowerBound(value: number): number {
    let lo = 0;
    let hi = this.size;
    const s = this.sorted;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private insertSorted(value: number): void {
    // size already counts the new value when called from push.
    const n = this.size - 1;
    const s = this.sorted;
    let i = n;
    while (i > 0 && s[i - 1] > value) {
      s[i] = s[i - 1];
      i--;
    }
    s[i] = value;
  }

  /**
   * Evicts `old` and inserts `value` in one pass: only the slots between the two positions move,
   * about a third of the window on average instead of a whole window for a removal plus an insertion.
   */
  private replaceSorted(old: number, value: number): void {
    const s = this.sorted;
    const n = this.size;
    let i = this.lowerBound(old);
    if (i >= n || s[i] !== old) {
      i = 0;
      while (i < n && s[i] !== old) i++;
      if (i === n) i = n - 1; // not found (cannot happen for finite values): overwrite the largest
    }
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

  private removeSorted(value: number): void {
    const s = this.sorted;
    const n = this.size;
    let i = this.lowerBound(value);
    if (i >= n || s[i] !== value) {
      // NaN or -0/+0 mismatch cannot happen for the finite values we push; fall back to a scan.
      i = 0;
      while (i < n && s[i] !== value) i++;
      if (i === n) return;
    }
    for (let j = i; j < n - 1; j++) s[j] = s[j + 1];
  }
}
