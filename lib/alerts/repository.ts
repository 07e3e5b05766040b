/** Storage of alert subscriptions, deliveries and the record keys sent (migration 0010). */
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { filterNameOf } from '../filters/repository';
import { userEmailOf } from '../identity/directory';

export type Channel = 'webhook' | 'slack' | 'email';
export type Mode = 'immediate' | 'daily' | 'weekly';

export interface SubscriptionRow {
  id: number;
  filterId: number;
  filterName: string;
  name: string;
  userId: number;
  userEmail: string;
  channel: Channel;
  target: string;
  secretRef: string | null;
  mode: Mode;
  digestHour: number;
  digestWeekday: number;
  enabled: boolean;
  lastDigestAt: string | null;
  lastSentAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  failedDeliveries: number;
  pendingDigest: number;
  createdAt: string;
}

const ts = (c: string) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export async function selectSubscriptions(db: Database, where: SQL): Promise<SubscriptionRow[]> {
  const rows = await db.rows<Record<string, unknown>>(sql`
    SELECT s.id, s.filter_id, ${filterNameOf(sql.raw('s.filter_id'))} AS filter_name, s.name, s.user_id, ${userEmailOf(sql.raw('s.user_id'))} AS user_email, s.channel, s.target, s.secret_ref,
           s.mode, s.digest_hour, s.digest_weekday, s.enabled,
           ${sql.raw(ts('s.last_digest_at'))} AS last_digest_at, ${sql.raw(ts('s.last_sent_at'))} AS last_sent_at,
           s.last_error, ${sql.raw(ts('s.last_error_at'))} AS last_error_at, s.failed_deliveries,
           (SELECT count(*) FROM alert_sent_records r WHERE r.subscription_id = s.id AND r.delivery_id IS NULL)::int AS pending_digest,
           ${sql.raw(ts('s.created_at'))} AS created_at
    FROM alert_subscriptions s
    WHERE ${where} ORDER BY s.id`);
  return rows.map((r) => ({
    id: Number(r.id),
    filterId: Number(r.filter_id),
    filterName: String(r.filter_name),
    name: String(r.name),
    userId: Number(r.user_id),
    userEmail: String(r.user_email),
    channel: r.channel as Channel,
    target: String(r.target),
    secretRef: (r.secret_ref as string | null) ?? null,
    mode: r.mode as Mode,
    digestHour: Number(r.digest_hour),
    digestWeekday: Number(r.digest_weekday),
    enabled: r.enabled === true || r.enabled === 't',
    lastDigestAt: (r.last_digest_at as string | null) ?? null,
    lastSentAt: (r.last_sent_at as string | null) ?? null,
    lastError: (r.last_error as string | null) ?? null,
    lastErrorAt: (r.last_error_at as string | null) ?? null,
    failedDeliveries: Number(r.failed_deliveries),
    pendingDigest: Number(r.pending_digest),
    createdAt: String(r.created_at),
  }));
}

export async function findSubscription(db: Database, id: number): Promise<SubscriptionRow | undefined> {
  return (await selectSubscriptions(db, sql`s.id = ${id}`))[0];
}

export interface DeliveryRow {
  id: number;
  subscriptionId: number;
  kind: 'immediate' | 'digest' | 'test';
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  records: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

export async function listDeliveries(
  db: Database,
  subscriptionId: number,
  limit = 50,
): Promise<DeliveryRow[]> {
  const rows = await db.rows<Record<string, unknown>>(sql`
    SELECT id, subscription_id, kind, status, attempts, jsonb_array_length(payload -> 'records') AS records,
           ${sql.raw(ts('next_attempt_at'))} AS next_attempt_at, last_error,
           ${sql.raw(ts('created_at'))} AS created_at, ${sql.raw(ts('sent_at'))} AS sent_at
    FROM alert_deliveries WHERE subscription_id = ${subscriptionId} ORDER BY id DESC LIMIT ${limit}`);
  return rows.map((r) => ({
    id: Number(r.id),
    subscriptionId: Number(r.subscription_id),
    kind: r.kind as DeliveryRow['kind'],
    status: r.status as DeliveryRow['status'],
    attempts: Number(r.attempts),
    records: Number(r.records ?? 0),
    nextAttemptAt: r.status === 'pending' ? ((r.next_attempt_at as string | null) ?? null) : null,
    lastError: (r.last_error as string | null) ?? null,
    createdAt: String(r.created_at),
    sentAt: (r.sent_at as string | null) ?? null,
  }));
}
