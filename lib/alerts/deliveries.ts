/**
 * The queue of alert messages (alert_deliveries): a message is stored with its payload, then attempted; a failed
 * attempt is retried with backoff by the every-minute schedule up to MAX_ATTEMPTS, and failures are recorded on
 * the delivery and the subscription.
 */
import { sql } from 'drizzle-orm';
import type { AnomalyDeps } from '../anomalies/run';
import type { AnomalyRecord } from '../filters/types';
import type { SecretStore } from '../secrets/index';
import type { Logger } from '../shared/logger';
import { SEND_TIMEOUT_MS, SendDeferred, type SendOptions, send } from './channels';
import { type AlertPayload, alertKey } from './messages';
import { findSubscription, type SubscriptionRow } from './repository';
import { loadAlertSettings } from './settings';

export interface AlertDeps extends AnomalyDeps {
  secrets: SecretStore;
  log?: Logger;
}

export const MAX_ATTEMPTS = 5;
/** Seconds before attempt n+1 after n failed attempts: 30 s, 2 min, 8 min, 32 min. */
export const backoffSeconds = (failedAttempts: number) => 30 * 4 ** Math.max(0, failedAttempts - 1);

export interface DeliveryOutcome {
  id: number;
  status: string;
  error?: string;
}

function links(publicUrl: string, filterId: number): AlertPayload['links'] {
  return {
    filter: `${publicUrl}/filters/${filterId}`,
    api: `${publicUrl}/api/v1/anomalies/by-filter/${filterId}`,
  };
}

/** Queues one message of the subscription with these records; marks the records as sent by it. */
export async function queueDelivery(
  deps: AlertDeps,
  sub: SubscriptionRow,
  kind: AlertPayload['kind'],
  records: AnomalyRecord[],
  now: Date,
): Promise<number> {
  const settings = await loadAlertSettings(deps);
  const payload: AlertPayload = {
    kind,
    subscriptionId: sub.id,
    filter: { id: sub.filterId, name: sub.filterName },
    records,
    links: links(settings.publicUrl, sub.filterId),
    generatedAt: now.toISOString(),
  };
  const [row] = await deps.db.rows<{ id: number }>(sql`
    INSERT INTO alert_deliveries (subscription_id, kind, payload, next_attempt_at)
    VALUES (${sub.id}, ${kind}, ${JSON.stringify(payload)}::jsonb, ${now.toISOString()}::timestamptz) RETURNING id`);
  const id = Number(row.id);
  if (records.length && kind !== 'test') {
    const keys = records.map((r) => sql`${alertKey(r)}`);
    await deps.db.rows(sql`UPDATE alert_sent_records SET delivery_id = ${id}
      WHERE subscription_id = ${sub.id} AND record_key IN (${sql.join(keys, sql`, `)})`);
  }
  return id;
}

/**
 * One attempt of a pending delivery; records the outcome on the delivery and the subscription. The attempt
 * first claims the delivery (moves its next attempt past the send's time limit), so the schedule and a
 * detection never send the same message twice. `signal` ends the time given to the run: a send not begun by
 * then, or to a target that already timed out in the run, is left pending for the schedule without counting
 * as an attempt; a send under way is stopped and counts as a failed attempt.
 */
export async function attemptDelivery(
  deps: AlertDeps,
  deliveryId: number,
  now: Date,
  options: SendOptions = {},
): Promise<DeliveryOutcome> {
  const claimUntil = new Date(now.getTime() + SEND_TIMEOUT_MS + 60_000).toISOString();
  const [d] = await deps.db.rows<{ subscription_id: number; payload: unknown; attempts: number }>(sql`
    UPDATE alert_deliveries SET next_attempt_at = ${claimUntil}::timestamptz
    WHERE id = ${deliveryId} AND status = 'pending' AND next_attempt_at <= ${now.toISOString()}::timestamptz
    RETURNING subscription_id, payload, attempts`);
  if (!d) {
    const [row] = await deps.db.rows<{ status: string }>(
      sql`SELECT status FROM alert_deliveries WHERE id = ${deliveryId}`,
    );
    // Pending but not due: another run holds it, or its retry time has not come.
    return { id: deliveryId, status: row?.status ?? 'missing' };
  }
  const sub = await findSubscription(deps.db, Number(d.subscription_id));
  if (!sub) return { id: deliveryId, status: 'missing' };
  const payload = (typeof d.payload === 'string' ? JSON.parse(d.payload) : d.payload) as AlertPayload;
  const attempts = Number(d.attempts) + 1;
  try {
    await send(deps, sub, deliveryId, payload, options);
    // sentAt is when the message went out, not when the run began.
    const sentAt = deps.clock.now().toISOString();
    await deps.db.rows(sql`UPDATE alert_deliveries SET status = 'sent', attempts = ${attempts},
      sent_at = ${sentAt}::timestamptz, last_error = NULL WHERE id = ${deliveryId}`);
    await deps.db.rows(
      sql`UPDATE alert_subscriptions SET last_sent_at = ${sentAt}::timestamptz WHERE id = ${sub.id}`,
    );
    return { id: deliveryId, status: 'sent' };
  } catch (e) {
    if (e instanceof SendDeferred && payload.kind !== 'test') {
      await deps.db.rows(sql`UPDATE alert_deliveries SET next_attempt_at = ${now.toISOString()}::timestamptz
        WHERE id = ${deliveryId}`);
      return { id: deliveryId, status: 'pending', error: e.message };
    }
    // Messages name the step and the answer's status, never a secret (URLs of Slack hooks are not in them).
    const error = ((e as Error).message || String(e)).slice(0, 500);
    const failed = attempts >= MAX_ATTEMPTS || payload.kind === 'test';
    const next = new Date(now.getTime() + backoffSeconds(attempts) * 1000);
    await deps.db.rows(sql`UPDATE alert_deliveries SET attempts = ${attempts}, last_error = ${error},
      status = ${failed ? 'failed' : 'pending'}, next_attempt_at = ${next.toISOString()}::timestamptz
      WHERE id = ${deliveryId}`);
    await deps.db.rows(sql`UPDATE alert_subscriptions SET last_error = ${error},
      last_error_at = ${now.toISOString()}::timestamptz,
      failed_deliveries = failed_deliveries + ${failed && payload.kind !== 'test' ? 1 : 0} WHERE id = ${sub.id}`);
    deps.log?.warn('alert delivery failed', { deliveryId, subscriptionId: sub.id, attempts, error });
    return { id: deliveryId, status: failed ? 'failed' : 'pending', error };
  }
}
