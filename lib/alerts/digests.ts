/**
 * The every-minute part of alerts: daily and weekly digests on their hour (the records gathered since the last
 * digest), then deliveries whose retry time has come. A tick runs within a time of its own, a few sends at a
 * time: what is left waits for the next minute.
 */
import { sql } from 'drizzle-orm';
import { canRead } from '../dataviews/scope';
import type { AnomalyRecord } from '../filters/types';
import { callerForUser } from '../identity/authenticate';
import { forEachBounded, roundRobin } from '../shared/bounded';
import type { CycleResult } from './collect';
import { type AlertDeps, attemptDelivery, type DeliveryOutcome, queueDelivery } from './deliveries';
import type { SendOptions } from './channels';
import { type SubscriptionRow, selectSubscriptions } from './repository';
import { deadline } from '../shared/deadline';

/** Sends at once in one tick, and the time a tick may take (the schedule runs every minute). */
export const TICK_CONCURRENCY = 8;
export const TICK_BUDGET_MS = 45_000;
/** Retries taken per tick. */
const RETRIES_PER_TICK = 200;

/** The local hour (0..23) and ISO weekday (1 = Monday) of an instant in a time zone. */
export function localHour(now: Date, timeZone: string): { hour: number; weekday: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hour: 'numeric',
    hourCycle: 'h23',
    weekday: 'short',
  })
    .formatToParts(now)
    .reduce<Record<string, string>>((acc, p) => {
      acc[p.type] = p.value;
      return acc;
    }, {});
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(parts.weekday) + 1;
  return { hour: Number(parts.hour), weekday };
}

/** Whether a digest subscription is due at `now`: its hour (and weekday), and not sent in the last two hours. */
export function digestDue(
  sub: Pick<SubscriptionRow, 'mode' | 'digestHour' | 'digestWeekday' | 'lastDigestAt'>,
  now: Date,
  timeZone: string,
): boolean {
  if (sub.mode === 'immediate') return false;
  const { hour, weekday } = localHour(now, timeZone);
  if (hour !== sub.digestHour) return false;
  if (sub.mode === 'weekly' && weekday !== sub.digestWeekday) return false;
  return !sub.lastDigestAt || now.getTime() - Date.parse(sub.lastDigestAt) >= 2 * 3600_000;
}

/** One digest message with the incidents gathered since the last one (only those the subscriber can still read). */
export async function sendDigest(
  deps: AlertDeps,
  sub: SubscriptionRow,
  now: Date,
  options: SendOptions = {},
): Promise<CycleResult> {
  await deps.db.rows(
    sql`UPDATE alert_subscriptions SET last_digest_at = ${now.toISOString()}::timestamptz WHERE id = ${sub.id}`,
  );
  const rows = await deps.db.rows<{ record: unknown }>(sql`
    SELECT record FROM alert_sent_records WHERE subscription_id = ${sub.id} AND delivery_id IS NULL ORDER BY created_at, record_key`);
  const caller = await callerForUser(deps.db, sub.userId);
  const records = rows
    .map((r) => (typeof r.record === 'string' ? JSON.parse(r.record) : r.record) as AnomalyRecord)
    .filter((r) => caller !== undefined && canRead(caller, r.dataViewId));
  records.sort((a, b) => (b.sin ?? Number.NEGATIVE_INFINITY) - (a.sin ?? Number.NEGATIVE_INFINITY));
  if (records.length === 0) return { subscriptionId: sub.id, newIncidents: 0 };
  const id = await queueDelivery(deps, sub, 'digest', records, now);
  // Records the subscriber can no longer read are not kept for a later digest.
  await deps.db.rows(
    sql`UPDATE alert_sent_records SET delivery_id = ${id} WHERE subscription_id = ${sub.id} AND delivery_id IS NULL`,
  );
  return {
    subscriptionId: sub.id,
    newIncidents: records.length,
    deliveries: [await attemptDelivery(deps, id, now, options)],
  };
}

/** The every-minute part of alerts: due digests, then deliveries whose retry time has come. */
export async function alertsTick(
  deps: AlertDeps,
  options: { signal?: AbortSignal } = {},
): Promise<{ digests: CycleResult[]; retried: DeliveryOutcome[] }> {
  const now = deps.clock.now();
  const budget = deadline(TICK_BUDGET_MS, options.signal);
  const send: SendOptions = {
    signal: budget.signal,
    unreachable: new Set(),
  };
  try {
    const subs = (await selectSubscriptions(deps.db, sql`s.enabled AND s.mode <> 'immediate'`)).filter(
      (sub) => digestDue(sub, now, deps.timeZone),
    );
    const digests = (
      await forEachBounded(
        roundRobin(subs, (s) => s.userId),
        TICK_CONCURRENCY,
        (sub) =>
          sendDigest(deps, sub, now, send).catch((e) => {
            deps.log?.error('alert digest failed', { subscriptionId: sub.id, error: e });
            return undefined;
          }),
        () => undefined,
        send.signal,
      )
    ).filter((d): d is CycleResult => d !== undefined);
    // Every pending delivery whose time has come: retries, and messages a detection queued but had no time for.
    const due = await deps.db.rows<{ id: number; user_id: number }>(sql`
      SELECT d.id, s.user_id FROM alert_deliveries d JOIN alert_subscriptions s ON s.id = d.subscription_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${now.toISOString()}::timestamptz AND s.enabled
      ORDER BY d.next_attempt_at, d.id LIMIT ${RETRIES_PER_TICK}`);
    const retried = await forEachBounded(
      roundRobin(due, (d) => d.user_id),
      TICK_CONCURRENCY,
      (d) => attemptDelivery(deps, Number(d.id), now, send),
      (d): DeliveryOutcome => ({ id: Number(d.id), status: 'pending' }),
      send.signal,
    );
    return { digests, retried };
  } finally {
    budget.clear();
  }
}
