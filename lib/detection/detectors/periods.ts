/**
 * MOM, QOQ, MPY and CW compare the total of a calendar period with what a reference period
 * predicts. The prediction takes each weekday's mean in the reference and sums it over the
 * weekdays of the current period, so day count and weekday mix are normalised.
 */
import { civilFromDays, daysFromCivil } from '../../calendar/days';
import { type FiscalCalendar, fiscalBounds } from '../../calendar/fiscal';
import type { DetectorImpl, RunInput } from '../detector';
import { classifyPct, logRatio, weekdayOf } from '../kernels';
import type { PeriodParams } from '../params';
import type { Workspace } from '../workspace';
import { leastSurprise } from '../year-before';
import { periodYearFactor, weekYearSurprise } from './period-years';

/**
 * The noise of a period detector: the relative residuals (actual / predicted - 1) of the last
 * periods that were not flagged, the same comparison as the one judged. Their mean absolute value
 * (× 1.2533, a standard deviation for normal noise) is the scale; a period is unusual when its
 * residual exceeds `threshold` scales. The scale is at least 1 % and the Poisson noise of the
 * comparison: sqrt(unit / predicted) for the period's events, widened by that of its reference
 * (the same events again for one reference period; a quarter of them for CW's mean of four weeks).
 */
const NOISE_PERIODS = 12;
const MIN_NOISE_PERIODS = 3;
const MEAN_ABS_TO_SIGMA = 1.2533;
const MIN_RELATIVE_SCALE = 0.01;

class PeriodNoise {
  private readonly ring = new Float64Array(NOISE_PERIODS);
  private head = 0;
  size = 0;
  private sum = 0;

  reset(): void {
    this.head = 0;
    this.size = 0;
    this.sum = 0;
  }

  push(absRel: number): void {
    if (this.size === NOISE_PERIODS) {
      this.sum -= this.ring[this.head];
      this.ring[this.head] = absRel;
      this.head = this.head + 1 === NOISE_PERIODS ? 0 : this.head + 1;
    } else {
      this.ring[(this.head + this.size) % NOISE_PERIODS] = absRel;
      this.size++;
    }
    this.sum += absRel;
  }

  /** The flag of a period: the business threshold, materiality and the noise test together. */
  judge(
    actual: number,
    predicted: number,
    days: number,
    p: PeriodParams,
    input: RunInput,
    referencePeriods = 1,
  ): number {
    if (days <= 0 || predicted / days < input.material || predicted <= 0) return 0;
    const judged = this.flagOf(actual, predicted, days, p, input, referencePeriods);
    // Flagged periods stay out of the noise (like flagged days out of baselines), clipped so one
    // odd period cannot dominate it.
    if (judged === 0) {
      const rel = Math.abs(actual / predicted - 1);
      const cap = this.size > 0 ? (4 * this.sum) / this.size : rel;
      this.push(this.size >= MIN_NOISE_PERIODS && rel > cap ? cap : rel);
    }
    return judged;
  }

  /** judge without recording: the same period against another prediction (see otherReferences). */
  flagOf(
    actual: number,
    predicted: number,
    days: number,
    p: PeriodParams,
    input: RunInput,
    referencePeriods = 1,
  ): number {
    if (days <= 0 || !(predicted > 0) || predicted / days < input.material) return 0;
    const { daySigma, unit } = input;
    const flag = classifyPct(actual, predicted, p.percentualChange / 100);
    const rel = Math.abs(actual / predicted - 1);
    let judged = 0;
    if (this.size >= MIN_NOISE_PERIODS && flag !== 0) {
      let scale = (MEAN_ABS_TO_SIGMA * this.sum) / this.size;
      const poisson = Math.sqrt((unit * (1 + 1 / referencePeriods)) / predicted);
      if (scale < poisson) scale = poisson;
      // The series' own day noise summed over the period, on both sides of the comparison (a ratio's:
      // the relative noise of a day's average, over the period's days).
      const own =
        input.weights !== undefined
          ? input.dayMean > 0
            ? (daySigma / input.dayMean) * Math.sqrt(2 / days)
            : 0
          : (daySigma * Math.sqrt(2 * days)) / predicted;
      if (scale < own) scale = own;
      if (scale < MIN_RELATIVE_SCALE) scale = MIN_RELATIVE_SCALE;
      if (rel >= p.threshold * scale) judged = flag;
    }
    return judged;
  }
}

