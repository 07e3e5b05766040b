/** The summarization routes of a filter; served by the filters function (they share its path prefix). */
import { getContainer } from '../container';
import { intParam } from '../../lib/http/params';
import type { Route } from '../../lib/http/router';
import { summaryDeps } from '../../lib/app/deps';
import { getSummary, getSummaryPrompt, refreshSummary } from '../../lib/summaries/service';

const deps = async () => summaryDeps(await getContainer());

export const summaryRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/anomaly-filters/{id}/summarization',
    access: 'read',
    tag: 'AI summaries',
    summary: 'The stored summary of a filter: text, generation time, answer metadata and the last failure',
    handle: async ({ caller, params }) => getSummary(await deps(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'GET',
    path: '/api/v1/anomaly-filters/{id}/summarization/prompt',
    access: 'read',
    tag: 'AI summaries',
    summary: 'The exact prompt that a refresh would send now (bounded in size; says what was left out)',
    handle: async ({ caller, params, query }) =>
      getSummaryPrompt(await deps(), caller, intParam(params.id, 'id'), query.instructions),
  },
  {
    method: 'POST',
    path: '/api/v1/anomaly-filters/{id}/summarization/refresh',
    access: 'write',
    tag: 'AI summaries',
    summary:
      'Regenerate the summary now, optionally with other instructions; a failure keeps the previous summary',
    body: 'summarization-refresh',
    handle: async ({ caller, params, body }) =>
      refreshSummary(
        await deps(),
        caller,
        intParam(params.id, 'id'),
        (body as { instructions?: string | null })?.instructions,
      ),
  },
];
