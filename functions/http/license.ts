import { getContainer } from '../container';
import { getLicenseUsage } from '../../lib/dataviews/license';
import { httpHandler } from '../../lib/http/handler';
import type { Route } from '../../lib/http/router';

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/system/license',
    access: 'authenticated',
    tag: 'System',
    summary: 'Licence usage: plan, maxDataViews, dataViews (all views, any state), remaining',
    handle: async ({ caller }) => getLicenseUsage(await getContainer(), caller),
  },
];

export const handler = httpHandler(routes, getContainer);
