/** Sharing use cases: the owner sets the recipients, a recipient leaves (dropping own share and pin). */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { readableBy, readsEveryView } from '../dataviews/scope';
import { type Caller, requireRead } from '../identity/caller';
import { ConflictError, ValidationError } from '../shared/errors';
import { enabledUsersExcept, findUsers } from '../identity/directory';
import { removeRecipient, replaceShares } from './repository';
import { loadVisibleFilter, requireOwner } from './service';

/**
 * GET /shareable-users: enabled users other than the caller. An admin sees them all; a data user only those
 * who could read something of theirs (assigned one of the caller's views, or admins), so a reader does not
 * learn the e-mail of every account.
 */
export async function listShareableUsers(
  db: Database,
  caller: Caller,
): Promise<Array<{ id: number; email: string }>> {
  requireRead(caller);
  const scope = readsEveryView(caller) ? undefined : readableBy(caller, sql`a.data_view_id`);
  return (await enabledUsersExcept(db, caller.userId, scope)).map((u) => ({
    id: Number(u.id),
    email: u.email,
  }));
}

/** GET /{id}/shares: recipient user ids, for anyone who sees the filter (owner and recipients alike). */
export async function getFilterShares(db: Database, caller: Caller, id: number): Promise<number[]> {
  requireRead(caller);
  return (await loadVisibleFilter(db, caller, id)).sharedWith;
}

async function checkRecipients(db: Database, ownerId: number, requested: number[]): Promise<number[]> {
  const ids = [...new Set(requested)].sort((a, b) => a - b);
  const found = new Map((await findUsers(db, ids)).map((u) => [Number(u.id), u.enabled]));
  const unknown = ids.filter((id) => !found.has(id));
  const disabled = ids.filter((id) => found.get(id) === false);
  const messages: string[] = [];
  if (unknown.length) messages.push(`unknown user id(s): ${unknown.join(', ')}`);
  if (disabled.length) messages.push(`disabled user id(s): ${disabled.join(', ')}`);
  if (ids.includes(ownerId)) messages.push(`user ${ownerId} owns the filter and cannot be a recipient`);
  if (messages.length) {
    throw new ValidationError(
      `Invalid share: targetUserIds ${messages[0]}.`,
      messages.map((message) => ({ path: 'targetUserIds', message })),
    );
  }
  return ids;
}

/** POST /{id}/share: replaces the recipient list (owner only); removed recipients lose their pin. */
export async function shareFilter(
  db: Database,
  caller: Caller,
  id: number,
  targetUserIds: number[],
): Promise<number[]> {
  requireRead(caller);
  return db.tx(async (tx) => {
    const row = await loadVisibleFilter(tx, caller, id);
    requireOwner(row, caller, 'share');
    const ids = await checkRecipients(tx, row.ownerId, targetUserIds);
    await replaceShares(tx, id, row.ownerId, ids);
    return ids;
  });
}

/** DELETE /{id}/share: a recipient leaves; the owner cannot leave their own filter (409, delete it instead). */
export async function leaveFilter(db: Database, caller: Caller, id: number): Promise<void> {
  requireRead(caller);
  await db.tx(async (tx) => {
    const row = await loadVisibleFilter(tx, caller, id);
    if (row.ownerId === caller.userId) {
      throw new ConflictError(`You own filter ${id}, so you cannot leave it; delete it instead.`);
    }
    await removeRecipient(tx, id, caller.userId);
  });
}
