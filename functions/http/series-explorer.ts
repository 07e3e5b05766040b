/**
 * The series explorer's routes: the tree of a view's series, the search over category values, and one series
 * with its chart data and anomalies. Served by the dataviews function (its /api/v1/dataviews/{proxy+} route).
 */
import { getContainer } from '../container';
import { intParam } from '../../lib/http/params';
import type { Route } from '../../lib/http/router';
import { explorerSeries } from '../../lib/series-explorer/series';
import { explorerSearch, explorerTree } from '../../lib/series-explorer/tree';

const base = '/api/v1/dataviews/{id}/explorer';
const tag = 'Series explorer';
const id = (params: Record<string, string>) => intParam(params.id, 'id');

export const routes: Route[] = [
  {
    method: 'GET',
    path: `${base}/tree`,
    access: 'read',
    tag,
    summary:
      'A node of the series tree (categories as c.<name>=<value>; left out = all) with the dimensions it splits by; with dimension=, one page of its children (search=, offset=, limit= up to 500)',
    response: {
      status: 200,
      description:
        '{dataViewId, dataView, categories, detectors, node, dimensions, children?: {items, total, …}}',
    },
    handle: async ({ caller, params, query }) =>
      explorerTree(await getContainer(), caller, id(params), query),
  },
  {
    method: 'GET',
    path: `${base}/search`,
    access: 'read',
    tag,
    summary:
      'Series whose category values contain q (ignoring case), broadest first, at most limit (default 50, up to 200); truncated says there are more',
    response: {
      status: 200,
      description: '{dataViewId, search, limit, truncated, items: [{seriesId, categories, anomalies}]}',
    },
    handle: async ({ caller, params, query }) =>
      explorerSearch(await getContainer(), caller, id(params), query),
  },
  {
    method: 'GET',
    path: `${base}/series/{seriesId}`,
    access: 'read',
    tag,
    summary:
      "One series: every day's value (measure=count: its count, measure=ratio: value ÷ count), the expected value of the detector `type` (default: the view's first; a data user: one of the view's types, else 400) with its band where it has one, special dates, matching comments and all its anomalies",
    response: {
      status: 200,
      description:
        '{seriesId, categories, detectors, detector, band, points, specialDates, comments, anomalies}',
    },
    handle: async ({ caller, params, query }) =>
      explorerSeries(await getContainer(), caller, id(params), intParam(params.seriesId, 'seriesId'), {
        type: query.type,
        measure: query.measure,
      }),
  },
];
