/**
 * Turns a detector's per-day flags into anomaly drafts: consecutive days with the same flag merge
 * into one anomaly, then mode, special dates and the volume guard decide what is reported. Period
 * detectors (and ChangePoint) flag consecutive windows with alternating magnitudes (±1, ±2), so two
 * flagged months stay two anomalies.
 */
import { NO_DATA, SUPPRESS_NEGATIVE, SUPPRESS_POSITIVE } from '../calendar/special-calendar';
import type { CommonParams } from './params';
import { type AnomalyOut, makeDraft } from './anomaly-columns';
import type { AnomalyType, SeriesId } from './types';

/** Day detectors merge same-sign flagged days separated by at most this many quiet days. */
const BRIDGE_DAYS = 2;

/** A window anomaly is explained when special days of its direction are at least 1/7 of its days. */
const AGGREGATE_SPECIAL_SHARE = 7;

export interface AssembleInput {
  seriesId: SeriesId;
  code: AnomalyType;
  aggregate: boolean;
  params: CommonParams;
  dayIndex0: number;
  /** Series values (for the share %). */
  values: Float64Array;
  /** What the detector compared (values, zeros for gaps, counts for cardinality). */
  actual: Float64Array;
  expected: Float64Array;
  flags: Int8Array;
  /** The same flags read as 32-bit words (four days each), for skipping unflagged days. */
  flagWords?: Int32Array;
  /** Calendar flags aligned with values when useSpecialDates is on. */
  special: Uint8Array | null;
  total: Float64Array | undefined;
  /** The series' numbers whose share of `total` is the share % (default values; a ratio's value measure). */
  shareOf?: Float64Array;
  /** A ratio's events per day: actual and predicted are then averages per event over the anomaly's days. */
  weights?: Float64Array;
  start: number;
  scanFrom: number;
  end: number;
  /** Anomalies of this type before values[0]. */
  recurrenceBase: number;
  /** Materiality in the series' units (RunInput.material); 0 keeps every anomaly. */
  material?: number;
}

/**
 * Appends the reported anomalies to `out`. Runs that end before scanFrom are not reported but
 * still count towards the recurrence of later ones; a run that crosses scanFrom is reported whole.
 */
/**
 * Day u's flag, or 0 on a day without source data (day detectors) or where a special day explains
 * it (gap and cardinality runs split there).
 */
function signAt(flags: Int8Array, special: Uint8Array, u: number, split: boolean): number {
  const f = flags[u];
  if (f === 0) return 0;
  const bits = special[u];
  if ((bits & NO_DATA) !== 0) return 0;
  if (!split) return f;
  return (bits & (f > 0 ? SUPPRESS_POSITIVE : SUPPRESS_NEGATIVE)) !== 0 ? 0 : f;
}

export function assembleAnomalies(a: AssembleInput, out: AnomalyOut): void {
  const { flags, expected, actual, total, special, end, weights } = a;
  const values = a.shareOf ?? a.values;
  const words = flags.byteOffset === 0 && a.flagWords?.buffer === flags.buffer ? a.flagWords : undefined;
  const mode = a.params.mode;
  // Cardinality counts children: its materiality is minChange, not a volume.
  const minVolume = a.code === 'Cardinality' ? 0 : (a.material ?? 0);
  const shareFromExpected = a.code === 'Gap';
  let recurrence = a.recurrenceBase;
  // Missing data (or values) on a special day is explained, the days around it are not: gaps and
  // cardinality runs split there instead of being suppressed whole.
  const split = a.code === 'Gap' || a.code === 'Cardinality';
  // Day detectors never report days without source data (NO_DATA); windows keep their whole period.
  const bySign = special !== null && (split || !a.aggregate);
  const bridge = !a.aggregate && !split;
  let t = a.start;
  while (t < end) {
    // Most days are not flagged: skip them four at a time where the flags are aligned words.
    if (flags[t] === 0) {
      t++;
      while (t < end && (t & 3) !== 0 && flags[t] === 0) t++;
      if (words !== undefined) while (t + 4 <= end && words[t >> 2] === 0) t += 4;
      while (t < end && flags[t] === 0) t++;
      continue;
    }
    const sign = bySign ? signAt(flags, special, t, split) : flags[t];
    if (sign === 0) {
      t++;
      continue;
    }
    let stop = t + 1;
    for (;;) {
      while (stop < end && (bySign ? signAt(flags, special, stop, split) : flags[stop]) === sign) stop++;
      // Day detectors: one event flagged on days a day or two apart (a gradual collapse, a spike
      // and its echo) is one anomaly; the quiet days between belong to it.
      if (!bridge) break;
      let next = stop;
      while (next < end && next - stop < BRIDGE_DAYS && flags[next] === 0) next++;
      if (next === stop || next >= end || next - stop > BRIDGE_DAYS) break;
      if ((bySign ? signAt(flags, special, next, split) : flags[next]) !== sign) break;
      stop = next;
    }
    const positive = sign > 0;
    let keep = mode === 'both' || (positive ? mode === 'positive' : mode === 'negative');
    if (keep && special !== null) {
      const bit = positive ? SUPPRESS_POSITIVE : SUPPRESS_NEGATIVE;
      let matching = 0;
      for (let u = t; u < stop; u++) if ((special[u] & bit) !== 0) matching++;
      // A day anomaly on a special day of its direction is explained. A window anomaly (a period,
      // a level shift) has left special days out of its comparison; it is explained when such days
      // make up at least a seventh of it (a holiday week, a special period over the month).
      if (a.aggregate ? matching * AGGREGATE_SPECIAL_SHARE >= stop - t : matching > 0) keep = false;
    }
    if (keep) {
      let act = 0;
      let pred = 0;
      let judged = 0;
      let own = 0;
      let all = 0;
      // A ratio's figures are per event: Σ value ÷ Σ count over the judged days (weights: the counts).
      let events = 0;
      for (let u = t; u < stop; u++) {
        const e = expected[u];
        if (!Number.isNaN(e)) {
          const w = weights === undefined ? 1 : weights[u];
          act += w * actual[u];
          pred += w * e;
          events += w;
          judged++;
        }
        own += shareFromExpected ? (!Number.isNaN(e) ? e : 0) : values[u];
        if (total !== undefined) all += total[u];
      }
      const duration = stop - t;
      // Figures are per day (a ratio's per event) over the judged days; change cum is the total change
      // over them.
      const actDay = events > 0 ? act / events : 0;
      const predDay = events > 0 ? pred / events : 0;
      if (weights !== undefined) {
        act = actDay * judged;
        pred = predDay * judged;
      }
      if (judged === 0 || (minVolume > 0 && Math.max(actDay, predDay) < minVolume)) keep = false;
      if (keep) {
        if (stop > a.scanFrom) {
          const share = total !== undefined && all !== 0 ? (own / all) * 100 : null;
          const startDay = a.dayIndex0 + t;
          const cum = act - pred;
          if (Array.isArray(out))
            out.push(
              makeDraft(
                a.seriesId,
                a.code,
                startDay,
                duration,
                actDay,
                predDay,
                share,
                recurrence,
                positive,
                cum,
              ),
            );
          else
            out.add(
              a.seriesId,
              a.code,
              startDay,
              duration,
              actDay,
              predDay,
              share,
              recurrence,
              positive,
              cum,
            );
        }
        recurrence++;
      }
    }
    t = stop;
  }
}