/**
 * Returns are not events. A period is compared with its reference as it was; that alone would report
 * the month after a month of drop as a rise. Two more references, used only for a period that is
 * flagged or whose reference holds a cleaned period:
 * - the **cleaned** reference: reference periods that were judged anomalous (or continued a judged
 *   change) count as what was expected for them. A period that is normal against it is a return to
 *   normal; one that is off against it but not against the raw reference continues a change (a level
 *   that holds), and is cleaned in turn, so the eventual return is judged against the old normal.
 * - the **reference before** (the period(s) before the reference: MOM the month before last, CW the
 *   four weeks before the four): a period within the business threshold of it follows a reference that
 *   was off without being judged itself (a drop week inside last month). Only the business threshold
 *   is asked of it: the seasons of two periods back are not the noise the period is judged by.
 * A period is reported only when the references available agree on its direction.
 */
const cleanedPeriods = { flags: new Uint8Array(64) };

function cleanedFlags(count: number): Uint8Array {
  if (cleanedPeriods.flags.length < count)
    cleanedPeriods.flags = new Uint8Array(Math.max(count, cleanedPeriods.flags.length * 2));
  return cleanedPeriods.flags;
}

const noise = new PeriodNoise();

const ymd = [0, 0, 0];
const lanes = new Float64Array(7);

/** Start indices (relative to dayIndex0) of calendar periods of `months` months covering [0, n). */
function monthBounds(dayIndex0: number, n: number, months: number, out: Int32Array): number {
  civilFromDays(dayIndex0, ymd);
  let year = ymd[0];
  let month = ymd[1] - ((ymd[1] - 1) % months);
  let count = 0;
  for (;;) {
    const idx = daysFromCivil(year, month, 1) - dayIndex0;
    out[count++] = idx;
    if (idx >= n) return count;
    month += months;
    if (month > 12) {
      month -= 12;
      year += 1;
    }
  }
}

/** Start indices of Monday-to-Sunday weeks covering [0, n). */
function weekBounds(dayIndex0: number, n: number, out: Int32Array): number {
  let idx = -weekdayOf(dayIndex0);
  let count = 0;
  for (;;) {
    out[count++] = idx;
    if (idx >= n) return count;
    idx += 7;
  }
}

/** Period starts of one calendar layout, kept while series of the same days follow each other. */
interface Layout {
  dayIndex0: number;
  n: number;
  fiscal: FiscalCalendar | undefined;
  count: number;
  bounds: Int32Array;
}

const layouts = new Map<number, Layout>();

/**
 * Period starts for `months`-month periods (0: weeks, Monday to Sunday), computed once per layout;
 * with a fiscal calendar its months, quarters and weeks (lib/calendar/fiscal.ts).
 */
function periodBounds(input: RunInput, months: 0 | 1 | 3): Layout {
  const dayIndex0 = input.dayIndex0;
  const n = input.x.length;
  const fiscal = input.fiscal;
  let l = layouts.get(months);
  if (l === undefined) {
    l = { dayIndex0: Number.NaN, n: -1, fiscal: undefined, count: 0, bounds: new Int32Array(0) };
    layouts.set(months, l);
  }
  if (l.dayIndex0 !== dayIndex0 || l.n !== n || l.fiscal !== fiscal) {
    const need = Math.ceil(n / 7) + 8;
    if (l.bounds.length < need) l.bounds = new Int32Array(need);
    if (fiscal !== undefined) {
      const b = fiscalBounds(fiscal, dayIndex0, n, months);
      l.bounds.set(b);
      l.count = b.length;
    } else
      l.count =
        months === 0 ? weekBounds(dayIndex0, n, l.bounds) : monthBounds(dayIndex0, n, months, l.bounds);
    l.dayIndex0 = dayIndex0;
    l.n = n;
    l.fiscal = fiscal;
  }
  return l;
}

/** Days of [a, stop) that are not special. */
function daysOf(special: Uint8Array | null, a: number, stop: number): number {
  if (special === null) return stop - a;
  let n = 0;
  for (let t = a; t < stop; t++) if (special[t] === 0) n++;
  return n;
}

const cleanMean = new Float64Array(7);
const scratchMean = new Float64Array(7);

/**
 * The prediction of the period at `slot` from the reference periods first..last: Σ over its weekdays of
 * its days × the reference's mean of that weekday (a weekday the reference lacks at the reference's
 * overall mean); the means go into `mean`. With `cleaned`, a cleaned reference period counts as what was
 * expected for it (`clean`). NaN when the reference has no day.
 */
