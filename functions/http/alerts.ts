/** Alert subscriptions on saved filters and the admin's alert settings (docs/alerts.md); added to the filters and settings route tables. */
import type { AlertDeps } from '../../lib/alerts/deliveries';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listFilterSubscriptions,
  listSubscriptions,
  rotateSecret,
  type SubscriptionInput,
  subscriptionDeliveries,
  testSubscription,
  updateSubscription,
} from '../../lib/alerts/service';
import { type AlertSettingsInput, getAlertSettings, putAlertSettings } from '../../lib/alerts/settings';
import { getContainer } from '../container';
import { intParam } from '../../lib/http/params';
import { created, noContent, type Route } from '../../lib/http/router';

const deps = async (): Promise<AlertDeps> => {
  const c = await getContainer();
  return { db: c.db, secrets: c.secrets, clock: c.clock, timeZone: c.config.timeZone };
};
const base = '/api/v1/anomaly-filters';
const tag = 'Alerts';
const alertId = (p: Record<string, string>) => intParam(p.alertId, 'alertId');

/** Routes under /anomaly-filters (the filters function serves them). */
export const alertRoutes: Route[] = [
  {
    method: 'GET',
    path: `${base}/alerts`,
    access: 'read',
    tag,
    summary: 'My alert subscriptions (admins: ?all=true for everyone’s); secrets are never returned',
    handle: async ({ caller, query }) => listSubscriptions(await deps(), caller, query.all === 'true'),
  },
  {
    method: 'GET',
    path: `${base}/{id}/alerts`,
    access: 'read',
    tag,
    summary: 'My alert subscriptions on a filter I can read',
    handle: async ({ caller, params }) =>
      listFilterSubscriptions(await deps(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'POST',
    path: `${base}/{id}/alerts`,
    access: 'write',
    tag,
    summary:
      'Subscribe a filter I can read to a channel: webhook (signed with X-Signature; the secret is in this answer only), slack (incoming webhook) or email; mode immediate, daily or weekly',
    body: 'alert-create',
    response: { status: 201, description: 'The subscription (webhook: with its secret, shown once)' },
    handle: async ({ caller, params, body }) =>
      created(
        await createSubscription(await deps(), caller, intParam(params.id, 'id'), body as SubscriptionInput),
      ),
  },
  {
    method: 'GET',
    path: `${base}/alerts/{alertId}`,
    access: 'read',
    tag,
    summary: 'One of my subscriptions, with its last error and failed deliveries',
    handle: async ({ caller, params }) => getSubscription(await deps(), caller, alertId(params)),
  },
  {
    method: 'PUT',
    path: `${base}/alerts/{alertId}`,
    access: 'write',
    tag,
    summary: 'Change mode, digest hour/weekday, enabled, or the URL / address of the same channel',
    body: 'alert-update',
    handle: async ({ caller, params, body }) =>
      updateSubscription(await deps(), caller, alertId(params), body as SubscriptionInput),
  },
  {
    method: 'DELETE',
    path: `${base}/alerts/{alertId}`,
    access: 'write',
    tag,
    summary: 'Unsubscribe',
    response: { status: 204, description: 'Deleted' },
    handle: async ({ caller, params }) => {
      await deleteSubscription(await deps(), caller, alertId(params));
      return noContent();
    },
  },
  {
    method: 'POST',
    path: `${base}/alerts/{alertId}/test`,
    access: 'write',
    tag,
    summary: 'Send a test message now: {id, status: sent|failed, error?}',
    handle: async ({ caller, params }) => testSubscription(await deps(), caller, alertId(params)),
  },
  {
    method: 'POST',
    path: `${base}/alerts/{alertId}/rotate-secret`,
    access: 'write',
    tag,
    summary: 'A new webhook signing secret, shown in this answer only',
    handle: async ({ caller, params }) => rotateSecret(await deps(), caller, alertId(params)),
  },
  {
    method: 'GET',
    path: `${base}/alerts/{alertId}/deliveries`,
    access: 'read',
    tag,
    summary: 'The latest deliveries: status (pending, sent, failed), attempts, next attempt, last error',
    handle: async ({ caller, params }) => subscriptionDeliveries(await deps(), caller, alertId(params)),
  },
];

/** Routes under /settings (the settings function serves them). */
export const alertSettingsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/settings/alerts',
    access: 'admin',
    tag,
    summary: 'Alert settings: publicUrl, allowPrivateNetwork, smtp (the password masked)',
    handle: async ({ caller }) => getAlertSettings(await deps(), caller),
  },
  {
    method: 'PUT',
    path: '/api/v1/settings/alerts',
    access: 'admin',
    tag,
    summary: 'Save the alert settings (SMTP server of e-mail alerts; password "*****" keeps the stored one)',
    body: 'alert-settings',
    handle: async ({ caller, body }) => putAlertSettings(await deps(), caller, body as AlertSettingsInput),
  },
];
