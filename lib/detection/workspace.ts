/**
 * Scratch arrays reused across series so that detection allocates nothing per series or per day.
 * One workspace per worker thread; arrays grow to the longest series seen.
 */
import { SortedWindow } from './sorted-window';

export class Workspace {
  capacity = 0;
  /** Expected value per day (NaN where the detector has no opinion). */
  expected = new Float64Array(0);
  /** +1 positive, -1 negative, 0 not flagged. */
  flags = new Int8Array(0);
  /** The flags' buffer as 32-bit words: four days per read when looking for flagged days. */
  flagWords = new Int32Array(0);
  /** The series as baselines see it: flagged and special days replaced by their expected value. */
  clean = new Float64Array(0);
  /** A detector's calendar flags with NO_DATA on the series' days without source data. */
  mask = new Uint8Array(0);
  maskFor: Float64Array | null = null;
  maskCalendar: Uint8Array | null = null;
  maskEnd = -1;
  /** The series with days without data imputed, for the window detectors (see detect.ts). */
  imputed = new Float64Array(0);
  imputedFor: Float64Array | null = null;
  imputedStart = -1;
  imputedEnd = -1;
  /** The series' day-level noise (see detect.ts daySigma), cached per series. */
  sigma = 0;
  sigmaMean = 0;
  sigmaFor: Float64Array | null = null;
  sigmaStart = -1;
  sigmaEnd = -1;
  /** The view total's mean level over the series' analysed days (detect.ts totalLevel), cached per series. */
  level = 0;
  levelFor: Float64Array | null = null;
  levelStart = -1;
  levelEnd = -1;
  /** All zeros: the actual values of missing days. */
  zeros = new Float64Array(0);
  /** Prefix sums for segment statistics. */
  prefixA = new Float64Array(0);
  prefixB = new Float64Array(0);
  prefixC = new Float64Array(0);
  prefixD = new Float64Array(0);
  /** Per-weekday sums and counts. */
  weekSum = new Float64Array(7);
  weekCount = new Float64Array(7);
  /** Per (period, weekday) sums and counts of the calendar-period detectors. */
  periodSum = new Float64Array(0);
  periodCount = new Float64Array(0);
  /** The same slots of periods judged anomalous, as expected (returns are not events: periods.ts). */
  periodClean = new Float64Array(0);
  /**
   * Whether detectors must write an expected value for every day they judge (charts, preview).
   * Otherwise a detector may leave days outside its flagged windows NaN when that saves work.
   */
  expectedEveryDay = false;
  /** Set false by a detector that flagged nothing, so that its run needs no assembly. */
  flagged = true;
  window = new SortedWindow(64);

  /** Makes every array hold at least n days. */
  ensure(n: number): void {
    if (n <= this.capacity) return;
    const cap = Math.max(n, Math.ceil(this.capacity * 1.5));
    this.capacity = cap;
    this.expected = new Float64Array(cap);
    this.flags = new Int8Array(Math.ceil(cap / 4) * 4);
    this.flagWords = new Int32Array(this.flags.buffer);
    this.clean = new Float64Array(cap);
    this.zeros = new Float64Array(cap);
    this.mask = new Uint8Array(cap);
    this.imputed = new Float64Array(cap);
    this.imputedFor = null;
    this.prefixA = new Float64Array(cap + 1);
    this.prefixB = new Float64Array(cap + 1);
    this.prefixC = new Float64Array(cap + 1);
    this.prefixD = new Float64Array(cap + 1);
    this.periodSum = new Float64Array((Math.ceil(cap / 7) + 8) * 7);
    this.periodCount = new Float64Array((Math.ceil(cap / 7) + 8) * 7);
    this.periodClean = new Float64Array((Math.ceil(cap / 7) + 8) * 7);
  }
}
