/**
 * The daily values of one series around an anomaly, with the expected values of the view's detector of
 * that type: what Home draws for each anomaly. Any reader of the view may ask (unlike the editor's preview).
 */
import type { Database } from '../db/database';
import { readView } from '../dataviews/scope';
import { type Caller, isAdmin, requireRead } from '../identity/caller';
import { ValidationError } from '../shared/errors';
import { type ChartDetector, chartDetector } from './chart-detector';
import { runPreview } from './detector-preview';
import type { PreviewReads } from './preview-group';

export interface SeriesChart {
  dataViewId: number;
  seriesId: number;
  categories: Record<string, string | null>;
  type: string | null;
  /** The measure drawn: the view's value, its count or their ratio (an anomaly of that measure). */
  measure: 'value' | 'count' | 'ratio';
  points: Array<{ date: string; value: number; expected: number | null; flag: number; filled: boolean }>;
}

export async function seriesChart(
  c: { db: Database } & PreviewReads,
  caller: Caller,
  dataViewId: number,
  seriesId: number,
  opts: { dateFrom?: string; dateTo?: string; type?: string; measure?: string },
): Promise<SeriesChart> {
  requireRead(caller);
  const measure = opts.measure ?? 'value';
  if (measure !== 'value' && measure !== 'count' && measure !== 'ratio')
    throw ValidationError.field('measure', `must be value, count or ratio, got '${opts.measure}'`);
  const row = await readView(caller, c.db, dataViewId);
  const def = row.definition;
  const detector = chartDetector(
    isAdmin(caller),
    (def.analysis?.detectors ?? []) as unknown as ChartDetector[],
    opts.type,
    'anomaly',
  );
  const preview = await runPreview(
    c,
    row,
    {
      seriesId,
      detector: { type: detector?.type ?? 'dod', params: detector?.params ?? {} },
      ...(measure === 'value' ? {} : { measure }),
    },
    undefined,
    { from: opts.dateFrom, to: opts.dateTo },
  );
  const points = preview.points.filter(
    (p) => (!opts.dateFrom || p.date >= opts.dateFrom) && (!opts.dateTo || p.date <= opts.dateTo),
  );
  return {
    dataViewId,
    seriesId: preview.seriesId,
    categories: preview.categories,
    type: detector ? preview.detector.code : null,
    measure,
    points,
  };
}
