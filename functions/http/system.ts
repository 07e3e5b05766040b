import { config } from '../../lib/config/config';
import { DOCS_CSP, docsAsset, docsPage } from '../../lib/http/docs-page';
import { NotFoundError } from '../../lib/shared/errors';
import { getContainer } from '../container';
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
    response: { status: 200, description: 'HTML page (Swagger UI)' },
    handle: async () =>
      new HttpResult(200, docsPage(), {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': DOCS_CSP,
      }),
  },
  {
    method: 'GET',
    path: '/api/v1/docs/assets/{asset}',
    access: 'public',
    tag: 'System',
    summary:
      'A file of the API reference page (the bundled Swagger UI); asset is swagger-ui.css, swagger-ui-bundle.js or init.js',
    response: { status: 200, description: 'CSS or JavaScript' },
    async handle({ params }) {
      const file = await docsAsset(params.asset, config().taskRoot);
      if (!file) throw new NotFoundError(`No API reference asset '${params.asset}'.`);
      return new HttpResult(200, file.body, {
        'content-type': file.contentType,
        'cache-control': 'public, max-age=3600',
      });
    },
  },
];

export const handler = httpHandler(routes, getContainer);
