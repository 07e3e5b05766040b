/**
 * Anomalies as columns: what a shard's detection appends to and the staging writer reads, with no
 * object per anomaly (a shard can find hundreds of thousands). Drafts are made on demand, by the
 * same function that makes them for a single series.
 */
import { fromEpochDay } from '../calendar/days';
import type { AnomalyDraft, AnomalyType, SeriesId } from './types';

/**
 * Date strings of epoch days 0 .. 2^16 (1970 – 2149) made on first use: a run formats the same
 * few hundred dates many times, and an indexed array is cheaper than a map.
 */
const DATE_CACHE_DAYS = 65_536;
const dateCache: string[] = [];

/** The ISO date of an epoch day, cached. */
export function dateOf(epochDay: number): string {
  if (epochDay < 0 || epochDay >= DATE_CACHE_DAYS) return fromEpochDay(epochDay);
  if (dateCache.length === 0) for (let d = 0; d < DATE_CACHE_DAYS; d++) dateCache.push('');
  let text = dateCache[epochDay];
  if (text === '') {
    text = fromEpochDay(epochDay);
    dateCache[epochDay] = text;
  }
  return text;
}

/**
 * Below this |predicted| (per day) nothing material was expected: the change % is null rather than
 * a ratio to almost nothing. The detectors do not judge such days (minVolume); this guards records
 * whose expectation is still near zero.
 */
const MATERIAL_EXPECTED = 1e-6;

/**
 * The draft of one anomaly. Actual and predicted are per day over the window's judged days, change
 * is their difference and change cum the total change over the window (change × judged days when
 * not given), so it grows linearly with the duration.
 */
export function makeDraft(
  seriesId: SeriesId,
  type: AnomalyType,
  startDay: number,
  duration: number,
  actualValue: number,
  predictedValue: number,
  sharePct: number | null,
  recurrence: number,
  positive: boolean,
  changeCum?: number,
): AnomalyDraft {
  const change = actualValue - predictedValue;
  const material = Math.abs(predictedValue) > MATERIAL_EXPECTED * Math.max(1, Math.abs(actualValue));
  const endDay = startDay + duration - 1;
  return {
    seriesId,
    type,
    startDay,
    endDay,
    startDate: dateOf(startDay),
    endDate: dateOf(endDay),
    duration,
    actualValue,
    predictedValue,
    change,
    changePct: material ? (change / Math.abs(predictedValue)) * 100 : null,
    changeCum: changeCum ?? change * duration,
    sharePct,
    recurrence,
    result: positive ? 'Positive' : 'Negative',
  };
}

function grown<T extends Float64Array | Int32Array | Int16Array | Uint8Array>(a: T, size: number): T {
  const next = new (a.constructor as new (n: number) => T)(size);
  next.set(a);
  return next;
}

export class AnomalyColumns {
  length = 0;
  readonly seriesIds: SeriesId[] = [];
  readonly types: AnomalyType[] = [];
  startDay = new Int32Array(256);
  duration = new Int32Array(256);
  actual = new Float64Array(256);
  predicted = new Float64Array(256);
  /** NaN where the share is unknown (null in a draft). */
  sharePct = new Float64Array(256);
  recurrence = new Int32Array(256);
  positive = new Uint8Array(256);
  /** Position of the detector in the view's list (set by `tag`; 0 until then). */
  detector = new Int16Array(256);
  /** Total change over the window (NaN: change × duration). */
  changeCum = new Float64Array(256);

  add(
    seriesId: SeriesId,
    type: AnomalyType,
    startDay: number,
    duration: number,
    actual: number,
    predicted: number,
    sharePct: number | null,
    recurrence: number,
    positive: boolean,
    changeCum = Number.NaN,
  ): void {
    const i = this.length;
    if (i === this.startDay.length) this.grow(i * 2);
    this.seriesIds.push(seriesId);
    this.types.push(type);
    this.startDay[i] = startDay;
    this.duration[i] = duration;
    this.actual[i] = actual;
    this.predicted[i] = predicted;
    this.sharePct[i] = sharePct === null ? Number.NaN : sharePct;
    this.recurrence[i] = recurrence;
    this.positive[i] = positive ? 1 : 0;
    this.changeCum[i] = changeCum;
    this.length = i + 1;
  }

  /** Set for the anomalies of an interval measure: their change is in units, no percent (detect.ts). */
  noPercent = false;

  /** Marks the anomalies added since `from` as found by detector `index`. */
  tag(from: number, index: number): void {
    this.detector.fill(index, from, this.length);
  }

  /** Anomaly i as a draft. */
  draft(i: number): AnomalyDraft {
    const share = this.sharePct[i];
    const d = makeDraft(
      this.seriesIds[i],
      this.types[i],
      this.startDay[i],
      this.duration[i],
      this.actual[i],
      this.predicted[i],
      Number.isNaN(share) ? null : share,
      this.recurrence[i],
      this.positive[i] === 1,
      Number.isNaN(this.changeCum[i]) ? undefined : this.changeCum[i],
    );
    if (this.noPercent) d.changePct = null;
    return d;
  }

  toDrafts(): AnomalyDraft[] {
    return Array.from({ length: this.length }, (_, i) => this.draft(i));
  }

  private grow(size: number): void {
    this.startDay = grown(this.startDay, size);
    this.duration = grown(this.duration, size);
    this.actual = grown(this.actual, size);
    this.predicted = grown(this.predicted, size);
    this.sharePct = grown(this.sharePct, size);
    this.recurrence = grown(this.recurrence, size);
    this.positive = grown(this.positive, size);
    this.detector = grown(this.detector, size);
    this.changeCum = grown(this.changeCum, size);
  }
}

/** Where assembly appends: drafts (one series, a preview) or columns (a shard). */
export type AnomalyOut = AnomalyDraft[] | AnomalyColumns;
