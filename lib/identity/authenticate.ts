/** Authentication at the edge: turns the Authorization or X-API-Key header into a Caller, or a 401. */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { apiKeys, userDataViews, users } from '../db/tables/identity';
import { UnauthenticatedError } from '../shared/errors';
import { hashApiKey } from './api-key-format';
import type { Caller, Permission } from './caller';
import type { TokenService } from './tokens';

export interface AuthDeps {
  db: Database;
  tokens: TokenService;
}

async function scopeOf(db: Database, userId: number, role: string): Promise<Caller['dataViews']> {
  if (role === 'admin') return 'all';
  const rows = await db.orm
    .select({ id: userDataViews.dataViewId })
    .from(userDataViews)
    .where(eq(userDataViews.userId, userId));
  return new Set(rows.map((r: { id: number }) => r.id));
}

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  return headers[name] ?? headers[name.toLowerCase()];
}

export async function authenticate(
  deps: AuthDeps,
  headers: Record<string, string | undefined>,
): Promise<Caller> {
  const apiKey = header(headers, 'x-api-key');
  const authz = header(headers, 'authorization');
  if (apiKey) return fromApiKey(deps.db, apiKey.trim());
  if (authz) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!m) throw new UnauthenticatedError('The Authorization header must be "Bearer <token>".');
    return fromToken(deps, m[1]);
  }
  throw new UnauthenticatedError('Sign in: send "Authorization: Bearer <token>" or "X-API-Key: <key>".');
}

async function fromToken(deps: AuthDeps, token: string): Promise<Caller> {
  const claims = await deps.tokens.verify(token);
  const [user] = await deps.db.orm
    .select()
    .from(users)
    .where(
      claims.userId !== undefined
        ? eq(users.id, claims.userId)
        : sql`lower(${users.email}) = lower(${claims.email})`,
    );
  if (!user?.enabled) throw new UnauthenticatedError('The account is unknown or disabled.');
  if (claims.version !== undefined && claims.version !== user.tokenVersion) {
    throw new UnauthenticatedError(
      'The access token was issued before a password change or a disable of the account; sign in again.',
    );
  }
  const permissions = new Set<Permission>(
    user.role === 'admin' ? ['read', 'write', 'process', 'admin'] : ['read', 'write', 'process'],
  );
  return {
    userId: user.id,
    email: user.email,
    role: user.role,
    permissions,
    via: 'token',
    dataViews: await scopeOf(deps.db, user.id, user.role),
  };
}

async function fromApiKey(db: Database, key: string): Promise<Caller> {
  const rows = await db.orm
    .select({ key: apiKeys, user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt)));
  const row = rows[0];
  if (!row?.user.enabled) throw new UnauthenticatedError('The API key is unknown, revoked or disabled.');
  const granted = new Set(row.key.permissions as Permission[]);
  // A key never grants more than its user has: admin only for admin users.
  if (row.user.role !== 'admin') granted.delete('admin');
  await db.orm.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, row.key.id));
  return {
    userId: row.user.id,
    email: row.user.email,
    role: granted.has('admin') ? 'admin' : 'data-user',
    permissions: granted,
    via: 'api-key',
    dataViews: granted.has('admin') ? 'all' : await scopeOf(db, row.user.id, row.user.role),
  };
}

/** The Caller of a user for internal work done on their behalf (e.g. regenerating their filter's summary). */
export async function callerForUser(db: Database, userId: number): Promise<Caller | undefined> {
  const [user] = await db.orm.select().from(users).where(eq(users.id, userId));
  if (!user?.enabled) return undefined;
  const permissions = new Set<Permission>(
    user.role === 'admin' ? ['read', 'write', 'process', 'admin'] : ['read', 'write', 'process'],
  );
  return {
    userId: user.id,
    email: user.email,
    role: user.role,
    permissions,
    via: 'token',
    dataViews: await scopeOf(db, user.id, user.role),
  };
}
