/**
 * Sign-in throttling, kept in the service database so that every function instance sees the same counts.
 * Failures are counted per account (the e-mail as typed, lower-cased, known or not) and per client address;
 * past a few free failures each further one locks that key for a growing delay (15 s, 30 s, 1 min … 15 min),
 * during which sign-in answers 429 with Retry-After without checking the password. A success clears the
 * account's count; an address's count only fades after a quiet window, so one valid account cannot reset it.
 * An attempt is counted before its password is checked (one statement per key that also sets the lock), and
 * rows of keys quiet for the window are pruned, so unknown e-mails do not grow the table without bound.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { signInThrottle } from '../db/tables/identity';
import { TooManyRequestsError } from '../shared/errors';

export const THROTTLE = {
  /** Failures of one account before the first lock. */
  accountFreeFailures: 5,
  /** Failures from one client address (any accounts) before the first lock. */
  addressFreeFailures: 20,
  baseDelaySeconds: 15,
  maxDelaySeconds: 15 * 60,
  /** A key whose last failure is older than this starts counting again from zero. */
  windowSeconds: 60 * 60,
};

export interface ThrottleKeys {
  account: string;
  address?: string;
}

export function throttleKeys(email: string, sourceIp: string | undefined): ThrottleKeys {
  return {
    account: `account:${email.trim().toLowerCase().slice(0, 320)}`,
    address: sourceIp ? `address:${sourceIp.slice(0, 64)}` : undefined,
  };
}

/** The 429 for a key locked until `until`. */
function locked(until: number, now: Date): TooManyRequestsError {
  const seconds = Math.max(1, Math.ceil((until - now.getTime()) / 1000));
  return new TooManyRequestsError(
    `Too many failed sign-ins for this account or from this address; try again in ${seconds} s.`,
    seconds,
  );
}

/** The lock after `failures` failures of a key that allows `free` of them: none, then 15 s doubling up to 15 min. */
export function lockSeconds(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(THROTTLE.maxDelaySeconds, THROTTLE.baseDelaySeconds * 2 ** Math.min(20, failures - free));
}

/**
 * Counts one attempt on `key` before its password is checked, and sets the lock it earns, in one statement:
 * a locked key is not counted and answers false. So parallel guesses cannot all pass a check made before any
 * of them was recorded: each takes its own number, and those past the free ones find the lock.
 */
async function claim(db: Database, key: string, free: number, now: Date): Promise<boolean> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const windowStart = sql`${new Date(now.getTime() - THROTTLE.windowSeconds * 1000).toISOString()}::timestamptz`;
  const next = sql`(CASE WHEN t.last_failure_at < ${windowStart} THEN 1 ELSE t.failures + 1 END)`;
  const lock = (n: SQL) => sql`CASE WHEN ${n} >= ${free} THEN ${at} + make_interval(secs =>
    least(${THROTTLE.maxDelaySeconds}, ${THROTTLE.baseDelaySeconds} * power(2, least(20, ${n} - ${free})))) END`;
  const rows = await db.rows<{ failures: number }>(sql`
    INSERT INTO sign_in_throttle AS t (key, failures, last_failure_at, locked_until)
    VALUES (${key}, 1, ${at}, ${lock(sql`1`)})
    ON CONFLICT (key) DO UPDATE SET failures = ${next}, last_failure_at = ${at}, locked_until = ${lock(next)}
    WHERE t.locked_until IS NULL OR t.locked_until <= ${at}
    RETURNING failures`);
  return rows.length > 0;
}

/** Rows of keys neither locked nor failed within the window: unknown e-mails must not grow the table forever. */
async function prune(db: Database, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - THROTTLE.windowSeconds * 1000).toISOString();
  await db.rows(sql`DELETE FROM sign_in_throttle WHERE key IN (
    SELECT key FROM sign_in_throttle WHERE last_failure_at < ${windowStart}::timestamptz
      AND (locked_until IS NULL OR locked_until < ${now.toISOString()}::timestamptz)
    ORDER BY last_failure_at LIMIT 100)`);
}

/**
 * Before a password is checked: counts the attempt as a failure of the account and of the address, or throws
 * 429 when either is locked. `recordSuccess` takes the count back when the password was right.
 */
export async function claimAttempt(db: Database, keys: ThrottleKeys, now: Date): Promise<void> {
  for (const [key, free] of [
    [keys.account, THROTTLE.accountFreeFailures],
    ...(keys.address ? [[keys.address, THROTTLE.addressFreeFailures] as const] : []),
  ] as const) {
    if (await claim(db, key, free, now)) continue;
    const [row] = await db.orm.select().from(signInThrottle).where(eq(signInThrottle.key, key));
    throw locked(row?.lockedUntil?.getTime() ?? now.getTime(), now);
  }
  await prune(db, now);
}

/** The right password: the account's count is cleared; the address gets back the attempt claimAttempt counted. */
export async function recordSuccess(db: Database, keys: ThrottleKeys): Promise<void> {
  await db.orm.delete(signInThrottle).where(eq(signInThrottle.key, keys.account));
  if (keys.address)
    await db.rows(sql`UPDATE sign_in_throttle SET failures = greatest(failures - 1, 0),
      locked_until = CASE WHEN failures - 1 < ${THROTTLE.addressFreeFailures} THEN NULL ELSE locked_until END
      WHERE key = ${keys.address}`);
}
