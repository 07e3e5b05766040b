/**
 * The three channels of a delivery: a webhook (signed JSON), Slack (an incoming-webhook URL kept as a secret) and
 * e-mail over the configured SMTP relay. Targets a data user chooses (webhook, Slack) may not be loopback or
 * private unless the administrator allowed private networks; every address is checked again right before the
 * connection, which goes to the checked address. An answer is read only up to a small limit and only its status
 * is reported: the body of whatever a target answers never reaches the subscriber (no probing of internal hosts).
 */
import { createHmac } from 'node:crypto';
import { type EndpointPolicy, endpointRefusal, resolveChecked } from '../outbound/endpoint-guard';
import { pinnedFetch } from '../outbound/pinned-fetch';
import type { SecretStore } from '../secrets/index';
import { type AlertPayload, emailMessage, slackBody, webhookBody } from './messages';
import type { SubscriptionRow } from './repository';
import { loadAlertSettings } from './settings';
import { sendMail } from './smtp';
import type { Database } from '../db/database';
import { deadline } from '../shared/deadline';

export const NO_SMTP = 'no SMTP server is configured (an administrator sets it in the alert settings)';

/** The most one send may take, connection, answer and all. */
export const SEND_TIMEOUT_MS = 10_000;
/** The most bytes of a target's answer read: only its status matters. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface ChannelDeps {
  db: Database;
  secrets: SecretStore;
}

/** The X-Signature header value of a webhook body: sha256=<hex HMAC-SHA256 of the raw body with the secret>. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** Where webhook and Slack targets may point: public addresses, private and loopback ones when allowed. */
export function targetPolicy(allowPrivateNetwork: boolean, admin: boolean): EndpointPolicy {
  return {
    allowPrivateNetwork,
    allowLoopback: false,
    privateHint: admin
      ? '; allow private network targets with allowPrivateNetwork in the alert settings'
      : '; alert targets must be public addresses',
  };
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: EndpointPolicy,
  signal: AbortSignal,
): Promise<void> {
  const res = await pinnedFetch(policy, { maxBytes: MAX_ANSWER_BYTES, truncate: true })(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'anomaly-monitor-alerts', ...headers },
    body,
    redirect: 'manual',
    signal,
  });
  if (res.status < 200 || res.status >= 300) throw new Error(`the endpoint answered HTTP ${res.status}`);
}

/** What one run of sends shares: the end of its time, and the targets that already did not answer in it. */
export interface SendOptions {
  signal?: AbortSignal;
  /** Targets (an origin, or the SMTP relay) that timed out in this run: later sends to them wait for the next. */
  unreachable?: Set<string>;
}

/** A send not attempted: its time ran out before it began, or its target already timed out in this run. */
export class SendDeferred extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SendDeferred';
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Sends one message on the subscription's channel; throws an Error whose message is safe for the subscriber. */
export async function send(
  deps: ChannelDeps,
  sub: SubscriptionRow,
  deliveryId: number,
  payload: AlertPayload,
  options: SendOptions = {},
): Promise<void> {
  const outer = options.signal;
  if (outer?.aborted) throw new SendDeferred('the time left for alerts ran out before the send');
  const settings = await loadAlertSettings(deps);
  const url =
    sub.channel === 'slack'
      ? await deps.secrets.get(sub.secretRef as string)
      : sub.channel === 'webhook'
        ? sub.target
        : undefined;
  const target = url === undefined ? 'smtp' : originOf(url);
  if (options.unreachable?.has(target))
    throw new SendDeferred('the target did not answer another message of this run');
  // The send's own time limit, cut short by the caller's signal (a detection's deadline).
  const limit = deadline(SEND_TIMEOUT_MS, outer);
  const signal = limit.signal;
  try {
    if (url !== undefined) {
      const policy = targetPolicy(settings.allowPrivateNetwork, false);
      const refusal = await endpointRefusal(url, policy);
      if (refusal) throw new Error(`the target URL ${refusal}`);
      if (sub.channel === 'slack') return await post(url, slackBody(payload), {}, policy, signal);
      const body = webhookBody(payload);
      const secret = await deps.secrets.get(sub.secretRef as string);
      const headers = {
        'x-signature': signature(secret, body),
        'x-alert-delivery': String(deliveryId),
        'x-alert-subscription': String(sub.id),
      };
      return await post(url, body, headers, policy, signal);
    }
    if (!settings.smtp) throw new Error(NO_SMTP);
    const smtp = settings.smtp;
    // Connect to the address that was checked (no DNS rebinding between the check and the connection).
    const addresses = await resolveChecked(smtp.host, {
      allowPrivateNetwork: smtp.allowPrivateNetwork,
    }).catch((e: Error) => {
      throw new Error(`the SMTP host ${e.message}`);
    });
    await sendMail(
      { ...smtp, connectAddress: addresses[0], timeoutMs: SEND_TIMEOUT_MS, signal },
      { to: [sub.target], ...emailMessage(payload) },
    );
  } catch (e) {
    if (signal.aborted) {
      if (!outer?.aborted) options.unreachable?.add(target);
      const why = outer?.aborted
        ? 'the time left for alerts ran out'
        : `no answer within ${SEND_TIMEOUT_MS} ms`;
      throw new Error(`the send was stopped: ${why}`, { cause: e });
    }
    throw e;
  } finally {
    limit.clear();
  }
}
