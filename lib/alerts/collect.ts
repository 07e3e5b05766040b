/**
 * After each successful detection cycle of a data view, every enabled subscription whose filter covers the view
 * runs the filter as its subscriber (only what they can read, dismissed records left out) and remembers the
 * records it has not sent before; immediate subscriptions send them at once (docs/alerts.md). The subscriptions
 * run a few at a time, taken in turn per user, within the time the caller gives: what is not sent by then waits
 * for the every-minute schedule, so no subscriber's slow target holds the detection job.
 */
import { sql } from 'drizzle-orm';
import { runFilterDefinition } from '../anomalies/run';
import { canRead } from '../dataviews/scope';
import { recordKey } from '../feedback/records';
import { parseDataViews } from '../filters/parse';
import { filterSettings, findVisibleFilter } from '../filters/repository';
import type { AnomalyRecord, FilterDefinition } from '../filters/types';
import { callerForUser } from '../identity/authenticate';
import { forEachBounded, roundRobin } from '../shared/bounded';
import type { SendOptions } from './channels';
import { type AlertDeps, attemptDelivery, type DeliveryOutcome, queueDelivery } from './deliveries';
import { type SubscriptionRow, selectSubscriptions } from './repository';
import { deadline } from '../shared/deadline';

/** Subscriptions collected and sent at once after a detection. */
export const CYCLE_CONCURRENCY = 8;
/** The most time alerts take after a detection; what is not sent by then goes out with the every-minute schedule. */
export const AFTER_CYCLE_BUDGET_MS = 60_000;

export interface CycleResult {
  subscriptionId: number;
  newRecords: number;
  delivery?: DeliveryOutcome;
  /** Not run: the time given to alerts ran out first (the next cycle finds its records). */
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

async function runOne(
  deps: AlertDeps,
  sub: SubscriptionRow,
  now: Date,
  send: SendOptions,
): Promise<CycleResult | undefined> {
  try {
    const fresh = await collect(deps, sub);
    if (!fresh) return undefined;
    const result: CycleResult = { subscriptionId: sub.id, newRecords: fresh.length };
    if (fresh.length && sub.mode === 'immediate') {
      const id = await queueDelivery(deps, sub, 'immediate', fresh, now);
      // Queued first: when the time runs out before the send, the schedule sends it.
      result.delivery = await attemptDelivery(deps, id, now, send);
    }
    return result;
  } catch (e) {
    deps.log?.error('alerts not collected after detection', { subscriptionId: sub.id, error: e });
    return {
      subscriptionId: sub.id,
      newRecords: 0,
      delivery: { id: 0, status: 'error', error: (e as Error).message },
    };
  }
}

/**
 * After a successful detection cycle of the view: the new records of every subscription over it. Alerts take
 * at most `budgetMs` (AFTER_CYCLE_BUDGET_MS), cut shorter by `signal` (the job's time): no subscription starts
 * after that, a send under way is stopped, and a target that timed out is not tried again in this run.
 */
export async function alertsAfterDetection(
  deps: AlertDeps,
  dataView: { id: number; domain: string; name: string },
  options: { signal?: AbortSignal; concurrency?: number; budgetMs?: number } = {},
): Promise<CycleResult[]> {
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
      (sub) => runOne(deps, sub, now, send),
      (sub): CycleResult => ({ subscriptionId: sub.id, newRecords: 0, skipped: true }),
      send.signal,
    );
    return results.filter((r): r is CycleResult => r !== undefined);
  } finally {
    budget.clear();
  }
}
