import { getContainer } from '../container';
import { type CronPreviewInput, previewCron } from '../../lib/dataviews/cron-preview';
import { httpHandler } from '../../lib/http/handler';
import type { Route } from '../../lib/http/router';

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/cron/validate',
    access: 'authenticated',
    tag: 'Data views',
    summary:
      'Validate a cron schedule and list its next runs (default 5, at most 50) in the service time zone',
    body: 'cron-validate',
    handle: async ({ caller, body }) => previewCron(await getContainer(), caller, body as CronPreviewInput),
  },
];

export const handler = httpHandler(routes, getContainer);
