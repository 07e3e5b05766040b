/**
 * Alert delivery (docs/alerts.md). After each successful detection cycle of a data view, every enabled subscription
 * whose filter covers the view runs the filter as its subscriber (only what they can read, dismissed records left
 * out) and remembers the records it has not sent before; immediate subscriptions send them at once, digests on
 * their hour. Sending goes through alert_deliveries: a failed attempt is retried with backoff by the every-minute
 * schedule, and failures are recorded on the subscription.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type AnomalyDeps, runFilterDefinition } from '../anomalies/run';
import { recordKey } from '../feedback/records';
import { filterSettings, findVisibleFilter } from '../filters/repository';
import { parseDataViews } from '../filters/parse';
import type { AnomalyRecord, FilterDefinition } from '../filters/types';
import { callerForUser } from '../identity/authenticate';
import { canRead } from '../dataviews/scope';
import type { SecretStore } from '../secrets/index';
import type { Logger } from '../shared/logger';
import { addressRefusal, endpointRefusal, pinnedFetch } from '../summaries/endpoint-guard';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AlertPayload, emailMessage, slackBody, webhookBody } from './messages';
import { findSubscription, type SubscriptionRow, selectSubscriptions } from './repository';
import { loadAlertSettings } from './settings';
import { sendMail } from './smtp';

export interface AlertDeps extends AnomalyDeps {
  secrets: SecretStore;
  log?: Logger;
}

export const MAX_ATTEMPTS = 5;
/** Seconds before attempt n+1 after n failed attempts: 30 s, 2 min, 8 min, 32 min. */
export const backoffSeconds = (failedAttempts: number) => 30 * 4 ** Math.max(0, failedAttempts - 1);
const SEND_TIMEOUT_MS = 10_000;

export interface CycleResult {
  subscriptionId: number;
  newRecords: number;
  delivery?: { id: number; status: string; error?: string };
}

function covers(settings: Partial<FilterDefinition>, view: { domain: string; name: string }): boolean {
  let refs: Array<{ domain: string; name: string }>;
  try {
    refs = parseDataViews(settings.dataViews ?? '');
  } catch {
    return false;
  }
  return (
    refs.length === 0 ||
    refs.some(
      (r) =>
        r.domain.toLowerCase() === view.domain.toLowerCase() &&
        r.name.toLowerCase() === view.name.toLowerCase(),
    )
  );
}

/** The new records of one subscription: the filter run as its subscriber, dismissed records left out. */
async function collect(deps: AlertDeps, sub: SubscriptionRow): Promise<AnomalyRecord[] | undefined> {
  const caller = await callerForUser(deps.db, sub.userId);
  if (!caller) return undefined;
  // A subscriber who lost the filter (unshared) gets nothing.
  const filter = await findVisibleFilter(deps.db, sub.userId, sub.filterId);
  if (!filter) return undefined;
  const answer = await runFilterDefinition(
    deps,
    caller,
    { ...(filter.settings as Partial<FilterDefinition>), hideDismissed: true },
    false,
  );
  const records = answer.anomalies.filter((a) => canRead(caller, a.dataViewId));
  if (records.length === 0) return [];
  const fresh: AnomalyRecord[] = [];
  for (const r of records) {
    const [row] = await deps.db.rows<{ k: string }>(sql`
      INSERT INTO alert_sent_records (subscription_id, record_key, record)
      VALUES (${sub.id}, ${recordKey(r)}, ${JSON.stringify(r)}::jsonb)
      ON CONFLICT DO NOTHING RETURNING record_key AS k`);
    if (row) fresh.push(r);
  }
  return fresh;
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
    const keys = records.map((r) => sql`${recordKey(r)}`);
    await deps.db.rows(sql`UPDATE alert_sent_records SET delivery_id = ${id}
      WHERE subscription_id = ${sub.id} AND record_key IN (${sql.join(keys, sql`, `)})`);
  }
  return id;
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: { allowPrivateNetwork: boolean },
): Promise<void> {
  // The connection resolves the host itself and refuses what the check refuses (no DNS rebinding in between).
  const res = await pinnedFetch(policy)(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'anomaly-monitor-alerts', ...headers },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  const answer = await res.text().catch(() => '');
  if (res.status < 200 || res.status >= 300)
    throw new Error(`the endpoint answered HTTP ${res.status}${answer ? `: ${answer.slice(0, 200)}` : ''}`);
}

