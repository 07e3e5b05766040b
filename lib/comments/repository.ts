/** Comment rows in the service database; no authorization here, the use cases in service.ts decide who sees what. */
import { and, asc, eq, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { comments } from '../db/tables/comments';

export type CommentRow = typeof comments.$inferSelect;

export interface CommentValues {
  text: string;
  email: string;
  dataViewId: number;
  dateFrom: string;
  dateTo: string;
  categories: Record<string, string>;
}

export interface CommentFilter {
  /** The caller's scope over comments.data_view_id (lib/dataviews/scope readableBy). */
  scope?: SQL;
  /** undefined: every data view; otherwise only these (an empty list finds nothing). */
  dataViewIds?: readonly number[];
  dataViewId?: number;
  /** With dateTo: comments whose window overlaps dateFrom..dateTo; alone: windows ending on or after it. */
  dateFrom?: string;
  /** Alone: windows starting on or before it. */
  dateTo?: string;
  /** Author, case-insensitive. */
  email?: string;
}

export async function findCommentRow(db: Database, id: number): Promise<CommentRow | undefined> {
  const [row] = await db.orm.select().from(comments).where(eq(comments.id, id));
  return row;
}

/** Comments matching every given condition, ordered by dateFrom, then id. */
export async function findCommentRows(db: Database, f: CommentFilter): Promise<CommentRow[]> {
  if (f.dataViewIds && f.dataViewIds.length === 0) return [];
  const conds: SQL[] = f.scope ? [f.scope] : [];
  if (f.dataViewIds) conds.push(inArray(comments.dataViewId, [...f.dataViewIds]));
  if (f.dataViewId !== undefined) conds.push(eq(comments.dataViewId, f.dataViewId));
  // Two windows overlap when each starts no later than the other ends.
  if (f.dateTo !== undefined) conds.push(lte(comments.dateFrom, f.dateTo));
  if (f.dateFrom !== undefined) conds.push(gte(comments.dateTo, f.dateFrom));
  if (f.email !== undefined) conds.push(sql`lower(${comments.email}) = lower(${f.email})`);
  return db.orm
    .select()
    .from(comments)
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(asc(comments.dateFrom), asc(comments.id));
}

export async function insertCommentRow(db: Database, values: CommentValues): Promise<CommentRow> {
  const [row] = await db.orm.insert(comments).values(values).returning();
  return row;
}

export async function updateCommentRow(db: Database, id: number, values: CommentValues): Promise<CommentRow> {
  const [row] = await db.orm
    .update(comments)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(comments.id, id))
    .returning();
  return row;
}

export async function deleteCommentRow(db: Database, id: number): Promise<void> {
  await db.orm.delete(comments).where(eq(comments.id, id));
}
