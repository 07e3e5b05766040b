/**
 * The chart of a replayed record (the data view page's "What would change", docs/ui.md): the series around
 * the record with the expectation of the replayed definition's detector, computed with that definition
 * throughout — its detector's params (window included), its special dates, recurring rules and periods,
 * its analysis window — the definition the Replay job ran (lib/replay), not the saved one. A record of a
 * type the replayed definition no longer has draws the saved definition's detector, and says so.
 */
import type { Database } from '../db/database';
import { detectorTypeOf } from '../dataviews/definition/detector-params';
import { readDeployedView } from '../dataviews/scope';
import { type Caller, requireAdmin } from '../identity/caller';
import { findJob } from '../jobs/repository';
import { readReplayRow } from '../replay/store';
import { NotFoundError, ValidationError } from '../shared/errors';
import { runPreview } from './detector-preview';
import type { PreviewReads } from './preview-group';
import type { SeriesChart } from './series-chart';

type Detector = { type: string; params?: object };

export interface ReplaySeriesChart extends SeriesChart {
  /** Whose detector and calendar the expectation is: the replayed definition's, or the saved one's. */
  definition: 'replayed' | 'saved';
}

export interface ReplayChartQuery {
  type?: string;
  measure?: string;
  /** The record's detector index, 0 or more (in the replayed definition for a record it publishes). */
  detectorIndex?: string;
  dateFrom?: string;
  dateTo?: string;
}

/** The detector of `type` behind a record: the one at its index when of its type, else the first of its type. */
export function detectorFor(list: readonly Detector[], type: string, index?: number): Detector | undefined {
  const same = (d: Detector | undefined) => d !== undefined && detectorTypeOf(d.type) === type;
  const at = index === undefined ? undefined : list[index];
  return same(at) ? at : list.find(same);
}

/** GET /dataviews/{id}/replay/{jobId}/series/{seriesId} (admins). */
export async function replaySeriesChart(
  c: { db: Database } & PreviewReads,
  caller: Caller,
  dataViewId: number,
  jobId: number,
  seriesId: number,
  q: ReplayChartQuery,
): Promise<ReplaySeriesChart> {
  requireAdmin(caller);
  const measure = q.measure ?? 'value';
  if (measure !== 'value' && measure !== 'count' && measure !== 'ratio')
    throw ValidationError.field('measure', `must be value, count or ratio, got '${q.measure}'`);
  const type = detectorTypeOf(q.type ?? '');
  if (!type) throw ValidationError.field('type', `unknown anomaly type '${q.type ?? ''}'`);
  const index = q.detectorIndex === undefined || q.detectorIndex === '' ? undefined : Number(q.detectorIndex);
  if (index !== undefined && !(Number.isInteger(index) && index >= 0 && index < 1000))
    throw ValidationError.field(
      'detectorIndex',
      `must be an integer from 0, got '${String(q.detectorIndex).slice(0, 50)}'`,
    );
  const view = await readDeployedView(caller, c.db, dataViewId);
  const job = await findJob(c.db, jobId);
  const row =
    job?.kind === 'Replay' && job.dataViewId === view.id ? await readReplayRow(c.db, jobId) : undefined;
  if (!row) throw new NotFoundError(`No replay ${jobId} of data view ${view.domain}/${view.name}.`);
  const replayed = detectorFor(row.definition.analysis?.detectors ?? [], type, index);
  const saved = detectorFor(view.definition.analysis?.detectors ?? [], type);
  const detector = replayed ?? saved ?? { type, params: {} };
  const preview = await runPreview(
    c,
    replayed ? { ...view, definition: row.definition } : view,
    {
      seriesId,
      detector: { type: detector.type, params: (detector.params ?? {}) as Record<string, unknown> },
      ...(measure === 'value' ? {} : { measure }),
    },
    undefined,
    { from: q.dateFrom, to: q.dateTo },
  );
  return {
    dataViewId: view.id,
    seriesId: preview.seriesId,
    categories: preview.categories,
    type: preview.detector.code,
    measure,
    points: preview.points.filter(
      (p) => (!q.dateFrom || p.date >= q.dateFrom) && (!q.dateTo || p.date <= q.dateTo),
    ),
    definition: replayed ? 'replayed' : 'saved',
  };
}
