/** Job endpoints: load, process and custom load by id or by domain/name (and the /jobs aliases), clear, job lists and monitoring. */
import { getContainer } from '../container';
import {
  clearQueuedJobs,
  requestCustomLoad,
  requestLoad,
  requestProcess,
  type ViewRef,
} from '../../lib/jobs/enqueue';
import { getJob, getMonitoring, listJobs } from '../../lib/jobs/queries';
import { JOB_KINDS, JOB_STATUSES, type JobKind, type JobStatus } from '../../lib/jobs/types';
import { httpHandler } from '../../lib/http/handler';
import { booleanParam, intParam, optionalInt } from '../../lib/http/params';
import { accepted, type Route } from '../../lib/http/router';
import { ValidationError } from '../../lib/shared/errors';

const tag = 'Jobs';
const queued = {
  status: 202,
  description: 'The queued job (id, kind, status pending, …) with licence warnings, if any',
};
const ACTIONS = [
  {
    path: 'load',
    text: 'Enqueue the normal load (main load query); the view must be deployed and enabled',
    run: requestLoad,
  },
  {
    path: 'process',
    text: 'Enqueue detection (analytics) over the loaded data; deployed and enabled',
    run: requestProcess,
  },
  {
    path: 'custom-load',
    text: 'Enqueue a load with the custom load query; deployed, enabled not required',
    run: requestCustomLoad,
  },
] as const;

const byId = (p: Record<string, string>): ViewRef => ({ id: intParam(p.id, 'id') });
const byName = (p: Record<string, string>): ViewRef => ({ domain: p.domain, name: p.name });

function oneOf<T extends string>(
  value: string | undefined,
  name: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw ValidationError.field(name, `must be one of: ${allowed.join(', ')}`);
  return value as T;
}

const jobRoutes = (path: (action: string) => string, ref: typeof byId, how: string): Route[] =>
  ACTIONS.map((a) => ({
    method: 'POST' as const,
    path: path(a.path),
    access: 'process' as const,
    tag,
    summary: `${a.text} (${how})`,
    response: queued,
    handle: async ({ caller, params }) => accepted(await a.run(await getContainer(), caller, ref(params))),
  }));

export const routes: Route[] = [
  ...jobRoutes((a) => `/api/v1/dataviews/{id}/jobs/${a}`, byId, 'by id'),
  ...jobRoutes((a) => `/api/v1/dataviews/{domain}/{name}/jobs/${a}`, byName, 'by domain and name'),
  ...jobRoutes((a) => `/api/v1/jobs/{domain}/{name}/${a}`, byName, 'alias for orchestration tools'),
  {
    method: 'POST',
    path: '/api/v1/dataviews/{id}/jobs/clear',
    access: 'admin',
    tag,
    summary:
      'Remove the queued (pending) jobs of the view and cancel its running jobs whose worker stopped (?force=true: every running job); 409 when there is nothing to clear',
    handle: async ({ caller, params, query }) =>
      clearQueuedJobs(await getContainer(), caller, intParam(params.id, 'id'), {
        force: booleanParam(query.force, 'force'),
      }),
  },
  {
    method: 'GET',
    path: '/api/v1/jobs',
    access: 'read',
    tag,
    summary:
      'Jobs newest first; query dataViewId, status (pending, running, failed, finished), kind (Load, Process, CustomLoad), limit (≤ 1000)',
    handle: async ({ caller, query }) =>
      listJobs((await getContainer()).db, caller, {
        dataViewId: optionalInt(query.dataViewId, 'dataViewId'),
        status: oneOf<JobStatus>(query.status, 'status', JOB_STATUSES),
        kind: oneOf<JobKind>(query.kind, 'kind', JOB_KINDS),
        limit: optionalInt(query.limit, 'limit'),
      }),
  },
  {
    method: 'GET',
    path: '/api/v1/jobs/{id}',
    access: 'read',
    tag,
    summary:
      'One job: kind, status, attempts, times, error, detail, message, rows and progress (shards done of total)',
    response: { status: 200, description: 'The job', schema: 'job' },
    handle: async ({ caller, params }) =>
      getJob((await getContainer()).db, caller, intParam(params.id, 'id')),
  },
  {
    method: 'GET',
    path: '/api/v1/monitoring',
    access: 'read',
    tag,
    summary:
      'Per data view: last data import, series start and end, series, anomalies, loaded rows, jobs pending/running/finished/failed, the newest job of each kind; with totals',
    response: { status: 200, description: 'The monitoring rows', schema: 'monitoring' },
    handle: async ({ caller }) => getMonitoring(await getContainer(), caller),
  },
  {
    method: 'GET',
    path: '/api/v1/monitoring/{dataViewId}',
    access: 'read',
    tag,
    summary: 'The monitoring row of one data view',
    response: { status: 200, description: 'The monitoring row', schema: 'monitoring' },
    handle: async ({ caller, params }) =>
      getMonitoring(await getContainer(), caller, intParam(params.dataViewId, 'dataViewId')),
  },
];

/** The job routes under /api/v1/dataviews that this function serves instead of the data views function. */
export function servesPath(path: string): boolean {
  return /^\/api\/v1\/dataviews\/[^/]+(\/[^/]+)?\/jobs\/[^/]+\/?$/.test(path);
}

export const handler = httpHandler(routes, getContainer);
