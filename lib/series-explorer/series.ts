/**
 * One series as the explorer draws it: every loaded day with the actual value, the chosen detector's expected
 * value and (for detectors that judge each day against a percentage of the expectation) its band, the special
 * dates of the view's calendar, the comments that apply to the series, and every stored anomaly of the series.
 */
import { readSeriesRecordsJson } from '../process-job';
import type { Database } from '../db/database';
import { toEpochDay } from '../calendar/days';
import { calendarFlags, SUPPRESS_NEGATIVE, SUPPRESS_POSITIVE } from '../calendar/special-calendar';
import { readComments } from '../comments/in-window';
import { commentMatches } from '../comments/matching';
import { type SeriesHoliday, seriesDetectionContext } from '../process-job/holiday-calendars';
import { runPreview } from '../series-explorer/detector-preview';
import type { PreviewReads } from './preview-group';
import { type ChartDetector, chartDetector } from './chart-detector';
import type { AnomalyComment } from '../filters/types';
import { type Caller, isAdmin } from '../identity/caller';
import { ValidationError } from '../shared/errors';
import { seriesLayout } from './layout';
import { explorerView } from './tree';

/** Detectors whose every day is flagged when |actual - expected| ≥ percentualChange % of |expected|. */
const BAND_TYPES = new Set(['dod', 'wow', 'peer', 'mix', 'cardinality']);

export interface ExplorerPoint {
  date: string;
  value: number;
  expected: number | null;
  /** The detector's band around the expectation (null where it has none). */
  lower: number | null;
  upper: number | null;
  /** +1 / -1 on a day the detector flags. */
  flag: number;
  /** No source row that day: the value was filled. */
  filled: boolean;
}

export interface ExplorerSeries {
  dataViewId: number;
  dataView: string;
  /** The measure drawn, and the measures the view has. */
  measure: 'value' | 'count' | 'ratio';
  measures: Array<'value' | 'count' | 'ratio'>;
  seriesId: number;
  categories: Record<string, string | null>;
  /** The view's detectors; `detector` is the one whose expectations are drawn. */
  detectors: Array<{ index: number; type: string }>;
  detector: { type: string; code: string; params: Record<string, unknown> } | null;
  /** The band is drawn: its rule, or why not. */
  band: string | null;
  skipped: unknown;
  points: ExplorerPoint[];
  specialDates: Array<{ date: string; impact: 'both' | 'positive' | 'negative' }>;
  /** The public holidays (and special-period days) of the series' calendar, by name: drawn on the chart. */
  holidays: SeriesHoliday[];
  comments: AnomalyComment[];
  /** Every stored anomaly of the series, newest first. */
  anomalies: Array<Record<string, unknown>>;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
const HIDDEN = new Set(['series_id', 'detector_index', 'created_at']);

/** GET /dataviews/{id}/explorer/series/{seriesId}?type=: the chart and the anomalies of one series. */
export async function explorerSeries(
  c: { db: Database } & PreviewReads,
  caller: Caller,
  id: number,
  seriesId: number,
  opts: { type?: string; measure?: string },
): Promise<ExplorerSeries> {
  const view = await explorerView(c, caller, id);
  const row = view.record;
  const measure = opts.measure === undefined || opts.measure === '' ? 'value' : opts.measure;
  if (measure !== 'value' && measure !== 'count' && measure !== 'ratio')
    throw ValidationError.field('measure', `must be value, count or ratio, got '${opts.measure}'`);
  if (measure !== 'value' && !view.definition.source?.countColumn)
    throw ValidationError.field('measure', `this data view has no ${measure} measure (source.countColumn)`);
  const configured = (view.definition.analysis?.detectors ?? []) as unknown as ChartDetector[];
  const detector = chartDetector(isAdmin(caller), configured, opts.type);
  const preview = await runPreview(
    c,
    row,
    { seriesId, detector: { type: detector?.type ?? 'dod', params: detector?.params ?? {} }, measure },
    seriesLayout,
  );
  const pct = Number(preview.detector.params.percentualChange);
  const banded = detector !== undefined && BAND_TYPES.has(preview.detector.type) && Number.isFinite(pct);
  const frac = pct / 100;
  const points: ExplorerPoint[] = preview.points.map((p) => {
    const band = banded && p.expected !== null ? frac * Math.abs(p.expected) : null;
    return {
      date: p.date,
      value: p.value,
      expected: p.expected,
      lower: band === null || p.expected === null ? null : p.expected - band,
      upper: band === null || p.expected === null ? null : p.expected + band,
      flag: p.flag,
      filled: p.filled,
    };
  });
  const specialDates: ExplorerSeries['specialDates'] = [];
  let holidays: ExplorerSeries['holidays'] = [];
  if (points.length) {
    const day0 = toEpochDay(points[0].date);
    const own = await seriesDetectionContext(
      c.db,
      view.schema,
      view.definition,
      preview.seriesId,
      day0,
      points.length,
    );
    const ctx = own.ctx;
    holidays = own.holidays;
    if (ctx.calendar) {
      for (let t = 0; t < points.length; t++) {
        const f = calendarFlags(ctx.calendar, day0 + t);
        if (f === 0) continue;
        const impact =
          (f & SUPPRESS_POSITIVE) !== 0 && (f & SUPPRESS_NEGATIVE) !== 0
            ? 'both'
            : (f & SUPPRESS_POSITIVE) !== 0
              ? 'positive'
              : 'negative';
        specialDates.push({ date: points[t].date, impact });
      }
    }
  }
  const range = points.length
    ? { dateFrom: points[0].date, dateTo: points[points.length - 1].date }
    : { dateFrom: '0001-01-01', dateTo: '9999-12-31' };
  const comments = (await readComments(c.db, [view.id], range)).filter((cm) =>
    commentMatches(cm, {
      dataViewId: view.id,
      startDate: range.dateFrom,
      endDate: range.dateTo,
      categories: preview.categories,
    }),
  );
  // to_jsonb keeps every column (also ones added later) with dates as yyyy-MM-dd text.
  const rows = await readSeriesRecordsJson(c.db, view.schema, preview.seriesId);
  const anomalies = rows.map((r) => {
    const record = (typeof r.j === 'string' ? JSON.parse(r.j) : r.j) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      if (HIDDEN.has(k)) continue;
      // NaN measures come out of jsonb as text: no number there.
      out[camel(k)] = v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? null : v;
    }
    out.id = Number(out.id);
    out.dataViewId = view.id;
    out.dataView = view.label;
    out.seriesId = preview.seriesId;
    out.categories = preview.categories;
    return out;
  });
  return {
    dataViewId: view.id,
    dataView: view.label,
    measure,
    measures: view.definition.source?.countColumn ? ['value', 'count', 'ratio'] : ['value'],
    seriesId: preview.seriesId,
    categories: preview.categories,
    detectors: view.detectors,
    detector: detector ? preview.detector : null,
    band: banded ? `expected ± ${pct} % (percentualChange)` : null,
    skipped: preview.skipped,
    points,
    specialDates,
    holidays,
    comments,
    anomalies,
  };
}
