/**
 * Rate limits kept in the service database, so every function instance counts the same: a fixed window per
 * key (e.g. `summary-refresh:user:7`), counted and checked in one statement so that parallel calls cannot all
 * pass a check made before any of them was counted. Past the limit a call is a 429 with Retry-After.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { TooManyRequestsError } from '../shared/errors';

export interface RateLimit {
  /** Calls allowed per window. */
  max: number;
  windowSeconds: number;
}

/**
 * Counts one call of `key`, or throws 429 (`what` says which calls, in the message) when the window already
 * holds `limit.max` of them. A window older than `windowSeconds` starts again from one.
 */
export async function takeRateLimit(
  db: Database,
  key: string,
  limit: RateLimit,
  now: Date,
  what: string,
): Promise<void> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const expired = sql`${new Date(now.getTime() - limit.windowSeconds * 1000).toISOString()}::timestamptz`;
  const [row] = await db.rows<{ count: number; window_start: string | Date }>(sql`
    INSERT INTO rate_limits AS r (key, window_start, count) VALUES (${key}, ${at}, 1)
    ON CONFLICT (key) DO UPDATE SET
      window_start = CASE WHEN r.window_start <= ${expired} THEN ${at} ELSE r.window_start END,
      count = CASE WHEN r.window_start <= ${expired} THEN 1 ELSE least(r.count + 1, ${limit.max + 1}) END
    RETURNING count, window_start`);
  if (!row || Number(row.count) <= limit.max) {
    await prune(db, expired);
    return;
  }
  const ends = new Date(row.window_start).getTime() + limit.windowSeconds * 1000;
  const seconds = Math.max(1, Math.ceil((ends - now.getTime()) / 1000));
  throw new TooManyRequestsError(
    `At most ${limit.max} ${what} per ${limit.windowSeconds / 60} minutes; try again in ${seconds} s.`,
    seconds,
  );
}

/** Rows of windows long over: a bounded delete per call keeps the table small. */
async function prune(db: Database, expired: ReturnType<typeof sql>): Promise<void> {
  await db.rows(sql`DELETE FROM rate_limits WHERE key IN (
    SELECT key FROM rate_limits WHERE window_start <= ${expired} LIMIT 100)`);
}
