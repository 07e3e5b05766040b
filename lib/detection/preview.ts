/**
 * Detector preview for one series: what the detector expected each day, which days it flagged,
 * the anomalies it would report, or why it skipped the series.
 */
import { alignCalendar } from '../calendar/special-calendar';
import { fromEpochDay } from '../calendar/days';
import { type ResolvedDetector, resolveDetectors, runDetector, seriesWindow } from './detect';
import type { AnyDetectorParams, DetectorType } from './params';
import type { AnomalyDraft, AnomalyType, DetectionContext, DetectorConfig, SeriesInput, Skip } from './types';
import { Workspace } from './workspace';

export interface SeriesPreview {
  type: DetectorType;
  code: AnomalyType;
  params: AnyDetectorParams;
  /** First and last analysed dates and the first scanned date (null without data). */
  analysedFrom: string | null;
  scanFrom: string | null;
  analysedTo: string | null;
  values: Float64Array;
  /** Expected value per day; NaN where the detector has no opinion (warm-up, skipped). */
  expected: Float64Array;
  /** +1 / -1 for flagged days before mode, special-date and volume filtering; 0 otherwise. */
  flags: Int8Array;
  anomalies: AnomalyDraft[];
  skipped: Skip | null;
}

/** Runs one detector on one series and returns everything a chart of it needs. */
export function previewSeries(
  input: SeriesInput,
  detector: DetectorConfig | ResolvedDetector,
  ctx: DetectionContext = {},
): SeriesPreview {
  const [d] = resolveDetectors([detector]);
  const n = input.values.length;
  const ws = new Workspace();
  ws.ensure(n);
  ws.expectedEveryDay = true;
  const w = seriesWindow(input, ctx);
  const own = ctx.seriesCalendar?.(input.seriesId) ?? ctx.calendar;
  const calendar = own && d.params.useSpecialDates ? alignCalendar(own, input.dayIndex0, n) : null;
  const anomalies: AnomalyDraft[] = [];
  const skipped = runDetector(input, d, ctx, w, calendar, ws, anomalies);
  const expected = new Float64Array(n).fill(Number.NaN);
  const flags = new Int8Array(n);
  if (skipped === null) {
    expected.set(ws.expected.subarray(0, w.end));
    // Window detectors alternate ±1 / ±2 between consecutive windows: the preview shows the sign.
    for (let t = 0; t < w.end; t++) flags[t] = Math.sign(ws.flags[t]);
  }
  const hasData = w.start < w.end;
  return {
    type: d.type,
    code: d.impl.code,
    params: d.params,
    analysedFrom: hasData ? fromEpochDay(input.dayIndex0 + w.start) : null,
    scanFrom: hasData ? fromEpochDay(input.dayIndex0 + w.scanFrom) : null,
    analysedTo: hasData ? fromEpochDay(input.dayIndex0 + w.end - 1) : null,
    values: input.values,
    expected,
    flags,
    anomalies,
    skipped,
  };
}
