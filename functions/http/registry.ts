/** Every HTTP function but `system` with its path prefixes: the local router and the OpenAPI document read this; serverless.yml mirrors it (a test checks). */
import type { Route } from '../../lib/http/router';
import * as apiKeys from './api-keys';
import * as auth from './auth';
import * as users from './users';

export interface HttpFunction {
  /** The function's name in serverless.yml. */
  name: string;
  prefixes: string[];
  routes: Route[];
  handler: (event: unknown, context: unknown) => Promise<unknown>;
}

export const httpFunctions: HttpFunction[] = [
  { name: 'auth', prefixes: ['/api/v1/auth'], routes: auth.routes, handler: auth.handler as HttpFunction['handler'] },
  { name: 'users', prefixes: ['/api/v1/users'], routes: users.routes, handler: users.handler as HttpFunction['handler'] },
  {
    name: 'apiKeys',
    prefixes: ['/api/v1/api-keys'],
    routes: apiKeys.routes,
    handler: apiKeys.handler as HttpFunction['handler'],
  },
];

/** Routes of every function listed here (the system function adds its own). */
export function registeredRoutes(): Route[] {
  return httpFunctions.flatMap((f) => f.routes);
}
