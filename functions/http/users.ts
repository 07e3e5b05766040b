import { getContainer } from '../container';
import { httpHandler } from '../../lib/http/handler';
import { intParam } from '../../lib/http/params';
import { created, noContent, type Route } from '../../lib/http/router';
import {
  createUser,
  deleteUser,
  getUser,
  listUsers,
  updateUser,
  type UserInput,
} from '../../lib/identity/users';

const db = async () => (await getContainer()).db;

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/users',
    access: 'admin',
    tag: 'Users',
    summary: 'List users',
    handle: async ({ caller }) => listUsers(await db(), caller),
  },
  {
    method: 'POST',
    path: '/api/v1/users',
    access: 'admin',
    tag: 'Users',
    summary: 'Create a user (email, role, password, enabled, dataViewIds)',
    body: 'user-create',
    handle: async ({ caller, body }) => created(await createUser(await db(), caller, body as UserInput)),
  },
  {
    method: 'GET',
    path: '/api/v1/users/{id}',
    access: 'admin',
    tag: 'Users',
    summary: 'One user',
    handle: async ({ caller, params }) => getUser(await db(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'PUT',
    path: '/api/v1/users/{id}',
    access: 'admin',
    tag: 'Users',
    summary: 'Update a user; dataViewIds replaces the assigned data views',
    body: 'user-update',
    handle: async ({ caller, params, body }) =>
      updateUser(await db(), caller, intParam(params.id, 'id'), body as UserInput),
  },
  {
    method: 'DELETE',
    path: '/api/v1/users/{id}',
    access: 'admin',
    tag: 'Users',
    summary: 'Delete a user',
    handle: async ({ caller, params }) => {
      await deleteUser(await db(), caller, intParam(params.id, 'id'));
      return noContent();
    },
  },
];

export const handler = httpHandler(routes, getContainer);