function predictPeriod(
  ps: Float64Array,
  pc: Float64Array,
  clean: Float64Array | null,
  cleaned: Uint8Array | null,
  first: number,
  last: number,
  slot: number,
  mean: Float64Array,
): number {
  let allSum = 0;
  let allCnt = 0;
  let predicted = 0;
  let unmatched = 0;
  for (let w = 0; w < 7; w++) {
    let sw = 0;
    let cw = 0;
    for (let r = first; r <= last; r++) {
      const i = r * 7 + w;
      sw += cleaned !== null && clean !== null && cleaned[r] !== 0 ? clean[i] : ps[i];
      cw += pc[i];
    }
    allSum += sw;
    allCnt += cw;
    if (cw > 0) {
      const m = sw / cw;
      mean[w] = m;
      predicted += pc[slot + w] * m;
    } else {
      mean[w] = Number.NaN;
      unmatched += pc[slot + w];
    }
  }
  if (allCnt === 0) return Number.NaN;
  const allMean = allSum / allCnt;
  if (unmatched > 0) {
    predicted += unmatched * allMean;
    for (let w = 0; w < 7; w++) if (Number.isNaN(mean[w])) mean[w] = allMean;
  }
  return predicted;
}

/**
 * The surprise (log of actual over predicted) of period i against its raw reference, as it was
 * judged; NaN when the reference starts before the history.
 */
function surpriseOf(
  ps: Float64Array,
  pc: Float64Array,
  b: Int32Array,
  i: number,
  lag: number,
  start: number,
): number {
  const first = lag === 0 ? i - 4 : i - lag;
  if (first < 0 || b[first] < start) return Number.NaN;
  let actual = 0;
  for (let w = 0; w < 7; w++) actual += ps[i * 7 + w];
  const predicted = predictPeriod(ps, pc, null, null, first, lag === 0 ? i - 1 : first, i * 7, scratchMean);
  return predicted > 0 ? logRatio(actual, predicted) : Number.NaN;
}

/**
 * The year before (period-years.ts): the log factor by which the same period of the previous years
 * (`perYear` periods a year; weeks by their days, 364 days back and from the same date) moves the
 * prediction of period j, [a, stop), flagged with `judged`; 0 when they explain nothing. Returns
 * `judged` again when the prediction with the years still flags the period (reported against it, the
 * factor in yearOut[0]), 0 when the years explain it (it is handled as flagged, but not reported).
 */
function judgedWithYears(
  input: RunInput,
  p: PeriodParams,
  judged: number,
  period: { ps: Float64Array; pc: Float64Array; b: Int32Array; j: number; lag: number; perYear: number },
  a: number,
  stop: number,
  actual: number,
  predicted: number,
  days: number,
  referencePeriods: number,
): number {
  yearOut[0] = 1;
  const { ps, pc, b, j, lag, perYear } = period;
  const r = logRatio(actual, predicted);
  const s = periodYearFactor(r, leastSurprise(p.percentualChange / 100), (k) =>
    lag === 0
      ? weekYearSurprise(input, a, stop - a, k, r)
      : surpriseOf(ps, pc, b, j - perYear * k, lag, input.start),
  );
  if (s === 0) return judged;
  if (noise.flagOf(actual, predicted * Math.exp(s), days, p, input, referencePeriods) !== judged) return 0;
  yearOut[0] = Math.exp(s);
  return judged;
}

/** The year factor of the last period judgedWithYears reported (1: none). */
const yearOut = new Float64Array(1);

/**
 * Compares each period with its reference: `lag` periods back (1: the previous period, 12: the
 * same month a year before), or with lag 0 the four weeks before the period (cw, weekly periods).
 * One pass sums every non-special day into its (period, weekday) slot; each period then needs only
 * its own seven slots and those of its reference, so the cost is one read per day.
 */
