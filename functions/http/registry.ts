/** Every HTTP function but `system` with its path prefixes: the local router and the OpenAPI document read this; serverless.yml mirrors it (a test checks). */
import type { Route } from '../../lib/http/router';
import * as anomalies from './anomalies';
import * as apiKeys from './api-keys';
import * as auth from './auth';
import * as comments from './comments';
import * as connectors from './connectors';
import * as cron from './cron';
import * as dataviews from './dataviews';
import * as detection from './detection';
import * as filters from './filters';
import * as jobs from './jobs';
import * as license from './license';
import * as settings from './settings';
import * as users from './users';

export interface HttpFunction {
  /** The function's name in serverless.yml. */
  name: string;
  prefixes: string[];
  /** Paths this function serves although another function's prefix covers them (more specific API Gateway routes). */
  match?: (path: string) => boolean;
  routes: Route[];
  handler: (event: unknown, context: unknown) => Promise<unknown>;
}

export const httpFunctions: HttpFunction[] = [
  {
    name: 'auth',
    prefixes: ['/api/v1/auth'],
    routes: auth.routes,
    handler: auth.handler as HttpFunction['handler'],
  },
  {
    name: 'users',
    prefixes: ['/api/v1/users'],
    routes: users.routes,
    handler: users.handler as HttpFunction['handler'],
  },
  {
    name: 'apiKeys',
    prefixes: ['/api/v1/api-keys'],
    routes: apiKeys.routes,
    handler: apiKeys.handler as HttpFunction['handler'],
  },
  {
    name: 'connectors',
    prefixes: ['/api/v1/connectors'],
    routes: connectors.routes,
    handler: connectors.handler as HttpFunction['handler'],
  },
  {
    name: 'settings',
    prefixes: ['/api/v1/settings'],
    routes: settings.routes,
    handler: settings.handler as HttpFunction['handler'],
  },
  {
    name: 'comments',
    prefixes: ['/api/v1/comments'],
    routes: comments.routes,
    handler: comments.handler as HttpFunction['handler'],
  },
  {
    name: 'dataviews',
    prefixes: ['/api/v1/dataviews'],
    routes: dataviews.routes,
    handler: dataviews.handler as HttpFunction['handler'],
  },
  {
    name: 'cron',
    prefixes: ['/api/v1/cron'],
    routes: cron.routes,
    handler: cron.handler as HttpFunction['handler'],
  },
  {
    name: 'license',
    prefixes: ['/api/v1/system'],
    routes: license.routes,
    handler: license.handler as HttpFunction['handler'],
  },
  {
    name: 'filters',
    prefixes: ['/api/v1/anomaly-filters'],
    routes: filters.routes,
    handler: filters.handler as HttpFunction['handler'],
  },
  {
    name: 'anomalies',
    prefixes: ['/api/v1/anomalies'],
    routes: anomalies.routes,
    handler: anomalies.handler as HttpFunction['handler'],
  },
  {
    name: 'jobs',
    prefixes: ['/api/v1/jobs', '/api/v1/monitoring'],
    match: jobs.servesPath,
    routes: jobs.routes,
    handler: jobs.handler as HttpFunction['handler'],
  },
  {
    name: 'detection',
    prefixes: [],
    match: detection.servesPath,
    routes: detection.routes,
    handler: detection.handler as HttpFunction['handler'],
  },
];

/** Routes of every function listed here (the system function adds its own). */
export function registeredRoutes(): Route[] {
  return httpFunctions.flatMap((f) => f.routes);
}
