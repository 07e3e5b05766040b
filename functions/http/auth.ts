import { getContainer } from '../container';
import { httpHandler } from '../../lib/http/handler';
import type { Route } from '../../lib/http/router';
import { signIn } from '../../lib/identity/users';

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/auth/token',
    access: 'public',
    tag: 'Auth',
    summary:
      'Exchange an e-mail and password for a Bearer token (throttled: 429 with Retry-After after repeated failures)',
    body: 'token-request',
    async handle({ body, sourceIp }) {
      const c = await getContainer();
      const { email, password } = body as { email: string; password: string };
      return signIn(c.db, c.tokens, c.config.auth.tokenTtlSeconds, email, password, {
        sourceIp,
        now: c.clock.now(),
      });
    },
  },
  {
    method: 'GET',
    path: '/api/v1/auth/me',
    access: 'authenticated',
    tag: 'Auth',
    summary: 'Who the credential belongs to, its permissions and visible data views',
    async handle({ caller }) {
      return {
        userId: caller.userId,
        email: caller.email,
        role: caller.role,
        permissions: [...caller.permissions],
        via: caller.via,
        dataViewIds: caller.dataViews === 'all' ? 'all' : [...caller.dataViews],
      };
    },
  },
];

export const handler = httpHandler(routes, getContainer);