/** The X-Signature header value of a webhook body: sha256=<hex HMAC-SHA256 of the raw body with the secret>. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

async function send(
  deps: AlertDeps,
  sub: SubscriptionRow,
  deliveryId: number,
  payload: AlertPayload,
): Promise<void> {
  const settings = await loadAlertSettings(deps);
  if (sub.channel === 'webhook' || sub.channel === 'slack') {
    const url = sub.channel === 'slack' ? await deps.secrets.get(sub.secretRef as string) : sub.target;
    const refusal = await endpointRefusal(url, { allowPrivateNetwork: settings.allowPrivateNetwork });
    if (refusal) throw new Error(`the target URL ${refusal}`);
    const policy = { allowPrivateNetwork: settings.allowPrivateNetwork };
    if (sub.channel === 'slack') return post(url, slackBody(payload), {}, policy);
    const body = webhookBody(payload);
    const secret = await deps.secrets.get(sub.secretRef as string);
    return post(
      url,
      body,
      {
        'x-signature': signature(secret, body),
        'x-alert-delivery': String(deliveryId),
        'x-alert-subscription': String(sub.id),
      },
      policy,
    );
  }
  if (!settings.smtp)
    throw new Error('no SMTP server is configured (an administrator sets it in the alert settings)');
  const refusal = await endpointRefusal(`http://${settings.smtp.host}:${settings.smtp.port}/`, {
    allowPrivateNetwork: settings.smtp.allowPrivateNetwork,
  });
  if (refusal) throw new Error(`the SMTP host ${refusal}`);
  // Connect to the address that was checked (no DNS rebinding between the check and the connection).
  const host = settings.smtp.host;
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  for (const a of addresses) {
    const why = addressRefusal(a, { allowPrivateNetwork: settings.smtp.allowPrivateNetwork });
    if (why) throw new Error(`the SMTP host ${why}`);
  }
  const m = emailMessage(payload);
  await sendMail(
    { ...settings.smtp, connectAddress: addresses[0], timeoutMs: SEND_TIMEOUT_MS },
    { to: [sub.target], ...m },
  );
}

/** One attempt of a pending delivery; records the outcome on the delivery and the subscription. */
export async function attemptDelivery(
  deps: AlertDeps,
  deliveryId: number,
  now: Date,
): Promise<{ id: number; status: string; error?: string }> {
  const [d] = await deps.db.rows<{
    subscription_id: number;
    payload: unknown;
    attempts: number;
    status: string;
  }>(sql`SELECT subscription_id, payload, attempts, status FROM alert_deliveries WHERE id = ${deliveryId}`);
  if (!d || d.status !== 'pending') return { id: deliveryId, status: d?.status ?? 'missing' };
  const sub = await findSubscription(deps.db, Number(d.subscription_id));
  if (!sub) return { id: deliveryId, status: 'missing' };
  const payload = (typeof d.payload === 'string' ? JSON.parse(d.payload) : d.payload) as AlertPayload;
  const attempts = Number(d.attempts) + 1;
  try {
    await send(deps, sub, deliveryId, payload);
    await deps.db.rows(sql`UPDATE alert_deliveries SET status = 'sent', attempts = ${attempts},
      sent_at = ${now.toISOString()}::timestamptz, last_error = NULL WHERE id = ${deliveryId}`);
    await deps.db.rows(
      sql`UPDATE alert_subscriptions SET last_sent_at = ${now.toISOString()}::timestamptz WHERE id = ${sub.id}`,
    );
    return { id: deliveryId, status: 'sent' };
  } catch (e) {
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

/** After a successful detection cycle of the view: the new records of every subscription over it. */
export async function alertsAfterDetection(
  deps: AlertDeps,
  dataView: { id: number; domain: string; name: string },
): Promise<CycleResult[]> {
  const now = deps.clock.now();
  const subs = await selectSubscriptions(deps.db, sql`s.enabled`);
  const out: CycleResult[] = [];
  for (const sub of subs) {
    const settings = (await filterSettings(deps.db, sub.filterId)) as Partial<FilterDefinition> | undefined;
    if (!settings || !covers(settings, dataView)) continue;
    try {
      const fresh = await collect(deps, sub);
      if (!fresh) continue;
      const result: CycleResult = { subscriptionId: sub.id, newRecords: fresh.length };
      if (fresh.length && sub.mode === 'immediate') {
        const id = await queueDelivery(deps, sub, 'immediate', fresh, now);
        result.delivery = await attemptDelivery(deps, id, now);
      }
      out.push(result);
    } catch (e) {
      deps.log?.error('alerts not collected after detection', { subscriptionId: sub.id, error: e });
      out.push({
        subscriptionId: sub.id,
        newRecords: 0,
        delivery: { id: 0, status: 'error', error: (e as Error).message },
      });
    }
  }
  return out;
}

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

/** One digest message with the records gathered since the last one (only those the subscriber can still read). */
export async function sendDigest(deps: AlertDeps, sub: SubscriptionRow, now: Date): Promise<CycleResult> {
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
  if (records.length === 0) return { subscriptionId: sub.id, newRecords: 0 };
  const id = await queueDelivery(deps, sub, 'digest', records, now);
  // Records the subscriber can no longer read are not kept for a later digest.
  await deps.db.rows(
    sql`UPDATE alert_sent_records SET delivery_id = ${id} WHERE subscription_id = ${sub.id} AND delivery_id IS NULL`,
  );
  return {
    subscriptionId: sub.id,
    newRecords: records.length,
    delivery: await attemptDelivery(deps, id, now),
  };
}

/** The every-minute part of alerts: due digests, then deliveries whose retry time has come. */
export async function alertsTick(
  deps: AlertDeps,
): Promise<{ digests: CycleResult[]; retried: Array<{ id: number; status: string }> }> {
  const now = deps.clock.now();
  const digests: CycleResult[] = [];
  for (const sub of await selectSubscriptions(deps.db, sql`s.enabled AND s.mode <> 'immediate'`)) {
    if (!digestDue(sub, now, deps.timeZone)) continue;
    try {
      digests.push(await sendDigest(deps, sub, now));
    } catch (e) {
      deps.log?.error('alert digest failed', { subscriptionId: sub.id, error: e });
    }
  }
  const due = await deps.db.rows<{ id: number }>(sql`
    SELECT d.id FROM alert_deliveries d JOIN alert_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'pending' AND d.attempts > 0 AND d.next_attempt_at <= ${now.toISOString()}::timestamptz AND s.enabled
    ORDER BY d.next_attempt_at LIMIT 50`);
  const retried: Array<{ id: number; status: string }> = [];
  for (const d of due) retried.push(await attemptDelivery(deps, Number(d.id), now));
  return { digests, retried };
}
