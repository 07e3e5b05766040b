/** API key administration: created by admins for a user, shown once, listed without the secret, revoked. */
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../db/database';
import { apiKeys, users } from '../db/tables/identity';
import { NotFoundError, ValidationError } from '../shared/errors';
import { generateApiKey } from './api-key-format';
import { type Caller, type Permission, requireAdmin } from './caller';

export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  permissions: Permission[];
  userId: number;
  userEmail: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function listApiKeys(db: Database, caller: Caller): Promise<ApiKeyView[]> {
  requireAdmin(caller);
  const rows = await db.orm
    .select({ k: apiKeys, email: users.email })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .orderBy(apiKeys.id);
  return rows.map(({ k, email }: { k: typeof apiKeys.$inferSelect; email: string }) => ({
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    permissions: k.permissions as Permission[],
    userId: k.userId,
    userEmail: email,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    revokedAt: iso(k.revokedAt),
  }));
}

export async function createApiKey(
  db: Database,
  caller: Caller,
  input: { name: string; permissions: Permission[]; userId?: number },
): Promise<ApiKeyView & { key: string }> {
  requireAdmin(caller);
  const userId = input.userId ?? caller.userId;
  const [owner] = await db.orm.select().from(users).where(eq(users.id, userId));
  if (!owner) throw ValidationError.field('userId', `unknown user ${userId}`);
  if (input.permissions.includes('admin') && owner.role !== 'admin') {
    throw ValidationError.field('permissions', 'the admin permission needs a user with the admin role');
  }
  const { key, prefix, hash } = generateApiKey();
  const [row] = await db.orm
    .insert(apiKeys)
    .values({
      name: input.name,
      prefix,
      keyHash: hash,
      permissions: [...new Set(input.permissions)],
      userId,
      createdBy: caller.userId || null,
    })
    .returning();
  return {
    id: row.id,
    name: row.name,
    prefix,
    permissions: row.permissions as Permission[],
    userId,
    userEmail: owner.email,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: null,
    revokedAt: null,
    key,
  };
}

export async function revokeApiKey(db: Database, caller: Caller, id: number): Promise<void> {
  requireAdmin(caller);
  const rows = await db.orm
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (rows.length === 0) throw new NotFoundError(`API key ${id} was not found or is already revoked.`);
}
