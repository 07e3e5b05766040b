/**
 * Incidents and what drove a change: one incident with its members, and the contributions to the change of
 * any series over any window. Served by the dataviews function (its /api/v1/dataviews/{proxy+} route).
 */
import { getContainer } from '../container';
import { incidentDetail } from '../../lib/anomalies/incident';
import { seriesContributions } from '../../lib/incidents/contributions-query';
import { intParam } from '../../lib/http/params';
import type { Route } from '../../lib/http/router';

const tag = 'Incidents';
const id = (params: Record<string, string>) => intParam(params.id, 'id');

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/dataviews/{id}/contributions',
    access: 'read',
    tag,
    summary:
      'What drove the change of a series (categories=name=value;…, left out = the total) from `from` to `to`: for each category the series leaves at all, its values ranked by contribution (actual − expected) with their shares before and during and the surprise of the shift; and the best explaining set across categories. The leaves are read in batches; 413 past CONTRIBUTIONS_MAX_CELLS leaves × days',
    response: {
      status: 200,
      description:
        '{seriesId, categories, measure, from, to, baseline, actual, expected, change, changePct, dimensions, explanation}',
    },
    handle: async ({ caller, params, query }) => {
      const c = await getContainer();
      const { contributionBatchCells: batchCells, contributionMaxCells: maxCells } = c.config.reads;
      return seriesContributions({ db: c.db, reads: { batchCells, maxCells } }, caller, id(params), query);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/dataviews/{id}/incidents/{incidentId}',
    access: 'read',
    tag,
    summary:
      'One incident as a filter with incidents shows it: the row named by its root cause, with incident (broad series, root causes, types, measures) and every member record',
    response: { status: 200, description: 'The incident row with its members' },
    handle: async ({ caller, params }) => {
      const c = await getContainer();
      return incidentDetail(
        { db: c.db, clock: c.clock, timeZone: c.config.timeZone },
        caller,
        id(params),
        intParam(params.incidentId, 'incidentId'),
      );
    },
  },
];
