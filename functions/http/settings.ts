import { getContainer } from '../container';
import { httpHandler } from '../../lib/http/handler';
import type { Route } from '../../lib/http/router';
import { callModel } from '../../lib/summaries/llm-client';
import {
  getSummarizationSettings,
  putSummarizationSettings,
  type SummarizationSettingsInput,
  testSummarizationEndpoint,
} from '../../lib/summaries/settings';
import { alertSettingsRoutes } from './alerts';

const deps = async () => {
  const c = await getContainer();
  return { db: c.db, secrets: c.secrets };
};

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/settings/summarization',
    access: 'admin',
    tag: 'AI summaries',
    summary: 'The global language-model endpoint (header values masked)',
    handle: async ({ caller }) => getSummarizationSettings(await deps(), caller),
  },
  {
    method: 'PUT',
    path: '/api/v1/settings/summarization',
    access: 'admin',
    tag: 'AI summaries',
    summary:
      'Set the endpoint: URL, headers, JSON body template with {{instructions}} and {{prompt}}, response path',
    body: 'summarization-settings',
    handle: async ({ caller, body }) =>
      putSummarizationSettings(await deps(), caller, body as SummarizationSettingsInput),
  },
  {
    method: 'POST',
    path: '/api/v1/settings/summarization/test',
    access: 'admin',
    tag: 'AI summaries',
    summary: 'Send a tiny test prompt to the configured endpoint',
    handle: async ({ caller }) =>
      testSummarizationEndpoint(await deps(), caller, (e, v) =>
        // Bounded below API Gateway's 30 s: a slower model fails the test call with a clear message.
        callModel({ ...e, timeoutMs: Math.min(e.timeoutMs, 25_000) }, v),
      ),
  },
  ...alertSettingsRoutes,
];

export const handler = httpHandler(routes, getContainer);
