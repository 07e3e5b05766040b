/** Detection actions of a data view: Recalculate baseline tables (ad hoc) and the detector preview of the data view editor. */
import { getContainer } from '../container';
import { recalculateBaselines } from '../../lib/process-job/baseline-rebuild';
import { type DetectorPreviewBody, previewDetector } from '../../lib/series-explorer/detector-preview';
import { httpHandler } from '../../lib/http/handler';
import { intParam, optionalDate } from '../../lib/http/params';
import { replaySeriesChart } from '../../lib/series-explorer/replay-chart';
import { seriesChart } from '../../lib/series-explorer/series-chart';
import type { Route } from '../../lib/http/router';

const tag = 'Data views';
const id = (params: Record<string, string>) => intParam(params.id, 'id');

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/dataviews/{id}/baselines',
    access: 'admin',
    tag,
    summary:
      'Recalculate baseline tables (ad hoc): rebuilds the baselines of the peer, mix and cardinality detectors; 409 when none is defined',
    response: { status: 200, description: 'What was rebuilt: peer groups, cardinality groups, mix links' },
    handle: async ({ caller, params }) => recalculateBaselines(await getContainer(), caller, id(params)),
  },
  {
    method: 'POST',
    path: '/api/v1/dataviews/{id}/preview-detector',
    access: 'admin',
    tag,
    summary:
      'Detector preview for one series: values, expected values, flagged days, anomalies and the skip reason (gap amount, average outside minValue/maxValue, …)',
    body: 'detector-preview',
    response: {
      status: 200,
      description: 'Per-day points (date, value, expected, flag, filled), flagged days, anomalies, skipped',
    },
    handle: async ({ caller, params, body }) =>
      previewDetector(await getContainer(), caller, id(params), body as DetectorPreviewBody),
  },
  {
    method: 'GET',
    path: '/api/v1/dataviews/{id}/series/{seriesId}',
    access: 'read',
    tag,
    summary:
      "Daily values of one series with the expected values of the view's detector of `type` (a data user: one of the view's types, else 400), between dateFrom and dateTo (the anomaly chart); measure=count draws the count measure, measure=ratio value ÷ count; a peer or child group is read only over the window, within PREVIEW_GROUP_CELLS",
    handle: async ({ caller, params, query }) =>
      seriesChart(await getContainer(), caller, id(params), intParam(params.seriesId, 'seriesId'), {
        dateFrom: optionalDate(query.dateFrom, 'dateFrom'),
        dateTo: optionalDate(query.dateTo, 'dateTo'),
        type: query.type,
        measure: query.measure || undefined,
      }),
  },
  {
    method: 'GET',
    path: '/api/v1/dataviews/{id}/replay/{jobId}/series/{seriesId}',
    access: 'admin',
    tag,
    summary:
      "A replayed record's chart: daily values of one series with the expected values of the replayed definition's detector of `type` (at `detectorIndex` when of that type), computed with that definition's params, special dates and analysis window; the saved definition's when the replayed one has no detector of the type (`definition` says which)",
    handle: async ({ caller, params, query }) =>
      replaySeriesChart(
        await getContainer(),
        caller,
        id(params),
        intParam(params.jobId, 'jobId'),
        intParam(params.seriesId, 'seriesId'),
        {
          type: query.type,
          measure: query.measure || undefined,
          detectorIndex: query.detectorIndex,
          dateFrom: optionalDate(query.dateFrom, 'dateFrom'),
          dateTo: optionalDate(query.dateTo, 'dateTo'),
        },
      ),
  },
];

/** The paths under /api/v1/dataviews that this function serves instead of the data views function. */
export function servesPath(path: string): boolean {
  return /^\/api\/v1\/dataviews\/[^/]+\/(baselines|preview-detector|series\/[^/]+|replay\/[^/]+\/series\/[^/]+)\/?$/.test(
    path,
  );
}

export const handler = httpHandler(routes, getContainer);