function comparePeriods(
  input: RunInput,
  p: PeriodParams,
  ws: Workspace,
  layout: Layout,
  lag: number,
  continuation: boolean,
  perYear: number,
): Float64Array {
  const { x, special, start, end, dayIndex0, weights } = input;
  const e = ws.expected;
  const f = ws.flags;
  const b = layout.bounds;
  const count = layout.count;
  const ps = ws.periodSum;
  const pc = ws.periodCount;
  const mean = ws.weekSum;
  e.fill(Number.NaN, 0, end);
  f.fill(0, 0, end);
  ws.flagged = false;
  noise.reset();
  let lastJudged = 0;
  let lastJ = -2;
  // Weekday of day 0; day t >= 0 has weekday (wd0 + t) mod 7.
  const wd0 = weekdayOf(dayIndex0);
  let j0 = 0;
  while (j0 + 1 < count && b[j0 + 1] <= start) j0++;
  let jEnd = j0;
  for (let j = j0; j + 1 < count && b[j] < end; j++) {
    const from = Math.max(b[j], start);
    const to = Math.min(b[j + 1], end);
    const slot = j * 7;
    for (let w = 0; w < 7; w++) {
      ps[slot + w] = 0;
      pc[slot + w] = 0;
    }
    let wd = (wd0 + from) % 7;
    if (weights !== undefined) {
      // A ratio: each slot sums value (ratio × events) and events, so that a weekday's mean is per
      // event (Σ value ÷ Σ count) and the period's actual is its value (a day without events adds 0).
      for (let t = from; t < to; t++) {
        if (special === null || special[t] === 0) {
          ps[slot + wd] += x[t] * weights[t];
          pc[slot + wd] += weights[t];
        }
        wd = wd === 6 ? 0 : wd + 1;
      }
    } else if (special === null) {
      // Whole weeks in seven running sums (registers, not memory), then the days left over; each
      // weekday still adds its days in date order.
      let l0 = 0;
      let l1 = 0;
      let l2 = 0;
      let l3 = 0;
      let l4 = 0;
      let l5 = 0;
      let l6 = 0;
      let t = from;
      for (; t + 7 <= to; t += 7) {
        l0 += x[t];
        l1 += x[t + 1];
        l2 += x[t + 2];
        l3 += x[t + 3];
        l4 += x[t + 4];
        l5 += x[t + 5];
        l6 += x[t + 6];
      }
      const weeks = (t - from) / 7;
      lanes[0] = l0;
      lanes[1] = l1;
      lanes[2] = l2;
      lanes[3] = l3;
      lanes[4] = l4;
      lanes[5] = l5;
      lanes[6] = l6;
      for (let k = 0; k < 7; k++) {
        ps[slot + wd] = lanes[k];
        pc[slot + wd] = weeks;
        wd = wd === 6 ? 0 : wd + 1;
      }
      for (; t < to; t++) {
        ps[slot + wd] += x[t];
        pc[slot + wd]++;
        wd = wd === 6 ? 0 : wd + 1;
      }
    } else {
      for (let t = from; t < to; t++) {
        if (special[t] === 0) {
          ps[slot + wd] += x[t];
          pc[slot + wd]++;
        }
        wd = wd === 6 ? 0 : wd + 1;
      }
    }
    jEnd = j + 1;
  }
  const cleaned = cleanedFlags(jEnd);
  cleaned.fill(0, 0, jEnd);
  const pcl = ws.periodClean;
  const meanC = cleanMean;
  for (let j = j0; j < jEnd; j++) {
    const a = b[j];
    if (a < start) continue;
    const full = b[j + 1] - a;
    const stop = Math.min(b[j + 1], end);
    // A trailing partial period counts once it has at least half of its days.
    if (stop - a < Math.ceil(full / 2)) continue;
    const first = lag === 0 ? j - 4 : j - lag;
    const last = lag === 0 ? j - 1 : j - lag;
    if (first < 0 || b[first] < start) continue;
    const slot = j * 7;
    let actual = 0;
    let days = 0;
    for (let w = 0; w < 7; w++) {
      actual += ps[slot + w];
      days += pc[slot + w];
    }
    // A ratio's slots count events: its days are the period's own (less the special ones).
    if (weights !== undefined) days = daysOf(special, a, stop);
    const predicted = predictPeriod(ps, pc, null, null, first, last, slot, mean);
    if (Number.isNaN(predicted)) continue;
    const judgedRaw = noise.judge(actual, predicted, days, p, input);
    let judged = judgedRaw;
    // Returns are not events (see cleanedPeriods): against the reference with its anomalous periods
    // as expected, then against the reference before.
    let anyClean = false;
    for (let r = first; r <= last; r++) if (cleaned[r] !== 0) anyClean = true;
    let cleanIt = judgedRaw !== 0;
    let expMean = mean;
    if (anyClean) {
      const predictedC = predictPeriod(ps, pc, pcl, cleaned, first, last, slot, meanC);
      const judgedC = noise.flagOf(actual, predictedC, days, p, input);
      if (judgedC !== judgedRaw) judged = 0;
      cleanIt = judgedC !== 0 && (judgedRaw === 0 || judgedRaw === judgedC);
      expMean = meanC;
    }
    if (judged !== 0) {
      const before = lag === 0 ? first - 4 : first - lag;
      if (before >= 0 && b[before] >= start) {
        const predictedB = predictPeriod(
          ps,
          pc,
          pcl,
          cleaned,
          before,
          lag === 0 ? first - 1 : last - lag,
          slot,
          scratchMean,
        );
        if (classifyPct(actual, predictedB, p.percentualChange / 100) !== judged) judged = 0;
      }
    }
    // The same period of the previous years (explained: cleaned as flagged, not reported).
    let factor = 1;
    if (judged !== 0 && perYear > 0) {
      judged = judgedWithYears(
        input,
        p,
        judged,
        { ps, pc, b, j, lag, perYear },
        a,
        stop,
        actual,
        predicted,
        days,
        1,
      );
      factor = yearOut[0];
    }
    if (cleanIt) {
      cleaned[j] = 1;
      for (let w = 0; w < 7; w++) pcl[slot + w] = expMean[w] * pc[slot + w];
    }
    // A reference that spans the flagged period before (cw: four weeks, mpy: a year) still holds the
    // old level: the same change would be reported again period after period. Only its first
    // period is reported (ChangePoint covers its duration).
    const flag = continuation && judged !== 0 && judgedRaw === lastJudged && j === lastJ + 1 ? 0 : judged;
    lastJudged = judgedRaw;
    lastJ = j;
    if (flag !== 0) {
      ws.flagged = true;
      // Alternating magnitudes keep consecutive flagged periods apart in assembly.
      const mark = (j & 1) === 0 ? flag : 2 * flag;
      for (let t = a; t < stop; t++) f[t] = mark;
    }
    // Day-level expectations: for the anomaly's window, or every day for a chart.
    if (flag !== 0 || ws.expectedEveryDay) {
      let wd = (wd0 + a) % 7;
      for (let t = a; t < stop; t++) {
        if (special === null || special[t] === 0) e[t] = mean[wd] * factor;
        wd = wd === 6 ? 0 : wd + 1;
      }
    }
  }
  return x;
}

