/** Alert subscription use cases (docs/alerts.md): a reader of a filter subscribes it; secrets are shown once, never again. */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { loadVisibleFilter } from '../filters/service';
import { type Caller, isAdmin, requireRead } from '../identity/caller';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors';
import { endpointRefusal } from '../outbound/endpoint-guard';
import { NO_SMTP, targetPolicy } from './channels';
import { type AlertDeps, attemptDelivery, queueDelivery } from './deliveries';
import { sendDigest } from './digests';
import {
  type Channel,
  type DeliveryRow,
  findSubscription,
  listDeliveries,
  type Mode,
  type SubscriptionRow,
  selectSubscriptions,
} from './repository';
import { loadAlertSettings } from './settings';
import { serviceSecretName } from '../secrets/index';

export interface SubscriptionInput {
  channel?: Channel;
  /** Unique among the user's subscriptions, any case; default `<channel>-<id>`. */
  name?: string;
  url?: string;
  email?: string;
  mode?: Mode;
  digestHour?: number;
  digestWeekday?: number;
  enabled?: boolean;
}

export interface SubscriptionView {
  id: number;
  filterId: number;
  filterName: string;
  name: string;
  owner: string;
  channel: Channel;
  /** Webhook: the URL; Slack: its origin only (the URL is a secret); e-mail: the address. */
  target: string;
  mode: Mode;
  digestHour: number;
  digestWeekday: number;
  enabled: boolean;
  lastSentAt: string | null;
  lastDigestAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  failedDeliveries: number;
  pendingDigest: number;
  createdAt: string;
  /** Only in the answer that created it (or rotated it): the webhook's signing secret. */
  secret?: string;
}

function toView(r: SubscriptionRow): SubscriptionView {
  return {
    id: r.id,
    filterId: r.filterId,
    filterName: r.filterName,
    name: r.name,
    owner: r.userEmail,
    channel: r.channel,
    target: r.target,
    mode: r.mode,
    digestHour: r.digestHour,
    digestWeekday: r.digestWeekday,
    enabled: r.enabled,
    lastSentAt: r.lastSentAt,
    lastDigestAt: r.lastDigestAt,
    lastError: r.lastError,
    lastErrorAt: r.lastErrorAt,
    failedDeliveries: r.failedDeliveries,
    pendingDigest: r.pendingDigest,
    createdAt: r.createdAt,
  };
}

const newSecret = () => randomBytes(32).toString('base64url');

async function checkUrl(deps: AlertDeps, caller: Caller, url: string | undefined): Promise<string> {
  if (!url) throw ValidationError.field('url', 'is required for webhook and slack channels');
  const settings = await loadAlertSettings(deps);
  // Only an administrator is pointed at the setting that allows private targets.
  const refusal = await endpointRefusal(url, targetPolicy(settings.allowPrivateNetwork, isAdmin(caller)));
  if (refusal) throw ValidationError.field('url', refusal);
  return url;
}

function checkEmail(caller: Caller, email: string | undefined): string {
  const address = (email ?? caller.email).trim();
  if (!isAdmin(caller) && address.toLowerCase() !== caller.email.toLowerCase())
    throw ValidationError.field('email', 'must be your own address (administrators may send to others)');
  return address;
}

function checkSchedule(input: SubscriptionInput): void {
  if (input.digestHour !== undefined && (input.digestHour < 0 || input.digestHour > 23))
    throw ValidationError.field('digestHour', 'must be 0..23');
  if (input.digestWeekday !== undefined && (input.digestWeekday < 1 || input.digestWeekday > 7))
    throw ValidationError.field('digestWeekday', 'must be 1 (Monday)..7 (Sunday)');
}

/** A subscription's name: trimmed, and not one another subscription of the same user has (any case). */
async function checkName(
  deps: AlertDeps,
  userId: number,
  name: string | undefined,
  selfId?: number,
): Promise<string | undefined> {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (!trimmed) throw ValidationError.field('name', 'must not be blank');
  const [taken] = await deps.db.rows<{ id: number }>(sql`
    SELECT id FROM alert_subscriptions WHERE user_id = ${userId} AND lower(name) = lower(${trimmed})
      AND id <> ${selfId ?? 0}`);
  if (taken) throw new ConflictError(`You already have an alert subscription named '${trimmed}'.`);
  return trimmed;
}

