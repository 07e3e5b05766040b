/**
 * Sign-in throttling, kept in the service database so that every function instance sees the same counts.
 * Failures are counted per account (the e-mail as typed, lower-cased, known or not) and per client address;
 * past a few free failures each further one locks that key for a growing delay (15 s, 30 s, 1 min … 15 min),
 * during which sign-in answers 429 with Retry-After without checking the password. A success clears the
 * account's count; an address's count only fades after a quiet window, so one valid account cannot reset it.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { signInThrottle } from '../db/tables/index';
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

const list = (k: ThrottleKeys) => [k.account, ...(k.address ? [k.address] : [])];

/** Throws 429 when the account or the address is locked at `now`. */
export async function assertNotThrottled(db: Database, keys: ThrottleKeys, now: Date): Promise<void> {
  const rows = await db.orm
    .select()
    .from(signInThrottle)
    .where(inArray(signInThrottle.key, list(keys)));
  let until = 0;
  for (const r of rows) if (r.lockedUntil && r.lockedUntil.getTime() > until) until = r.lockedUntil.getTime();
  if (until > now.getTime()) {
    const seconds = Math.max(1, Math.ceil((until - now.getTime()) / 1000));
    throw new TooManyRequestsError(
      `Too many failed sign-ins for this account or from this address; try again in ${seconds} s.`,
      seconds,
    );
  }
}

/** The lock after `failures` failures of a key that allows `free` of them: none, then 15 s doubling up to 15 min. */
export function lockSeconds(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(THROTTLE.maxDelaySeconds, THROTTLE.baseDelaySeconds * 2 ** Math.min(20, failures - free));
}

async function bump(db: Database, key: string, free: number, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - THROTTLE.windowSeconds * 1000);
  const [row] = await db.rows<{ failures: number }>(sql`
    INSERT INTO sign_in_throttle (key, failures, last_failure_at) VALUES (${key}, 1, ${now.toISOString()}::timestamptz)
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN sign_in_throttle.last_failure_at < ${windowStart.toISOString()}::timestamptz
                      THEN 1 ELSE sign_in_throttle.failures + 1 END,
      last_failure_at = EXCLUDED.last_failure_at
    RETURNING failures`);
  const lock = lockSeconds(Number(row.failures), free);
  if (lock > 0) {
    await db.orm
      .update(signInThrottle)
      .set({ lockedUntil: new Date(now.getTime() + lock * 1000) })
      .where(eq(signInThrottle.key, key));
  }
}

export async function recordFailure(db: Database, keys: ThrottleKeys, now: Date): Promise<void> {
  await bump(db, keys.account, THROTTLE.accountFreeFailures, now);
  if (keys.address) await bump(db, keys.address, THROTTLE.addressFreeFailures, now);
}

export async function recordSuccess(db: Database, keys: ThrottleKeys): Promise<void> {
  await db.orm.delete(signInThrottle).where(eq(signInThrottle.key, keys.account));
}