/**
 * CW without special dates: every reference weekday has its four days, so a day's expectation is
 * the mean of the same weekday in the four weeks before, read directly (no per-period sums). Same
 * sums in the same order as comparePeriods, so the same results.
 */
function compareWeeksPlain(
  input: RunInput,
  p: PeriodParams,
  ws: Workspace,
  layout: Layout,
  perYear: number,
): Float64Array {
  const { x, start, end } = input;
  const e = ws.expected;
  const f = ws.flags;
  const b = layout.bounds;
  const count = layout.count;
  e.fill(Number.NaN, 0, end);
  f.fill(0, 0, end);
  ws.flagged = false;
  noise.reset();
  let lastJudged = 0;
  let lastJ = -2;
  // Returns are not events (see cleanedPeriods): weeks judged anomalous count as expected (their
  // days' expectations in ws.clean) in later references.
  const cleaned = cleanedFlags(count);
  cleaned.fill(0, 0, count);
  const clean = ws.clean;
  for (let j = 0; j + 1 < count; j++) {
    const a = b[j];
    if (a - 28 < start) continue;
    if (a >= end) break;
    const stop = Math.min(a + 7, end);
    // A trailing partial week counts once it has at least four of its days.
    if (stop - a < 4) continue;
    let actual = 0;
    let predicted = 0;
    for (let t = a; t < stop; t++) {
      actual += x[t];
      predicted += (x[t - 28] + x[t - 21] + x[t - 14] + x[t - 7]) / 4;
    }
    const days = stop - a;
    const judgedRaw = noise.judge(actual, predicted, days, p, input, 4);
    let judged = judgedRaw;
    const anyClean = j >= 4 && (cleaned[j - 1] | cleaned[j - 2] | cleaned[j - 3] | cleaned[j - 4]) !== 0;
    let cleanIt = judgedRaw !== 0;
    if (anyClean) {
      const predictedC = weeksBack(x, clean, cleaned, j, a, stop, 1);
      const judgedC = noise.flagOf(actual, predictedC, days, p, input, 4);
      if (judgedC !== judgedRaw) judged = 0;
      cleanIt = judgedC !== 0 && (judgedRaw === 0 || judgedRaw === judgedC);
    }
    if (judged !== 0 && j >= 8 && a - 56 >= start) {
      const predictedB = weeksBack(x, clean, cleaned, j, a, stop, 5);
      if (classifyPct(actual, predictedB, p.percentualChange / 100) !== judged) judged = 0;
    }
    let factor = 1;
    if (judged !== 0 && perYear > 0) {
      const period = { ps: ws.periodSum, pc: ws.periodCount, b, j, lag: 0, perYear };
      judged = judgedWithYears(input, p, judged, period, a, stop, actual, predicted, days, 4);
      factor = yearOut[0];
    }
    if (cleanIt) {
      // The week as expected: its days from the reference with the reference's cleaned weeks as expected.
      cleaned[j] = 1;
      for (let t = a; t < stop; t++) clean[t] = dayBack(x, clean, cleaned, j, t, 1);
    }
    // The same change seen again against a reference that still holds the old level (see above).
    const flag = judged !== 0 && judgedRaw === lastJudged && j === lastJ + 1 ? 0 : judged;
    lastJudged = judgedRaw;
    lastJ = j;
    if (flag !== 0) {
      ws.flagged = true;
      const mark = (j & 1) === 0 ? flag : 2 * flag;
      for (let t = a; t < stop; t++) f[t] = mark;
    }
    if (flag !== 0 || ws.expectedEveryDay) {
      for (let t = a; t < stop; t++) e[t] = ((x[t - 28] + x[t - 21] + x[t - 14] + x[t - 7]) / 4) * factor;
    }
  }
  return x;
}