/** Subscriptions one user may have: each is run after every detection of its views. */
export const MAX_SUBSCRIPTIONS_PER_USER = 50;

/** POST /anomaly-filters/{id}/alerts: the caller subscribes a filter they can read. */
export async function createSubscription(
  deps: AlertDeps,
  caller: Caller,
  filterId: number,
  input: SubscriptionInput,
): Promise<SubscriptionView> {
  requireRead(caller);
  await loadVisibleFilter(deps.db, caller, filterId);
  checkSchedule(input);
  const name = await checkName(deps, caller.userId, input.name);
  const [count] = await deps.db.rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM alert_subscriptions WHERE user_id = ${caller.userId}`,
  );
  if (Number(count?.n ?? 0) >= MAX_SUBSCRIPTIONS_PER_USER)
    throw new ConflictError(
      `Limit reached: at most ${MAX_SUBSCRIPTIONS_PER_USER} alert subscriptions per user.`,
    );
  const channel = input.channel ?? 'webhook';
  let target: string;
  let secret: string | undefined;
  let secretValue: string | undefined;
  if (channel === 'email') target = checkEmail(caller, input.email);
  else {
    const url = await checkUrl(deps, caller, input.url);
    if (channel === 'slack') {
      secretValue = url;
      target = `${new URL(url).origin}/…`;
    } else {
      target = url;
      secret = newSecret();
      secretValue = secret;
    }
  }
  // The id is drawn first so that an unnamed subscription is called after it.
  const [row] = await deps.db.rows<{ id: number }>(sql`
    WITH n AS (SELECT nextval(pg_get_serial_sequence('alert_subscriptions', 'id'))::int AS id)
    INSERT INTO alert_subscriptions (id, name, filter_id, user_id, channel, target, mode, digest_hour, digest_weekday, enabled)
    SELECT n.id, COALESCE(${name ?? null}::text, ${channel} || '-' || n.id), ${filterId}, ${caller.userId}, ${channel},
           ${target}, ${input.mode ?? 'immediate'}, ${input.digestHour ?? 8}, ${input.digestWeekday ?? 1},
           ${input.enabled ?? true}
    FROM n RETURNING id`);
  const id = Number(row.id);
  if (secretValue !== undefined) {
    const ref = await deps.secrets.put(serviceSecretName(`alert-subscription-${id}`), secretValue);
    await deps.db.rows(sql`UPDATE alert_subscriptions SET secret_ref = ${ref} WHERE id = ${id}`);
  }
  // Said at once rather than at the first failed send: e-mail cannot go out before an SMTP server is set.
  if (channel === 'email' && !(await loadAlertSettings(deps)).smtp)
    await deps.db.rows(
      sql`UPDATE alert_subscriptions SET last_error = ${NO_SMTP}, last_error_at = now() WHERE id = ${id}`,
    );
  const view = toView((await findSubscription(deps.db, id)) as SubscriptionRow);
  return secret ? { ...view, secret } : view;
}

async function own(deps: AlertDeps, caller: Caller, id: number): Promise<SubscriptionRow> {
  requireRead(caller);
  const row = await findSubscription(deps.db, id);
  if (!row || (row.userId !== caller.userId && !isAdmin(caller)))
    throw new NotFoundError(`Alert subscription ${id} was not found.`);
  return row;
}

/** GET /anomaly-filters/alerts: the caller's subscriptions ("My alerts"); admins with all=true: everyone's. */
export async function listSubscriptions(
  deps: AlertDeps,
  caller: Caller,
  all = false,
): Promise<SubscriptionView[]> {
  requireRead(caller);
  if (all && !isAdmin(caller)) throw new ForbiddenError('Only administrators list every subscription.');
  return (await selectSubscriptions(deps.db, all ? sql`TRUE` : sql`s.user_id = ${caller.userId}`)).map(
    toView,
  );
}

/** GET /anomaly-filters/{id}/alerts: the caller's subscriptions on a filter they can read. */
export async function listFilterSubscriptions(
  deps: AlertDeps,
  caller: Caller,
  filterId: number,
): Promise<SubscriptionView[]> {
  requireRead(caller);
  await loadVisibleFilter(deps.db, caller, filterId);
  return (
    await selectSubscriptions(deps.db, sql`s.filter_id = ${filterId} AND s.user_id = ${caller.userId}`)
  ).map(toView);
}

export async function getSubscription(
  deps: AlertDeps,
  caller: Caller,
  id: number,
): Promise<SubscriptionView> {
  return toView(await own(deps, caller, id));
}

/** PUT /anomaly-filters/alerts/{id}: schedule, enabled, and the target of the same channel. */
export async function updateSubscription(
  deps: AlertDeps,
  caller: Caller,
  id: number,
  input: SubscriptionInput,
): Promise<SubscriptionView> {
  const row = await own(deps, caller, id);
  if (input.channel !== undefined && input.channel !== row.channel)
    throw ValidationError.field('channel', 'cannot change; create a new subscription');
  checkSchedule(input);
  const name = (await checkName(deps, row.userId, input.name, id)) ?? row.name;
  let target = row.target;
  if (row.channel === 'email' && input.email !== undefined) target = checkEmail(caller, input.email);
  if (row.channel !== 'email' && input.url !== undefined) {
    const url = await checkUrl(deps, caller, input.url);
    if (row.channel === 'slack') {
      const ref = await deps.secrets.put(serviceSecretName(`alert-subscription-${id}`), url);
      await deps.db.rows(sql`UPDATE alert_subscriptions SET secret_ref = ${ref} WHERE id = ${id}`);
      target = `${new URL(url).origin}/…`;
    } else target = url;
  }
  await deps.db.rows(sql`UPDATE alert_subscriptions SET target = ${target}, name = ${name},
    mode = ${input.mode ?? row.mode}, digest_hour = ${input.digestHour ?? row.digestHour},
    digest_weekday = ${input.digestWeekday ?? row.digestWeekday}, enabled = ${input.enabled ?? row.enabled},
    updated_at = now() WHERE id = ${id}`);
  const updated = (await findSubscription(deps.db, id)) as SubscriptionRow;
  // Records waiting for a digest go out now when the subscription becomes immediate.
  if (updated.mode === 'immediate' && updated.enabled && updated.pendingDigest > 0)
    await sendDigest(deps, updated, deps.clock.now());
  return toView((await findSubscription(deps.db, id)) as SubscriptionRow);
}

export async function deleteSubscription(deps: AlertDeps, caller: Caller, id: number): Promise<void> {
  const row = await own(deps, caller, id);
  await deps.db.rows(sql`DELETE FROM alert_subscriptions WHERE id = ${id}`);
  if (row.secretRef) await deps.secrets.delete(row.secretRef).catch(() => undefined);
}

/** POST /anomaly-filters/alerts/{id}/rotate-secret: a new webhook secret, shown once. */
export async function rotateSecret(deps: AlertDeps, caller: Caller, id: number): Promise<SubscriptionView> {
  const row = await own(deps, caller, id);
  if (row.channel !== 'webhook')
    throw ValidationError.field('channel', 'only webhook subscriptions have a secret');
  const secret = newSecret();
  const ref = await deps.secrets.put(serviceSecretName(`alert-subscription-${id}`), secret);
  await deps.db.rows(
    sql`UPDATE alert_subscriptions SET secret_ref = ${ref}, updated_at = now() WHERE id = ${id}`,
  );
  return { ...toView((await findSubscription(deps.db, id)) as SubscriptionRow), secret };
}

/** POST /anomaly-filters/alerts/{id}/test: one test message now; the answer says whether it went through. */
export async function testSubscription(
  deps: AlertDeps,
  caller: Caller,
  id: number,
): Promise<{ id: number; status: string; error?: string }> {
  const row = await own(deps, caller, id);
  const now = deps.clock.now();
  const deliveryId = await queueDelivery(deps, row, 'test', [], now);
  return attemptDelivery(deps, deliveryId, now);
}

/** GET /anomaly-filters/alerts/{id}/deliveries: the latest deliveries with their status and errors. */
export async function subscriptionDeliveries(
  deps: AlertDeps,
  caller: Caller,
  id: number,
): Promise<DeliveryRow[]> {
  await own(deps, caller, id);
  return listDeliveries(deps.db, id);
}
