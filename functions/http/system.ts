import { sql } from 'drizzle-orm';
import { getContainer } from '../../lib/app/container';
import { docsPage } from '../../lib/http/docs-page';
import { httpHandler } from '../../lib/http/handler';
import { buildOpenApi } from '../../lib/http/openapi';
import { HttpResult, type Route } from '../../lib/http/router';
import { registeredRoutes } from './registry';

const version = '0.1.0';

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/health',
    access: 'public',
    tag: 'System',
    summary: 'Liveness and database reachability',
    async handle() {
      const c = await getContainer();
      const started = Date.now();
      await c.db.rows(sql`SELECT 1`);
      return {
        status: 'ok',
        version,
        database: { kind: c.db.kind, ms: Date.now() - started },
        time: c.clock.now(),
      };
    },
  },
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
