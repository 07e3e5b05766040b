/**
 * GET /api/v1/health on its own function: it imports only the container, so its bundle carries no route
 * table and no source driver (the `system` function, which builds the OpenAPI document, imports them all).
 */
import { sql } from 'drizzle-orm';
import { getContainer } from '../container';
import { httpHandler } from '../../lib/http/handler';
import type { Route } from '../../lib/http/router';

export const version = '0.1.0';

export const healthRoute: Route = {
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
};

export const routes: Route[] = [healthRoute];

export const handler = httpHandler(routes, getContainer);
