/** User administration (admins only) and sign-in. */
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { foreignKeyViolation } from '../db/errors';
import { userDataViews, users } from '../db/tables/identity';
import { ConflictError, NotFoundError, UnauthenticatedError, ValidationError } from '../shared/errors';
import { type Caller, requireAdmin, type Role } from './caller';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from './passwords';
import { claimAttempt, recordSuccess, throttleKeys } from './sign-in-throttle';
import type { TokenService } from './tokens';

export interface UserView {
  id: number;
  email: string;
  role: Role;
  enabled: boolean;
  dataViewIds: number[];
  createdAt: string;
  updatedAt: string;
}

export interface UserInput {
  email?: string;
  role?: Role;
  password?: string;
  enabled?: boolean;
  dataViewIds?: number[];
}

type UserRow = typeof users.$inferSelect;

async function assignments(db: Database, ids: number[]): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>();
  if (ids.length === 0) return map;
  const rows = await db.orm.select().from(userDataViews).where(inArray(userDataViews.userId, ids));
  for (const r of rows as Array<{ userId: number; dataViewId: number }>) {
    const list = map.get(r.userId) ?? [];
    list.push(r.dataViewId);
    map.set(r.userId, list);
  }
  return map;
}

function view(row: UserRow, ids: number[] | undefined): UserView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    enabled: row.enabled,
    dataViewIds: (ids ?? []).sort((a, b) => a - b),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function setAssignments(db: Database, userId: number, ids: number[]): Promise<void> {
  const unique = [...new Set(ids)];
  await db.orm.delete(userDataViews).where(eq(userDataViews.userId, userId));
  if (unique.length === 0) return;
  try {
    await db.orm.insert(userDataViews).values(unique.map((dataViewId) => ({ userId, dataViewId })));
  } catch (e) {
    // The foreign key to data_views is the check: the caller's transaction rolls the whole change back.
    const refused = foreignKeyViolation(e);
    if (!refused) throw e;
    const id = /\(data_view_id\)=\((\d+)\)/.exec(refused.detail)?.[1];
    throw ValidationError.field('dataViewIds', `unknown data view id${id ? ` ${id}` : ''}`);
  }
}

async function emailTaken(db: Database, email: string, exceptId?: number): Promise<boolean> {
  const cond = sql`lower(${users.email}) = lower(${email})`;
  const rows = await db.orm
    .select({ id: users.id })
    .from(users)
    .where(exceptId ? and(cond, ne(users.id, exceptId)) : cond);
  return rows.length > 0;
}

export async function listUsers(db: Database, caller: Caller): Promise<UserView[]> {
  requireAdmin(caller);
  const rows = await db.orm.select().from(users).orderBy(users.id);
  const map = await assignments(
    db,
    rows.map((r: UserRow) => r.id),
  );
  return rows.map((r: UserRow) => view(r, map.get(r.id)));
}

export async function getUser(db: Database, caller: Caller, id: number): Promise<UserView> {
  requireAdmin(caller);
  const [row] = await db.orm.select().from(users).where(eq(users.id, id));
  if (!row) throw new NotFoundError(`User ${id} was not found.`);
  return view(row, (await assignments(db, [id])).get(id));
}

export async function createUser(db: Database, caller: Caller, input: UserInput): Promise<UserView> {
  requireAdmin(caller);
  const email = input.email!.trim();
  return db.tx(async (tx) => {
    if (await emailTaken(tx, email)) throw new ConflictError(`A user with e-mail ${email} already exists.`);
    const [row] = await tx.orm
      .insert(users)
      .values({
        email,
        role: input.role ?? 'data-user',
        enabled: input.enabled ?? true,
        passwordHash: input.password ? await hashPassword(input.password) : null,
      })
      .returning();
    if (input.dataViewIds) await setAssignments(tx, row.id, input.dataViewIds);
    return view(row, input.dataViewIds);
  });
}

export async function updateUser(
  db: Database,
  caller: Caller,
  id: number,
  input: UserInput,
): Promise<UserView> {
  requireAdmin(caller);
  return db.tx(async (tx) => {
    const [existing] = await tx.orm.select().from(users).where(eq(users.id, id));
    if (!existing) throw new NotFoundError(`User ${id} was not found.`);
    if (id === caller.userId && (input.enabled === false || input.role === 'data-user')) {
      throw new ConflictError('You cannot disable or demote your own account.');
    }
    if (input.email && (await emailTaken(tx, input.email, id))) {
      throw new ConflictError(`A user with e-mail ${input.email} already exists.`);
    }
    const patch: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
    if (input.email !== undefined) patch.email = input.email.trim();
    if (input.role !== undefined) patch.role = input.role;
    if (input.enabled !== undefined) patch.enabled = input.enabled;
    if (input.password !== undefined) patch.passwordHash = await hashPassword(input.password);
    // A new password or a disable ends every token issued before it.
    if (input.password !== undefined || input.enabled === false)
      patch.tokenVersion = sql`${users.tokenVersion} + 1` as unknown as number;
    const [row] = await tx.orm.update(users).set(patch).where(eq(users.id, id)).returning();
    if (input.dataViewIds) await setAssignments(tx, id, input.dataViewIds);
    return view(row, (await assignments(tx, [id])).get(id));
  });
}

export async function deleteUser(db: Database, caller: Caller, id: number): Promise<void> {
  requireAdmin(caller);
  if (id === caller.userId) throw new ConflictError('You cannot delete your own account.');
  const rows = await db.orm.delete(users).where(eq(users.id, id)).returning({ id: users.id });
  if (rows.length === 0) throw new NotFoundError(`User ${id} was not found.`);
}

/**
 * POST /auth/token: e-mail and password to a Bearer token; disabled users get none. Throttled per account and
 * per client address (429 with Retry-After); an unknown e-mail costs the same scrypt as a known one.
 */
export async function signIn(
  db: Database,
  tokens: TokenService,
  ttlSeconds: number,
  email: string,
  password: string,
  context: { sourceIp?: string; now?: Date } = {},
): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number }> {
  const now = context.now ?? new Date();
  const keys = throttleKeys(email, context.sourceIp);
  // Counted before the password is checked, so parallel guesses cannot all pass the lock.
  await claimAttempt(db, keys, now);
  const [user] = await db.orm.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash()));
  if (!user || !user.passwordHash || !ok) throw new UnauthenticatedError('Wrong e-mail or password.');
  await recordSuccess(db, keys);
  if (!user.enabled) throw new UnauthenticatedError('This account is disabled.');
  if (needsRehash(user.passwordHash)) {
    await db.orm
      .update(users)
      .set({ passwordHash: await hashPassword(password) })
      .where(eq(users.id, user.id));
  }
  return { accessToken: await tokens.issue(user), tokenType: 'Bearer', expiresIn: ttlSeconds };
}

/** Creates or updates a seeded account; returns the password set (generated when none is given). */
export async function ensureUser(
  db: Database,
  email: string,
  role: Role,
  password: string,
  resetPassword: boolean,
): Promise<'created' | 'updated' | 'kept'> {
  const [existing] = await db.orm.select().from(users).where(sql`lower(${users.email}) = lower(${email})`);
  if (!existing) {
    await db.orm.insert(users).values({ email, role, passwordHash: await hashPassword(password) });
    return 'created';
  }
  if (!resetPassword) return 'kept';
  await db.orm
    .update(users)
    .set({
      passwordHash: await hashPassword(password),
      updatedAt: new Date(),
      tokenVersion: sql`${users.tokenVersion} + 1` as unknown as number,
    })
    .where(eq(users.id, existing.id));
  return 'updated';
}
