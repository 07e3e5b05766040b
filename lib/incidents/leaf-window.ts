/**
 * Each leaf's actual, expected and noise over a window, from its daily values before and during it
 * (docs/incidents.md, "Expected values"). A leaf's expectation is its own level in the weeks before
 * the window, day by day of the week: the mean of the same weekday in the `weeks` weeks before the
 * window starts (never the window's own days, so a long event does not become its own baseline).
 * The leaves' expectations are then scaled together so that their sum is the broad series' expected
 * value as its detector computed it: the explanation uses the anomaly's own baseline, shared out among
 * the leaves by their recent weekday profile. (A leaf's own detector expectation would add the noise of
 * single days of a small leaf to its baseline.)
 *
 * The noise of a leaf's change over the window is estimated from the same weeks: the spread of each
 * day around the mean of its weekday in the `weeks` weeks before it, floored by the Poisson noise of
 * the events the values stand for (`unit`: value per event, 1 for counts). Its window variance counts
 * the days' own noise and that of the baseline, which every repetition of a weekday shares.
 */
import type { Codes } from './lattice';
import type { LeafChange } from './root-cause';

export interface LeafDays {
  codes: Codes;
  /** Daily values from day `from` (epoch day) on; days the array does not reach are unknown. */
  values: Float64Array;
  /** Value per event (1 when the values are events). */
  unit: number;
  /**
   * For a ratio (value per event): the events per day, aligned with `values` (the value). The change
   * explained is then the value's change at the events that happened: Σ value against Σ events × the
   * leaf's value per event in the baseline weeks, so a price that moved is found where it moved and a
   * volume that moved at the usual price explains nothing.
   */
  counts?: Float64Array;
}

export interface WindowSpec {
  /** Epoch day of values[0] of every leaf. */
  from: number;
  /** Epoch days of the window, inclusive. */
  start: number;
  end: number;
  /** Weeks of baseline before the window (and of history for the noise before those). */
  weeks: number;
  /** The broad series' expected total over the window (its detector's), when known. */
  expectedTotal?: number;
}

/** Days of data a window needs before its start. */
export function historyDays(weeks: number): number {
  return 14 * weeks;
}

/** Mean of x at t − 7, t − 14, … (up to `weeks` values at or after index 0); NaN when none. */
function weekdayMean(x: Float64Array, t: number, weeks: number): number {
  let s = 0;
  let n = 0;
  for (let k = 1; k <= weeks; k++) {
    const u = t - 7 * k;
    if (u < 0) break;
    s += x[u];
    n++;
  }
  return n > 0 ? s / n : Number.NaN;
}

/** A ratio leaf's change: value against events × the baseline weeks' value per event. */
function ratioChange(
  leaf: LeafDays & { counts: Float64Array },
  s: number,
  e: number,
  weeks: number,
): LeafChange {
  const x = leaf.values;
  const c = leaf.counts;
  let bv = 0;
  let bc = 0;
  for (let t = Math.max(0, s - 7 * weeks); t < s; t++) {
    bv += x[t];
    bc += c[t];
  }
  const price = bc > 0 ? bv / bc : 0;
  let actual = 0;
  let expected = 0;
  let events = 0;
  for (let t = s; t <= e; t++) {
    actual += t < x.length ? x[t] : 0;
    expected += (t < c.length ? c[t] : 0) * price;
    events += t < c.length ? c[t] : 0;
  }
  // Noise: the baseline days' value against their events at the baseline price, per event, times the
  // window's events; at least a 5 % spread of one event's price (a few events are noisy).
  let sq = 0;
  for (let t = Math.max(0, s - 7 * weeks); t < s; t++) sq += (x[t] - c[t] * price) ** 2;
  const perEvent = bc > 0 ? sq / bc : 0;
  const variance = Math.max(perEvent, (0.05 * price) ** 2) * Math.max(events, 1);
  return { codes: leaf.codes, actual, expected, variance };
}

/** The leaves' changes over the window, their expectations scaled to `expectedTotal` when given. */
export function leafChanges(leaves: readonly LeafDays[], w: WindowSpec): LeafChange[] {
  if (leaves.length > 0 && leaves.every((l) => l.counts !== undefined)) {
    const out = leaves.map((l) =>
      ratioChange(l as LeafDays & { counts: Float64Array }, w.start - w.from, w.end - w.from, w.weeks),
    );
    return scaled(out, w.expectedTotal);
  }
  const s = w.start - w.from;
  const e = w.end - w.from;
  const len = e - s + 1;
  // How often each weekday occurs in the window: the baseline error of a weekday repeats that often.
  const perWeekday = new Array(7).fill(0);
  for (let t = s; t <= e; t++) perWeekday[(t - s) % 7]++;
  const shared = perWeekday.reduce((acc, n) => acc + n * n, 0) / w.weeks;
  const out: LeafChange[] = leaves.map((leaf) => {
    const x = leaf.values;
    // Weekday means of the `weeks` weeks before the window; the window's day t uses its weekday's.
    const base = new Float64Array(7);
    for (let k = 0; k < 7; k++) {
      const m = weekdayMean(x, s + k, w.weeks);
      base[k] = Number.isNaN(m) ? 0 : m;
    }
    let actual = 0;
    let expected = 0;
    for (let t = s; t <= e; t++) {
      actual += t < x.length ? x[t] : 0;
      expected += base[(t - s) % 7];
    }
    // Day noise: each of the baseline weeks' days against the mean of its weekday before it.
    let sq = 0;
    let n = 0;
    let level = 0;
    for (let t = Math.max(0, s - 7 * w.weeks); t < s; t++) {
      const m = weekdayMean(x, t, w.weeks);
      if (Number.isNaN(m)) continue;
      sq += (x[t] - m) ** 2;
      level += m;
      n++;
    }
    const poisson = leaf.unit * Math.max(level / Math.max(1, n), expected / len, 1 / len);
    // A day's residual against a mean of `weeks` days carries that mean's noise too.
    const dayVar = Math.max(poisson, n > 0 ? sq / n / (1 + 1 / w.weeks) : 0);
    return { codes: leaf.codes, actual, expected, variance: dayVar * (len + shared) };
  });
  return scaled(out, w.expectedTotal);
}

/** The leaves' expectations scaled together to sum to `expectedTotal` (when given and positive). */
function scaled(out: LeafChange[], expectedTotal: number | undefined): LeafChange[] {
  if (expectedTotal !== undefined && Number.isFinite(expectedTotal)) {
    const sum = out.reduce((acc, l) => acc + l.expected, 0);
    if (sum > 0) {
      const k = expectedTotal / sum;
      for (const l of out) l.expected *= k;
    }
  }
  return out;
}

/** The leaves' expectations scaled to `expectedTotal` after they were computed batch by batch. */
export { scaled as scaleExpected };
