import { getContainer, serviceDb } from '../container';
import {
  type CommentInput,
  createComment,
  deleteComment,
  getComment,
  listCommentsByEmail,
  listDataViewComments,
  listDataViewCommentsInWindow,
  queryComments,
  updateComment,
} from '../../lib/comments/service';
import { httpHandler } from '../../lib/http/handler';
import { intParam, optionalDate, optionalInt } from '../../lib/http/params';
import { created, noContent, type Route } from '../../lib/http/router';

const base = '/api/v1/comments';
const tag = 'Comments';
const window = (q: Record<string, string | undefined>) => ({
  dateFrom: optionalDate(q.dateFrom, 'dateFrom'),
  dateTo: optionalDate(q.dateTo, 'dateTo'),
});

export const routes: Route[] = [
  {
    method: 'GET',
    path: base,
    access: 'read',
    tag,
    summary:
      'Query comments: ?dataViewId=&dateFrom=&dateTo= (dataViewId and/or a date required; windows that overlap)',
    handle: async ({ caller, query }) =>
      queryComments(await serviceDb(), caller, {
        dataViewId: optionalInt(query.dataViewId, 'dataViewId'),
        ...window(query),
      }),
  },
  {
    method: 'GET',
    path: `${base}/by-dataview/{dataViewId}`,
    access: 'read',
    tag,
    summary: 'All comments of a data view',
    handle: async ({ caller, params }) =>
      listDataViewComments(await serviceDb(), caller, intParam(params.dataViewId, 'dataViewId')),
  },
  {
    method: 'GET',
    path: `${base}/by-dataview/{dataViewId}/daterange`,
    access: 'read',
    tag,
    summary: 'Comments of a data view whose window overlaps ?dateFrom=&dateTo= (both required, yyyy-MM-dd)',
    handle: async ({ caller, params, query }) =>
      listDataViewCommentsInWindow(
        await serviceDb(),
        caller,
        intParam(params.dataViewId, 'dataViewId'),
        window(query),
      ),
  },
  {
    method: 'GET',
    path: `${base}/by-email/{email}`,
    access: 'read',
    tag,
    summary: 'Comments written by an e-mail address (non-admins: only their own)',
    handle: async ({ caller, params }) => listCommentsByEmail(await serviceDb(), caller, params.email),
  },
  {
    method: 'GET',
    path: `${base}/{id}`,
    access: 'read',
    tag,
    summary: 'One comment',
    handle: async ({ caller, params }) => getComment(await serviceDb(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'POST',
    path: base,
    access: 'admin',
    tag,
    summary: 'Create a comment (admin; email required)',
    body: 'comment-create',
    response: { status: 201, description: 'The created comment' },
    handle: async ({ caller, body }) =>
      created(await createComment(await serviceDb(), caller, body as CommentInput, 'api')),
  },
  {
    method: 'PUT',
    path: `${base}/{id}`,
    access: 'admin',
    tag,
    summary: 'Replace a comment (admin); a body id must equal the path id',
    body: 'comment-update',
    handle: async ({ caller, params, body }) =>
      updateComment(await serviceDb(), caller, intParam(params.id, 'id'), body as CommentInput, 'api'),
  },
  {
    method: 'DELETE',
    path: `${base}/{id}`,
    access: 'admin',
    tag,
    summary: 'Delete a comment (admin)',
    response: { status: 204, description: 'Deleted' },
    handle: async ({ caller, params }) => {
      await deleteComment(await serviceDb(), caller, intParam(params.id, 'id'), 'api');
      return noContent();
    },
  },
  {
    method: 'POST',
    path: `${base}/ui`,
    access: 'write',
    tag,
    summary:
      'Web UI: create a comment on an assigned data view as the signed-in user (email from the session)',
    body: 'comment-update',
    response: { status: 201, description: 'The created comment' },
    handle: async ({ caller, body }) =>
      created(await createComment(await serviceDb(), caller, body as CommentInput, 'web-ui')),
  },
  {
    method: 'PUT',
    path: `${base}/ui/{id}`,
    access: 'write',
    tag,
    summary: 'Web UI: replace an own comment (admins: any); the author is kept',
    body: 'comment-update',
    handle: async ({ caller, params, body }) =>
      updateComment(await serviceDb(), caller, intParam(params.id, 'id'), body as CommentInput, 'web-ui'),
  },
  {
    method: 'DELETE',
    path: `${base}/ui/{id}`,
    access: 'write',
    tag,
    summary: 'Web UI: delete an own comment (admins: any)',
    response: { status: 204, description: 'Deleted' },
    handle: async ({ caller, params }) => {
      await deleteComment(await serviceDb(), caller, intParam(params.id, 'id'), 'web-ui');
      return noContent();
    },
  },
];

export const handler = httpHandler(routes, getContainer);
