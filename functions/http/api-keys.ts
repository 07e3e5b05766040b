import { getContainer, serviceDb } from '../container';
import { httpHandler } from '../../lib/http/handler';
import { intParam } from '../../lib/http/params';
import { created, noContent, type Route } from '../../lib/http/router';
import { createApiKey, listApiKeys, revokeApiKey } from '../../lib/identity/api-keys';
import type { Permission } from '../../lib/identity/caller';

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/api-keys',
    access: 'admin',
    tag: 'API keys',
    summary: 'List API keys (never the key itself)',
    handle: async ({ caller }) => listApiKeys(await serviceDb(), caller),
  },
  {
    method: 'POST',
    path: '/api/v1/api-keys',
    access: 'admin',
    tag: 'API keys',
    summary: 'Create an API key; the key is in this answer only',
    body: 'api-key-create',
    handle: async ({ caller, body }) =>
      created(
        await createApiKey(
          await serviceDb(),
          caller,
          body as { name: string; permissions: Permission[]; userId?: number },
        ),
      ),
  },
  {
    method: 'DELETE',
    path: '/api/v1/api-keys/{id}',
    access: 'admin',
    tag: 'API keys',
    summary: 'Revoke an API key',
    handle: async ({ caller, params }) => {
      await revokeApiKey(await serviceDb(), caller, intParam(params.id, 'id'));
      return noContent();
    },
  },
];

export const handler = httpHandler(routes, getContainer);
