import { anomaliesByFilterPaged } from '../../lib/anomalies/pages';
import { membersParam, queryAnomalies } from '../../lib/anomalies/use-cases';
import type { AnomalyDeps } from '../../lib/anomalies/run';
import { getContainer } from '../container';
import { httpHandler } from '../../lib/http/handler';
import { intParam } from '../../lib/http/params';
import { HttpResult, type Route } from '../../lib/http/router';
import { routes as feedbackRoutes } from './feedback';

const deps = async (): Promise<AnomalyDeps> => {
  const c = await getContainer();
  return { db: c.db, clock: c.clock, timeZone: c.config.timeZone, maxRecords: c.config.filterMaxRecords };
};

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/anomalies/by-filter/{id}',
    access: 'read',
    tag: 'Anomalies',
    summary:
      'Run a saved filter: {anomalies, aggregates?, timeRange, dataViews, warnings}. Paged with offset=, pageSize= (1-1000), sortBy= (rank, a record field or categories.<name>) and order= (asc|desc): anomalies is the page and page says {offset, pageSize, sortBy, order, total}. format=csv (or Accept: text/csv) answers every record as CSV (with offset= or pageSize=, that page; over 5 MiB a 413 asks for pages). An answer over the 6 MB a response can carry is a 413. members=true: each event (filter setting mergeEvents) carries its merged records',
    response: { status: 200, description: 'The run', schema: 'filter-answer' },
    handle: async ({ caller, params, query, headers }) => {
      const r = await anomaliesByFilterPaged(
        await deps(),
        caller,
        intParam(params.id, 'id'),
        query,
        headers.accept,
      );
      if (r.kind === 'json') return r.body;
      return new HttpResult(200, r.body, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${r.filename}"`,
      });
    },
  },
  {
    method: 'POST',
    path: '/api/v1/anomalies/query',
    access: 'read',
    tag: 'Anomalies',
    summary:
      'Run unsaved filter settings (a preview of a locally changed filter); name is optional. members=true: each event (mergeEvents) carries its merged records',
    docBody: 'filter',
    response: { status: 200, description: 'The run', schema: 'filter-answer' },
    // Validated by the use case against 'filter' with name optional.
    handle: async ({ caller, body, query }) =>
      queryAnomalies(await deps(), caller, body, membersParam(query)),
  },
  ...feedbackRoutes,
];

export const handler = httpHandler(routes, getContainer);
