/**
 * The year before in a day detector's expectation (docs/detectors.md, "The year before"): a Christmas
 * dip, a summer season's first weeks or any move that the same time of the previous years showed with
 * a similar size is not news. For a day that would be reported, the detector's own surprise on the same
 * day of the previous years (its actual against its expectation then, on the log scale) is looked up,
 * aligned by weekday (364 days back) and by date (for fixed-date days such as Christmas), and the part
 * of today's surprise it explains is taken into the expectation; what is left is judged again.
 *
 * The explanation only ever shrinks a surprise of the same sign (a normal day after last year's
 * one-off drop is never a rise), and with two previous years both must show it (the smaller counts):
 * what recurred in the previous years is expected, a one-off is not. Looked up only for days that pass
 * every other test, so it costs nothing on the others.
 */
import { civilFromDays, daysFromCivil } from '../calendar/days';
import type { RunInput } from './detector';
import { classifyPct, type DayNoise, logRatio } from './kernels';

/** Days a year back with the same weekday. */
export const YEAR_DAYS = 364;
/** Previous years looked at. */
const YEARS = 2;

const civil = [0, 0, 0];

/** The day index of the same calendar date `years` years before day t (Feb 29 → Feb 28). */
export function sameDateBefore(dayIndex0: number, t: number, years: number): number {
  civilFromDays(dayIndex0 + t, civil);
  const [y, m, d] = civil;
  const day = m === 2 && d === 29 ? 28 : d;
  return daysFromCivil(y - years, m, day) - dayIndex0;
}

/**
 * The log factor by which the previous years move day t's expectation (0: they explain nothing): the
 * previous years' surprise at the same time, of the same sign as today's `r` = logRatio(actual,
 * expected), at most r. A year shows it only with a surprise of at least `least` (log scale: see
 * leastSurprise), an event of its own then, not a wiggle. `x` and `e` are the series
 * and the detector's expectations of the days before t (as judged then, without any year factor); days
 * that were special or without data say nothing.
 */
export function yearFactor(
  x: Float64Array,
  e: Float64Array,
  special: Uint8Array | null,
  start: number,
  dayIndex0: number,
  t: number,
  r: number,
  least: number,
): number {
  if (!(r !== 0) || t - YEAR_DAYS - 2 < start) return 0;
  let explained = Number.POSITIVE_INFINITY;
  for (let k = 1; k <= YEARS; k++) {
    const byWeekday = t - YEAR_DAYS * k;
    const byDate = sameDateBefore(dayIndex0, t, k);
    // A year counts with both of its days in the history (one alone may miss a fixed-date day).
    if (byWeekday < start || byDate < start) break;
    let best = 0;
    let known = false;
    for (let i = 0; i < 2; i++) {
      const u = i === 0 ? byWeekday : byDate;
      if (i === 1 && byDate === byWeekday) break;
      if (special !== null && special[u] !== 0) continue;
      const eu = e[u];
      if (!(eu > 0)) continue;
      known = true;
      const s = logRatio(x[u], eu);
      // The same direction only; the larger of the two alignments is that year's showing.
      if (s * r > 0 && Math.abs(s) >= least && Math.abs(s) > Math.abs(best)) best = s;
    }
    // A year without an expectation there (the detector's warm-up) says nothing, nor do the ones before.
    if (!known) break;
    // A year that did not show it: what happens today did not recur.
    if (best === 0) return 0;
    if (Math.abs(best) < Math.abs(explained)) explained = best;
  }
  if (!Number.isFinite(explained)) return 0;
  return Math.abs(explained) >= Math.abs(r) ? r : explained;
}

/**
 * Days whose reported expectation includes the year before: recorded during a detector's loop, applied
 * to ws.expected after it (the loop reads last year's expectations as they were judged).
 */
export class YearAdjustments {
  private days = new Int32Array(16);
  private factors = new Float64Array(16);
  size = 0;

  reset(): void {
    this.size = 0;
  }

  add(t: number, logFactor: number): void {
    if (this.size === this.days.length) {
      const days = new Int32Array(this.size * 2);
      days.set(this.days);
      this.days = days;
      const factors = new Float64Array(this.size * 2);
      factors.set(this.factors);
      this.factors = factors;
    }
    this.days[this.size] = t;
    this.factors[this.size] = Math.exp(logFactor);
    this.size++;
  }

  /** Multiplies the recorded days' expectations by their factors. */
  apply(e: Float64Array): void {
    for (let i = 0; i < this.size; i++) e[this.days[i]] *= this.factors[i];
  }
}

/**
 * For a day a percent-change detector (dod, wow) would report: true when the previous years explain
 * it (the day is then handled as flagged in the baselines, as it was then, but not reported); when they
 * explain part of it and the rest still passes the business threshold and the noise test, the day is
 * reported against an expectation that includes them (recorded in `adjustments`).
 */
export function explainedByYears(
  input: RunInput,
  e: Float64Array,
  t: number,
  exp: number,
  frac: number,
  k: number,
  noise: DayNoise,
  adjustments: YearAdjustments,
): boolean {
  const xt = input.x[t];
  const s = yearFactor(
    input.x,
    e,
    input.special,
    input.start,
    input.dayIndex0,
    t,
    logRatio(xt, exp),
    leastSurprise(frac),
  );
  if (s === 0) return false;
  const expected = exp * Math.exp(s);
  if (classifyPct(xt, expected, frac) !== 0 && noise.unusual(xt - expected, expected, k, t)) {
    adjustments.add(t, s);
    return false;
  }
  return true;
}

/**
 * The least |log surprise| a year must show to explain a day: half the detector's business threshold
 * (a fraction of the expected value). A New Year's Eve at +27 % shows last year's habit for a +30 %
 * threshold; a +4 % wiggle a year before a ×12 spike does not.
 */
export function leastSurprise(fraction: number): number {
  return Math.log(1 + Math.max(0.025, fraction / 2));
}
