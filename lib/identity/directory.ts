/**
 * Who the users are, for the modules that name users in their own rows (filter owners and recipients,
 * alert subscribers): the users and user_data_views tables are read here, never by those modules.
 */
import { inArray, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { users } from '../db/tables/identity';

/** A SQL expression for the e-mail of the user whose id is `userId` (a column of the caller's query). */
export function userEmailOf(userId: SQL): SQL {
  return sql`(SELECT email FROM users WHERE users.id = ${userId})`;
}

/** Users that exist among `ids`, with their enabled flag. */
export async function findUsers(
  db: Database,
  ids: number[],
): Promise<Array<{ id: number; enabled: boolean }>> {
  if (ids.length === 0) return [];
  return db.orm.select({ id: users.id, enabled: users.enabled }).from(users).where(inArray(users.id, ids));
}

/** Enabled users other than `exceptUserId`, by e-mail. */
export async function enabledUsersExcept(
  db: Database,
  exceptUserId: number,
  sharingAViewOf?: SQL,
): Promise<Array<{ id: number; email: string }>> {
  // `sharingAViewOf` (a scope over user_data_views.data_view_id): only admins and users assigned a view in it.
  const narrowed = sharingAViewOf
    ? sql`AND (u.role = 'admin' OR EXISTS (SELECT 1 FROM user_data_views a
        WHERE a.user_id = u.id AND ${sharingAViewOf}))`
    : sql``;
  return db.rows<{ id: number; email: string }>(
    sql`SELECT u.id, u.email FROM users u WHERE u.enabled AND u.id <> ${exceptUserId} ${narrowed}
      ORDER BY lower(u.email), u.id`,
  );
}
