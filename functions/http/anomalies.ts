import { queryAnomalies, anomaliesByFilter } from '../../lib/anomalies/use-cases';
import type { AnomalyDeps } from '../../lib/anomalies/run';
import { getContainer } from '../../lib/app/container';
import { httpHandler } from '../../lib/http/handler';
import { intParam } from '../../lib/http/params';
import type { Route } from '../../lib/http/router';

const deps = async (): Promise<AnomalyDeps> => {
  const c = await getContainer();
  return { db: c.db, clock: c.clock, timeZone: c.config.timeZone };
};

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/anomalies/by-filter/{id}',
    access: 'read',
    tag: 'Anomalies',
    summary: 'Run a saved filter: {anomalies, aggregates?, timeRange, dataViews, warnings}',
    handle: async ({ caller, params }) => anomaliesByFilter(await deps(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'POST',
    path: '/api/v1/anomalies/query',
    access: 'read',
    tag: 'Anomalies',
    summary: 'Run unsaved filter settings (a preview of a locally changed filter); name is optional',
    // Validated by the use case against 'filter' with name optional.
    handle: async ({ caller, body }) => queryAnomalies(await deps(), caller, body),
  },
];

export const handler = httpHandler(routes);