/** Day t's mean over the four same weekdays of weeks j - from - 3 .. j - from, cleaned weeks as expected. */
function dayBack(
  x: Float64Array,
  clean: Float64Array,
  cleaned: Uint8Array,
  j: number,
  t: number,
  from: number,
): number {
  let sum = 0;
  for (let k = from; k < from + 4; k++) {
    const u = t - 7 * k;
    sum += cleaned[j - k] !== 0 ? clean[u] : x[u];
  }
  return sum / 4;
}

/** The prediction of week j's days [a, stop) from the four weeks `from` .. from + 3 weeks back (dayBack). */
function weeksBack(
  x: Float64Array,
  clean: Float64Array,
  cleaned: Uint8Array,
  j: number,
  a: number,
  stop: number,
  from: number,
): number {
  let predicted = 0;
  for (let t = a; t < stop; t++) predicted += dayBack(x, clean, cleaned, j, t, from);
  return predicted;
}

/**
 * Periods a year, for the year before (judgedWithYears): the same period that many back. 0: none —
 * MPY compares with the same month a year before already.
 */
const PER_YEAR = { mom: 12, qoq: 4, mpy: 0, cw: 52 } as const;

export const mom: DetectorImpl<'mom'> = {
  type: 'mom',
  code: 'MOM',
  aggregate: true,
  minHistory: () => 45,
  run: (input, p, ws) => {
    return comparePeriods(input, p, ws, periodBounds(input, 1), 1, false, PER_YEAR.mom);
  },
};

export const qoq: DetectorImpl<'qoq'> = {
  type: 'qoq',
  code: 'QOQ',
  aggregate: true,
  minHistory: () => 135,
  run: (input, p, ws) => {
    return comparePeriods(input, p, ws, periodBounds(input, 3), 1, false, PER_YEAR.qoq);
  },
};

export const mpy: DetectorImpl<'mpy'> = {
  type: 'mpy',
  code: 'MPY',
  aggregate: true,
  minHistory: () => 380,
  run: (input, p, ws) => {
    return comparePeriods(input, p, ws, periodBounds(input, 1), 12, true, PER_YEAR.mpy);
  },
};

export const cw: DetectorImpl<'cw'> = {
  type: 'cw',
  code: 'CW',
  aggregate: true,
  minHistory: () => 35,
  run: (input, p, ws) => {
    const layout = periodBounds(input, 0);
    // A ratio's weeks are sums per event: the general path weighs them.
    return input.special === null && input.weights === undefined
      ? compareWeeksPlain(input, p, ws, layout, PER_YEAR.cw)
      : comparePeriods(input, p, ws, layout, 0, true, PER_YEAR.cw);
  },
};
