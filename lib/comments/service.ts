/** Comment use cases: every read scoped to the caller's data views, writes by admins (REST) or by signed-in users (web UI). */
import type { Database } from '../db/database';
import { comments } from '../db/tables/comments';
import { canRead, readableBy, readView } from '../dataviews/scope';
import { type Caller, isAdmin, requireAdmin, requireRead } from '../identity/caller';
import { ForbiddenError, NotFoundError, ValidationError } from '../shared/errors';
import {
  canonicalCategories,
  type CommentCategories,
  constraintsOnly,
  definitionCategoryNames,
} from './categories';
import { attachComments, type MatchableAnomaly } from './matching';
import {
  type CommentFilter,
  type CommentRow,
  type CommentValues,
  deleteCommentRow,
  findCommentRow,
  findCommentRows,
  insertCommentRow,
  updateCommentRow,
} from './repository';
import { checkCommentRules, checkRouteId, commentRuleErrors } from './rules';

/** The comment as every endpoint returns it; `categories` holds only the constrained categories. */
export interface CommentRecord {
  id: number;
  text: string;
  email: string;
  dataViewId: number;
  dateFrom: string;
  dateTo: string;
  categories: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** A comment body after schema validation (comment-create or comment-update). */
export interface CommentInput {
  id?: number;
  text: string;
  email?: string;
  dataViewId: number;
  dateFrom: string;
  dateTo: string;
  categories?: CommentCategories;
}

export interface CommentWindow {
  dateFrom?: string;
  dateTo?: string;
}

/**
 * Where a write comes from. `api`: the REST endpoints, admin only (spec). `web-ui`: the web UI's
 * endpoints, open to any signed-in user on assigned data views, author taken from the session.
 */
export type WriteChannel = 'api' | 'web-ui';

function toRecord(row: CommentRow): CommentRecord {
  return {
    id: row.id,
    text: row.text,
    email: row.email,
    dataViewId: row.dataViewId,
    dateFrom: row.dateFrom,
    dateTo: row.dateTo,
    categories: row.categories as Record<string, string>,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const commentNotFound = (id: number) => new NotFoundError(`Comment ${id} was not found.`);

function checkWindow(w: CommentWindow): void {
  if (w.dateFrom === undefined || w.dateTo === undefined) return;
  const errors = commentRuleErrors({ dateFrom: w.dateFrom, dateTo: w.dateTo }, []);
  if (errors.length) throw new ValidationError(`${errors[0].path} ${errors[0].message}.`, errors);
}

/** Rows under the caller's scope: a caller without data views finds nothing, whatever the filter. */
async function scopedRows(db: Database, caller: Caller, filter: CommentFilter): Promise<CommentRecord[]> {
  const rows = await findCommentRows(db, { ...filter, scope: readableBy(caller, comments.dataViewId) });
  return rows.map(toRecord);
}

/** A visible comment row, or 404 (a comment of a data view the caller cannot see does not exist for them). */
async function visibleRow(db: Database, caller: Caller, id: number): Promise<CommentRow> {
  const row = await findCommentRow(db, id);
  if (!row || !canRead(caller, row.dataViewId)) throw commentNotFound(id);
  return row;
}

/** The category names of a view the caller may read (404 otherwise). */
async function assertDataViewExists(db: Database, caller: Caller, dataViewId: number): Promise<string[]> {
  return definitionCategoryNames((await readView(caller, db, dataViewId)).definition);
}

/** GET /comments/{id} */
export async function getComment(db: Database, caller: Caller, id: number): Promise<CommentRecord> {
  requireRead(caller);
  return toRecord(await visibleRow(db, caller, id));
}

/** GET /comments/by-dataview/{dataViewId}: every comment of one visible data view. */
export async function listDataViewComments(
  db: Database,
  caller: Caller,
  dataViewId: number,
): Promise<CommentRecord[]> {
  requireRead(caller);
  await assertDataViewExists(db, caller, dataViewId);
  return scopedRows(db, caller, { dataViewId });
}

/** GET /comments/by-dataview/{dataViewId}/daterange: comments of one data view whose window overlaps dateFrom..dateTo. */
export async function listDataViewCommentsInWindow(
  db: Database,
  caller: Caller,
  dataViewId: number,
  window: CommentWindow,
): Promise<CommentRecord[]> {
  requireRead(caller);
  const missing = (['dateFrom', 'dateTo'] as const).filter((k) => window[k] === undefined);
  if (missing.length) {
    throw new ValidationError(
      `Give both dateFrom and dateTo (yyyy-MM-dd) for a date range.`,
      missing.map((path) => ({ path, message: 'is required' })),
    );
  }
  checkWindow(window);
  await assertDataViewExists(db, caller, dataViewId);
  return scopedRows(db, caller, { dataViewId, dateFrom: window.dateFrom, dateTo: window.dateTo });
}

/** GET /comments?dataViewId=&dateFrom=&dateTo=: needs a data view and/or a date; one date alone is an open-ended window. */
export async function queryComments(
  db: Database,
  caller: Caller,
  q: CommentWindow & { dataViewId?: number },
): Promise<CommentRecord[]> {
  requireRead(caller);
  if (q.dataViewId === undefined && q.dateFrom === undefined && q.dateTo === undefined) {
    throw new ValidationError('Give dataViewId and/or dateFrom/dateTo to query comments.', [
      { path: 'dataViewId', message: 'give dataViewId and/or dateFrom/dateTo' },
    ]);
  }
  checkWindow(q);
  // An invisible data view simply matches nothing here: a query is a filter, not a lookup.
  return scopedRows(db, caller, { dataViewId: q.dataViewId, dateFrom: q.dateFrom, dateTo: q.dateTo });
}

/** GET /comments/by-email/{email}: admins may ask for anyone, other callers only for their own address. */
export async function listCommentsByEmail(
  db: Database,
  caller: Caller,
  email: string,
): Promise<CommentRecord[]> {
  requireRead(caller);
  if (!isAdmin(caller) && email.trim().toLowerCase() !== caller.email.toLowerCase()) {
    throw new ForbiddenError('You may list only the comments of your own e-mail address.');
  }
  return scopedRows(db, caller, { email: email.trim() });
}

/** The anomalies with `comments` set to the matching comments the caller may see (filters, anomaly lists, AI summaries). */
export async function attachVisibleComments<A extends MatchableAnomaly>(
  db: Database,
  caller: Caller,
  anomalies: readonly A[],
): Promise<Array<A & { comments: CommentRecord[] }>> {
  const dataViewIds = [...new Set(anomalies.map((a) => a.dataViewId))].filter((id) => canRead(caller, id));
  let comments: CommentRecord[] = [];
  if (dataViewIds.length) {
    // yyyy-MM-dd strings sort like dates: one query for the span of all anomalies.
    const dates = anomalies.flatMap((a) => [a.startDate, a.endDate]).sort();
    const window = { dateFrom: dates[0], dateTo: dates[dates.length - 1] };
    comments = (await findCommentRows(db, { dataViewIds, ...window })).map(toRecord);
  }
  return attachComments(anomalies, comments);
}

function authorizeWrite(caller: Caller, channel: WriteChannel): void {
  if (channel === 'api' || isAdmin(caller)) {
    requireAdmin(caller);
    return;
  }
  // The web UI signs in with a Bearer token; an API key is a REST client, for which writes need admin.
  if (caller.via !== 'token') throw new ForbiddenError('This action requires an administrator.');
  requireRead(caller);
}

function assertMayChange(caller: Caller, row: CommentRow): void {
  if (!isAdmin(caller) && row.email.toLowerCase() !== caller.email.toLowerCase()) {
    throw new ForbiddenError('You may change only your own comments.');
  }
}

/** Checks the body against its data view and returns the row values; categories are stored in the view's spelling. */
async function commentValues(
  db: Database,
  caller: Caller,
  input: CommentInput,
  email: string,
): Promise<CommentValues> {
  const names = await assertDataViewExists(db, caller, input.dataViewId);
  const canonical = canonicalCategories(input.categories, names);
  if (canonical.errors.length) {
    const first = canonical.errors[0];
    throw new ValidationError(`Invalid comment: ${first.path} ${first.message}.`, canonical.errors);
  }
  checkCommentRules(
    { dateFrom: input.dateFrom, dateTo: input.dateTo, categories: canonical.categories },
    names,
  );
  return {
    text: input.text,
    email,
    dataViewId: input.dataViewId,
    dateFrom: input.dateFrom,
    dateTo: input.dateTo,
    categories: constraintsOnly(canonical.categories),
  };
}

/** POST /comments (api: admin, e-mail from the body) and POST /comments/ui (web-ui: author from the session). */
export async function createComment(
  db: Database,
  caller: Caller,
  input: CommentInput,
  channel: WriteChannel,
): Promise<CommentRecord> {
  authorizeWrite(caller, channel);
  if (input.id !== undefined)
    throw ValidationError.field('id', 'is set by the service; leave it out on create');
  const email = channel === 'web-ui' ? caller.email : input.email?.trim();
  if (!email) throw ValidationError.field('email', 'is required');
  return db.tx(async (tx) =>
    toRecord(await insertCommentRow(tx, await commentValues(tx, caller, input, email))),
  );
}

/** PUT /comments/{id} and PUT /comments/ui/{id}: replaces the comment; the web UI keeps the author, the API may change it. */
export async function updateComment(
  db: Database,
  caller: Caller,
  id: number,
  input: CommentInput,
  channel: WriteChannel,
): Promise<CommentRecord> {
  authorizeWrite(caller, channel);
  checkRouteId(id, input.id);
  return db.tx(async (tx) => {
    const row = await visibleRow(tx, caller, id);
    assertMayChange(caller, row);
    const email = channel === 'api' ? (input.email?.trim() ?? row.email) : row.email;
    return toRecord(await updateCommentRow(tx, id, await commentValues(tx, caller, input, email)));
  });
}

/** DELETE /comments/{id} and DELETE /comments/ui/{id}. */
export async function deleteComment(
  db: Database,
  caller: Caller,
  id: number,
  channel: WriteChannel,
): Promise<void> {
  authorizeWrite(caller, channel);
  await db.tx(async (tx) => {
    const row = await visibleRow(tx, caller, id);
    assertMayChange(caller, row);
    await deleteCommentRow(tx, id);
  });
}
