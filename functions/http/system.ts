import { docsPage } from '../../lib/http/docs-page';
import { httpHandler } from '../../lib/http/handler';
import { buildOpenApi } from '../../lib/http/openapi';
import { HttpResult, type Route } from '../../lib/http/router';
import { healthRoute, version } from './health';
import { registeredRoutes } from './registry';

export const routes: Route[] = [
  healthRoute,
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    access: 'public',
    tag: 'System',
    summary: 'The OpenAPI document of every endpoint',
    handle: async () => buildOpenApi([...routes, ...registeredRoutes()], { version }),
  },
  {
    method: 'GET',
    path: '/api/v1/docs',
    access: 'public',
    tag: 'System',
    summary: 'A readable API reference page',
    handle: async () => new HttpResult(200, docsPage(), { 'content-type': 'text/html; charset=utf-8' }),
  },
];

export const handler = httpHandler(routes);
