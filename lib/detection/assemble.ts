/**
 * Turns a detector's per-day flags into anomaly drafts: consecutive days with the same sign merge
 * into one anomaly, then mode, special dates and the volume guard decide what is reported.
 */
import { SUPPRESS_NEGATIVE, SUPPRESS_POSITIVE } from '../calendar/special-calendar';
import type { CommonParams } from './params';
import { type AnomalyOut, makeDraft } from './anomaly-columns';
import type { AnomalyType, SeriesId } from './types';

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
  start: number;
  scanFrom: number;
  end: number;
  /** Anomalies of this type before values[0]. */
  recurrenceBase: number;
}

/**
 * Appends the reported anomalies to `out`. Runs that end before scanFrom are not reported but
 * still count towards the recurrence of later ones; a run that crosses scanFrom is reported whole.
 */
/** Day u's flag, or 0 where a special day explains it (gap and cardinality runs split there). */
function signAt(flags: Int8Array, special: Uint8Array, u: number): number {
  const f = flags[u];
  if (f === 0) return 0;
  return (special[u] & (f > 0 ? SUPPRESS_POSITIVE : SUPPRESS_NEGATIVE)) !== 0 ? 0 : f;
}

export function assembleAnomalies(a: AssembleInput, out: AnomalyOut): void {
  const { flags, expected, actual, values, total, special, end } = a;
  const words = flags.byteOffset === 0 && a.flagWords?.buffer === flags.buffer ? a.flagWords : undefined;
  const mode = a.params.mode;
  const minVolume = a.params.minVolume;
  const shareFromExpected = a.code === 'Gap';
  let recurrence = a.recurrenceBase;
  // Missing data (or values) on a special day is explained, the days around it are not: gaps and
  // cardinality runs split there instead of being suppressed whole.
  const split = (a.code === 'Gap' || a.code === 'Cardinality') && special !== null;
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
    const sign = split ? signAt(flags, special, t) : flags[t];
    if (sign === 0) {
      t++;
      continue;
    }
    let stop = t + 1;
    while (stop < end && (split ? signAt(flags, special, stop) : flags[stop]) === sign) stop++;
    const positive = sign > 0;
    let keep = mode === 'both' || (positive ? mode === 'positive' : mode === 'negative');
    if (keep && special !== null && !a.aggregate) {
      const bit = positive ? SUPPRESS_POSITIVE : SUPPRESS_NEGATIVE;
      for (let u = t; u < stop; u++) {
        if ((special[u] & bit) !== 0) {
          keep = false;
          break;
        }
      }
    }
    if (keep) {
      let act = 0;
      let pred = 0;
      let own = 0;
      let all = 0;
      for (let u = t; u < stop; u++) {
        const e = expected[u];
        if (!Number.isNaN(e)) {
          act += actual[u];
          pred += e;
        }
        own += shareFromExpected ? (!Number.isNaN(e) ? e : 0) : values[u];
        if (total !== undefined) all += total[u];
      }
      const duration = stop - t;
      if (minVolume > 0 && Math.max(act, pred) / duration < minVolume) keep = false;
      if (keep) {
        if (stop > a.scanFrom) {
          const share = total !== undefined && all !== 0 ? (own / all) * 100 : null;
          const startDay = a.dayIndex0 + t;
          if (Array.isArray(out))
            out.push(
              makeDraft(a.seriesId, a.code, startDay, duration, act, pred, share, recurrence, positive),
            );
          else out.add(a.seriesId, a.code, startDay, duration, act, pred, share, recurrence, positive);
        }
        recurrence++;
      }
    }
    t = stop;
  }
}
