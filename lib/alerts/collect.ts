/**
 * After each successful detection cycle of a data view, every enabled subscription whose filter covers the view
 * runs the filter as its subscriber, one row per incident (only what they can read, dismissed records left out),
 * and keeps the incidents first seen in this cycle that it has not sent before: immediate subscriptions send
 * one message per incident at once (docs/alerts.md). An incident seen before this cycle is never "new", even
 * when it only now enters the filter's Top N (another was dismissed) or the subscription is new. The subscriptions
 * run a few at a time, taken in turn per user, within the time the caller gives: what is not sent by then waits
 * for the every-minute schedule, so no subscriber's slow target holds the detection job.
 */
import { sql } from 'drizzle-orm';
import { runFilterDefinition } from '../anomalies/run';
import { canRead } from '../dataviews/scope';
import { parseDataViews } from '../filters/parse';
import { filterSettings, findVisibleFilter } from '../filters/repository';
import type { AnomalyRecord, FilterDefinition } from '../filters/types';
import { callerForUser } from '../identity/authenticate';
import { forEachBounded, roundRobin } from '../shared/bounded';
import type { SendOptions } from './channels';
import { type AlertDeps, attemptDelivery, type DeliveryOutcome, queueDelivery } from './deliveries';
import { alertKey } from './messages';
import { type SubscriptionRow, selectSubscriptions } from './repository';
import { deadline } from '../shared/deadline';

/** Subscriptions collected and sent at once after a detection. */
export const CYCLE_CONCURRENCY = 8;
/** The most time alerts take after a detection; what is not sent by then goes out with the every-minute schedule. */
export const AFTER_CYCLE_BUDGET_MS = 60_000;

export interface CycleResult {
  subscriptionId: number;
  /** Incidents new to the subscription (sent now, or waiting for its digest). */
  newIncidents: number;
  /** One message per new incident (immediate), or the digest's one message. */
  deliveries?: DeliveryOutcome[];
  /** Not run: the time given to alerts ran out first (the incidents of this cycle are not sent to it). */
  skipped?: true;
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

/**
 * The new incidents of one subscription, as the filter's incident rows run as its subscriber (dismissed records
 * left out): those of the view first seen in this cycle (`fresh`).
 */
async function collect(
  deps: AlertDeps,
  sub: SubscriptionRow,
  viewId: number,
  fresh: ReadonlySet<number>,
): Promise<AnomalyRecord[] | undefined> {
  const caller = await callerForUser(deps.db, sub.userId);
  if (!caller) return undefined;
  // A subscriber who lost the filter (unshared) gets nothing.
  const filter = await findVisibleFilter(deps.db, sub.userId, sub.filterId);
  if (!filter) return undefined;
  const answer = await runFilterDefinition(
    deps,
    caller,
    { ...(filter.settings as Partial<FilterDefinition>), hideDismissed: true, incidents: true },
    false,
  );
  // Only this cycle's new incidents: a new subscription starts from now, and an incident that only now enters
  // the Top N (another was dismissed) is not news.
  const rows = answer.anomalies.filter(
    (a) =>
      a.dataViewId === viewId &&
      a.incident !== undefined &&
      fresh.has(a.incident.id) &&
      canRead(caller, a.dataViewId),
  );
  const out: AnomalyRecord[] = [];
  for (const r of rows) {
    const [row] = await deps.db.rows<{ k: string }>(sql`
      INSERT INTO alert_sent_records (subscription_id, record_key, record)
      VALUES (${sub.id}, ${alertKey(r)}, ${JSON.stringify(r)}::jsonb)
      ON CONFLICT DO NOTHING RETURNING record_key AS k`);
    if (row) out.push(r);
  }
  return out;
}

async function runOne(
  deps: AlertDeps,
  sub: SubscriptionRow,
  viewId: number,
  fresh: ReadonlySet<number>,
  now: Date,
  send: SendOptions,
): Promise<CycleResult | undefined> {
  try {
    const incidents = await collect(deps, sub, viewId, fresh);
    if (!incidents) return undefined;
    const result: CycleResult = { subscriptionId: sub.id, newIncidents: incidents.length };
    if (incidents.length && sub.mode === 'immediate') {
      result.deliveries = [];
      // One message per incident, each queued first: when the time runs out before a send, the schedule sends it.
      for (const incident of incidents) {
        const id = await queueDelivery(deps, sub, 'immediate', [incident], now);
        result.deliveries.push(await attemptDelivery(deps, id, now, send));
      }
    }
    return result;
  } catch (e) {
    deps.log?.error('alerts not collected after detection', { subscriptionId: sub.id, error: e });
    return {
      subscriptionId: sub.id,
      newIncidents: 0,
      deliveries: [{ id: 0, status: 'error', error: (e as Error).message }],
    };
  }
}

/**
 * After a successful detection cycle of the view: the new incidents of every subscription over it, among
 * `newIncidents` (the ids the `incidents` hook reports first seen in this cycle). Alerts take
 * at most `budgetMs` (AFTER_CYCLE_BUDGET_MS), cut shorter by `signal` (the job's time): no subscription starts
 * after that, a send under way is stopped, and a target that timed out is not tried again in this run.
 */
export async function alertsAfterDetection(
  deps: AlertDeps,
  dataView: { id: number; domain: string; name: string },
  newIncidents: readonly number[],
  options: { signal?: AbortSignal; concurrency?: number; budgetMs?: number } = {},
): Promise<CycleResult[]> {
  if (newIncidents.length === 0) return [];
  const fresh = new Set(newIncidents);
  const now = deps.clock.now();
  const budget = deadline(options.budgetMs ?? AFTER_CYCLE_BUDGET_MS, options.signal);
  const send = {
    signal: budget.signal,
    unreachable: new Set<string>(),
  };
  try {
    const subs: SubscriptionRow[] = [];
    for (const sub of await selectSubscriptions(deps.db, sql`s.enabled`)) {
      const settings = (await filterSettings(deps.db, sub.filterId)) as Partial<FilterDefinition> | undefined;
      if (settings && covers(settings, dataView)) subs.push(sub);
    }
    const results = await forEachBounded(
      roundRobin(subs, (s) => s.userId),
      options.concurrency ?? CYCLE_CONCURRENCY,
      (sub) => runOne(deps, sub, dataView.id, fresh, now, send),
      (sub): CycleResult => ({ subscriptionId: sub.id, newIncidents: 0, skipped: true }),
      send.signal,
    );
    return results.filter((r): r is CycleResult => r !== undefined);
  } finally {
    budget.clear();
  }
}
