import { getContainer, serviceDb } from '../container';
import {
  createFilter,
  deleteFilter,
  getFilter,
  listFilters,
  listLittleFilters,
  listPinned,
  pinFilter,
  updateFilter,
} from '../../lib/filters/service';
import { getFilterShares, leaveFilter, listShareableUsers, shareFilter } from '../../lib/filters/sharing';
import { httpHandler } from '../../lib/http/handler';
import { intParam } from '../../lib/http/params';
import { created, noContent, type Route } from '../../lib/http/router';
import { alertRoutes } from './alerts';
import { summaryRoutes } from './summaries';

const base = '/api/v1/anomaly-filters';
const tag = 'Filters';

/** The routes of /anomaly-filters; the summarization routes are added to this table by the summaries module. */
export const routes: Route[] = [
  {
    method: 'GET',
    path: base,
    access: 'read',
    tag,
    summary: 'Filters visible to the caller: owned and shared with them',
    handle: async ({ caller }) => listFilters(await serviceDb(), caller),
  },
  {
    method: 'GET',
    path: `${base}/little`,
    access: 'read',
    tag,
    summary: 'Compact list of visible filters: id, name, description (the comment)',
    handle: async ({ caller }) => listLittleFilters(await serviceDb(), caller),
  },
  {
    method: 'GET',
    path: `${base}/pinned`,
    access: 'read',
    tag,
    summary: 'Filters the caller pinned',
    handle: async ({ caller }) => listPinned(await serviceDb(), caller),
  },
  {
    method: 'GET',
    path: `${base}/shareable-users`,
    access: 'read',
    tag,
    summary: 'Users the caller can share with (enabled users other than the caller): id, email',
    handle: async ({ caller }) => listShareableUsers(await serviceDb(), caller),
  },
  {
    method: 'GET',
    path: `${base}/{id}`,
    access: 'read',
    tag,
    summary: 'One filter with owner, pinned, isOwner, sharedWith and summary',
    handle: async ({ caller, params }) => getFilter(await serviceDb(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'POST',
    path: base,
    access: 'write',
    tag,
    summary: 'Create a filter; the caller becomes its owner',
    body: 'filter',
    response: { status: 201, description: 'The created filter' },
    handle: async ({ caller, body }) => created(await createFilter(await serviceDb(), caller, body)),
  },
  {
    method: 'PUT',
    path: base,
    access: 'write',
    tag,
    summary: 'Update a filter (owner only); the id travels in the body',
    body: 'filter',
    handle: async ({ caller, body }) => updateFilter(await serviceDb(), caller, body),
  },
  {
    method: 'DELETE',
    path: `${base}/{id}`,
    access: 'write',
    tag,
    summary: 'Delete a filter for everyone (owner only)',
    response: { status: 204, description: 'Deleted, with its shares and pins' },
    handle: async ({ caller, params }) => {
      await deleteFilter(await serviceDb(), caller, intParam(params.id, 'id'));
      return noContent();
    },
  },
  {
    method: 'GET',
    path: `${base}/{id}/shares`,
    access: 'read',
    tag,
    summary: 'User ids of the current share recipients',
    handle: async ({ caller, params }) =>
      getFilterShares(await serviceDb(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'POST',
    path: `${base}/{id}/share`,
    access: 'write',
    tag,
    summary: 'Set the recipients (owner only); targetUserIds replaces the list',
    body: 'filter-share',
    handle: async ({ caller, params, body }) =>
      shareFilter(
        await serviceDb(),
        caller,
        intParam(params.id, 'id'),
        (body as { targetUserIds: number[] }).targetUserIds,
      ),
  },
  {
    method: 'DELETE',
    path: `${base}/{id}/share`,
    access: 'write',
    tag,
    summary: 'Leave a shared filter (recipient): drops your share and pin; the owner gets 409',
    response: { status: 204, description: 'Left' },
    handle: async ({ caller, params }) => {
      await leaveFilter(await serviceDb(), caller, intParam(params.id, 'id'));
      return noContent();
    },
  },
  {
    method: 'PUT',
    path: `${base}/{id}/pin`,
    access: 'write',
    tag,
    summary: 'Pin or unpin a filter for the caller',
    body: 'filter-pin',
    handle: async ({ caller, params, body }) =>
      pinFilter(await serviceDb(), caller, intParam(params.id, 'id'), (body as { pinned: boolean }).pinned),
  },
  ...summaryRoutes,
  ...alertRoutes,
];

export const handler = httpHandler(routes, getContainer);
