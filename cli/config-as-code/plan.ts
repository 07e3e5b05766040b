/**
 * The plan of `service-cli apply`: what the declarations would create, update, replace or (with prune)
 * delete, read from the service through its REST API, and each step's call to carry it out.
 */
import { CliError, ExitCode } from '../errors';
import type { ApiClient } from '../http-client';
import { canonical, diffPaths } from './diff';
import type { Declarations, Declared, Kind } from './documents';
import { viewKey } from './documents';
import {
  applyExtras,
  declaredExtras,
  EXTRA_FIELDS,
  extrasChanges,
  shareableUsers,
  type UserIds,
} from './filter-extras';
import { declaredState, reachState, transitions, type ViewState } from './lifecycle';

export type Action = 'create' | 'update' | 'replace' | 'unchanged' | 'delete';

/** What carrying out a step needs: ids of filters, including those made earlier in the same run. */
export interface Execution {
  filterId(name: string): number;
  created: Map<string, number>;
  /** Webhook subscriptions made: their signing secrets were not printed. */
  webhooks: Array<{ name: string; id: number }>;
  /** What a step did beyond its action (lifecycle calls, a first load), to print after it. */
  notes: string[];
}

export interface Step {
  kind: Kind;
  key: string;
  action: Action;
  /** The fields that differ (update) or why it is replaced. */
  changes: string[];
  run?: (x: Execution) => Promise<void>;
  /** A step of the same run this one needs (a subscription's new filter): when that one fails, this one is skipped. */
  needs?: string;
}

/** How a step is named among the others (`needs`). */
export const stepId = (kind: Kind, key: string) => `${kind} ${key.toLowerCase()}`;

/** What came of a step that changes something. */
export interface StepResult {
  step: Step;
  outcome: 'applied' | 'failed' | 'skipped';
  error?: CliError;
}

const VIEWS = '/api/v1/dataviews';
const FILTERS = '/api/v1/anomaly-filters';
const VIEW_READ_ONLY = ['id', 'state', 'createdAt', 'updatedAt'];
/** The fields a filter's GET answers that are not settings (lib/filters/parse.ts FILTER_READ_ONLY_FIELDS). */
export const FILTER_READ_ONLY = [
  'id',
  'ownerId',
  'ownerEmail',
  'pinned',
  'isOwner',
  'sharedWith',
  'summary',
  'hiddenDataViews',
];
const ALERT_FIELDS = ['name', 'channel', 'url', 'email', 'mode', 'digestHour', 'digestWeekday', 'enabled'];

const without = (o: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
const lower = (s: string) => s.toLowerCase();

/** A failure of one declaration, prefixed with where it was written; the exit code stays the service's. */
async function about<T>(d: Declared, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof CliError)
      throw new CliError(`${d.file}: ${d.kind} '${d.key}': ${e.message}`, e.exitCode, e.problem);
    throw e;
  }
}

/** The view's definition without its lifecycle `state`, which the service does not take in the body. */
const definitionOf = (d: Declared) => without(d.body, ['state']);

function stateChange(from: ViewState, calls: string[], to: ViewState | undefined): string[] {
  return calls.length ? [`state: ${from} → ${to}`] : [];
}

async function viewSteps(
  api: ApiClient,
  declared: Declared[],
  prune: boolean,
  load: boolean,
): Promise<Step[]> {
  const listed = await api.get<Array<{ id: number; domain: string; name: string }>>(VIEWS);
  const byKey = new Map(listed.map((v) => [lower(viewKey(v.domain, v.name)), v]));
  const steps: Step[] = [];
  for (const d of declared) {
    const want = declaredState(d);
    const body = definitionOf(d);
    const existing = byKey.get(lower(d.key));
    byKey.delete(lower(d.key));
    // The service says what it would store (defaults filled in), so a compact file compares equal.
    const checked = await about(d, () =>
      api.post<{ definition: Record<string, unknown> }>(`${VIEWS}/validate`, {
        body,
        query: { id: existing?.id },
      }),
    );
    if (!existing) {
      const calls = transitions(d, 'prepared', want);
      steps.push({
        kind: 'dataview',
        key: d.key,
        action: 'create',
        changes: stateChange('prepared', calls, want),
        run: async (x) => {
          const made = await about(d, () => api.post<{ id: number }>(VIEWS, { body }));
          const done = await about(d, () => reachState(api, made.id, calls, load, ['created']));
          if (done.length > 1) x.notes.push(`dataview ${d.key}: ${done.join(', ')}.`);
        },
      });
      continue;
    }
    const stored = await api.get<Record<string, unknown>>(`${VIEWS}/${existing.id}`);
    const from = (stored.state as ViewState | undefined) ?? 'prepared';
    const calls = transitions(d, from, want);
    const fields = diffPaths(without(checked.definition, VIEW_READ_ONLY), without(stored, VIEW_READ_ONLY));
    const changes = [...fields, ...stateChange(from, calls, want)];
    steps.push({
      kind: 'dataview',
      key: d.key,
      action: changes.length ? 'update' : 'unchanged',
      changes,
      run: async (x) => {
        if (fields.length) await about(d, () => api.put(`${VIEWS}/${existing.id}`, { body }));
        const done = await about(d, () =>
          reachState(api, existing.id, calls, load, fields.length ? ['updated'] : []),
        );
        if (calls.length) x.notes.push(`dataview ${d.key}: ${done.join(', ')}.`);
      },
    });
  }
  if (prune)
    for (const v of byKey.values())
      steps.push({
        kind: 'dataview',
        key: viewKey(v.domain, v.name),
        action: 'delete',
        changes: [],
        run: async () => {
          await api.delete(`${VIEWS}/${v.id}`);
        },
      });
  return steps;
}

interface FilterRecord extends Record<string, unknown> {
  id: number;
  name: string;
  isOwner: boolean;
  pinned?: boolean;
  sharedWith?: number[];
}

function filterSteps(
  declared: Declared[],
  owned: FilterRecord[],
  api: ApiClient,
  prune: boolean,
  users: UserIds | undefined,
): Step[] {
  const steps: Step[] = [];
  const left = new Set(owned.map((f) => f.id));
  for (const d of declared) {
    const same = owned.filter((f) => lower(f.name) === lower(d.key));
    if (same.length > 1)
      throw new CliError(
        `${d.file}: you own ${same.length} filters named '${d.key}' (ids ${same.map((f) => f.id).join(', ')}); rename or delete all but one.`,
        ExitCode.conflict,
      );
    const current = same[0];
    const settings = without(d.body, EXTRA_FIELDS);
    const extras = declaredExtras(d, users);
    const extraChanges = extrasChanges(extras, current);
    if (!current) {
      steps.push({
        kind: 'filter',
        key: d.key,
        action: 'create',
        changes: extraChanges,
        run: async (x) => {
          const made = await about(d, () => api.post<{ id: number }>(FILTERS, { body: settings }));
          x.created.set(lower(d.key), made.id);
          await about(d, () => applyExtras(api, made.id, extras, extraChanges));
        },
      });
      continue;
    }
    left.delete(current.id);
    // A field left out keeps what the service has.
    const fields = Object.keys(settings).filter((k) => canonical(settings[k]) !== canonical(current[k]));
    const changes = [...fields, ...extraChanges];
    steps.push({
      kind: 'filter',
      key: d.key,
      action: changes.length ? 'update' : 'unchanged',
      changes,
      run: async () => {
        const body = { ...without(current, FILTER_READ_ONLY), ...settings, id: current.id };
        if (fields.length) await about(d, () => api.put(FILTERS, { body }));
        await about(d, () => applyExtras(api, current.id, extras, extraChanges));
      },
    });
  }
  if (prune)
    for (const f of owned.filter((o) => left.has(o.id)))
      steps.push({
        kind: 'filter',
        key: f.name,
        action: 'delete',
        changes: [],
        run: async () => {
          await api.delete(`${FILTERS}/${f.id}`);
        },
      });
  return steps;
}

/** What the service shows as a subscription's target for a declared URL or address. */
function shownTarget(body: Record<string, unknown>): string | undefined {
  if (body.channel === 'email') return typeof body.email === 'string' ? lower(body.email) : undefined;
  if (typeof body.url !== 'string') return undefined;
  if (body.channel !== 'slack') return body.url;
  try {
    return `${new URL(body.url).origin}/…`;
  } catch {
    return body.url;
  }
}

function alertSteps(
  declared: Declared[],
  mine: Array<Record<string, any>>,
  filterIdAtPlan: (name: string, d: Declared) => number | undefined,
  api: ApiClient,
  prune: boolean,
): Step[] {
  const steps: Step[] = [];
  const left = new Map(mine.map((s) => [lower(String(s.name)), s]));
  for (const d of declared) {
    const filter = String(d.body.filter);
    const fields = Object.fromEntries(Object.entries(d.body).filter(([k]) => ALERT_FIELDS.includes(k)));
    const create = async (x: Execution) => {
      const made = await about(d, () =>
        api.post<{ id: number; channel: string }>(`${FILTERS}/${x.filterId(filter)}/alerts`, {
          body: fields,
        }),
      );
      if (made.channel === 'webhook') x.webhooks.push({ name: d.key, id: made.id });
    };
    const current = left.get(lower(d.key));
    left.delete(lower(d.key));
    const needs = stepId('filter', filter);
    if (!current) {
      filterIdAtPlan(filter, d);
      steps.push({ kind: 'alert', key: d.key, action: 'create', changes: [], run: create, needs });
      continue;
    }
    const filterId = filterIdAtPlan(filter, d);
    const channel = (d.body.channel as string | undefined) ?? 'webhook';
    if (filterId !== current.filterId || channel !== current.channel) {
      steps.push({
        kind: 'alert',
        key: d.key,
        action: 'replace',
        changes: [filterId !== current.filterId ? 'filter' : 'channel'],
        needs,
        run: async (x) => {
          await about(d, () => api.delete(`${FILTERS}/alerts/${current.id}`));
          await create(x);
        },
      });
      continue;
    }
    const changes: string[] = [];
    if (d.body.name !== current.name) changes.push('name');
    const target = shownTarget({ ...d.body, channel });
    if (target !== undefined && target !== (channel === 'email' ? lower(current.target) : current.target))
      changes.push(channel === 'email' ? 'email' : 'url');
    for (const k of ['mode', 'digestHour', 'digestWeekday', 'enabled'])
      if (d.body[k] !== undefined && d.body[k] !== current[k]) changes.push(k);
    steps.push({
      kind: 'alert',
      key: d.key,
      action: changes.length ? 'update' : 'unchanged',
      changes,
      run: async () => {
        const body = Object.fromEntries(changes.map((k) => [k, fields[k]]));
        await about(d, () => api.put(`${FILTERS}/alerts/${current.id}`, { body }));
      },
    });
  }
  if (prune)
    for (const s of left.values())
      steps.push({
        kind: 'alert',
        key: String(s.name),
        action: 'delete',
        changes: [],
        run: async () => {
          await api.delete(`${FILTERS}/alerts/${s.id}`);
        },
      });
  return steps;
}

/** The ordered steps: views, then filters, then subscriptions; deletions last, the other way round. */
export async function buildPlan(
  api: ApiClient,
  decl: Declarations,
  { prune, load }: { prune: boolean; load: boolean },
): Promise<{ steps: Step[]; execution: Execution }> {
  const views = decl.dataviews.length ? await viewSteps(api, decl.dataviews, prune, load) : [];
  const needFilters = decl.filters.length > 0 || decl.alerts.length > 0;
  const visible = needFilters ? await api.get<FilterRecord[]>(FILTERS) : [];
  const owned = visible.filter((f) => f.isOwner !== false);
  const shares = decl.filters.some((d) => d.body.sharedWith !== undefined);
  const users = shares ? await shareableUsers(api) : undefined;
  const filters = decl.filters.length ? filterSteps(decl.filters, owned, api, prune, users) : [];
  const declaredFilters = new Set(decl.filters.map((d) => lower(d.key)));
  const existingId = (name: string): number | undefined => {
    const pick = (list: FilterRecord[]) => list.filter((f) => lower(f.name) === lower(name));
    const own = pick(owned);
    const candidates = own.length ? own : pick(visible);
    if (candidates.length > 1)
      throw new CliError(
        `Several filters you can read are named '${name}'; rename all but one.`,
        ExitCode.conflict,
      );
    return candidates[0]?.id;
  };
  const filterIdAtPlan = (name: string, d: Declared) => {
    const id = existingId(name);
    if (id === undefined && !declaredFilters.has(lower(name)))
      throw new CliError(
        `${d.file}: alert '${d.key}': no filter named '${name}' exists or is declared.`,
        ExitCode.notFound,
      );
    return id;
  };
  const mine = decl.alerts.length ? await api.get<Array<Record<string, any>>>(`${FILTERS}/alerts`) : [];
  const alerts = decl.alerts.length ? alertSteps(decl.alerts, mine, filterIdAtPlan, api, prune) : [];
  const all = [...views, ...filters, ...alerts];
  const execution: Execution = {
    created: new Map(),
    webhooks: [],
    notes: [],
    filterId(name) {
      const id = this.created.get(lower(name)) ?? existingId(name);
      if (id === undefined) throw new CliError(`No filter named '${name}'.`, ExitCode.notFound);
      return id;
    },
  };
  const deletes = all.filter((s) => s.action === 'delete').reverse();
  return { steps: [...all.filter((s) => s.action !== 'delete'), ...deletes], execution };
}

/**
 * Carries out every step that changes something, in order. A refused step does not stop the run: it is
 * reported with the others, and the steps that need it (a subscription on a filter that was not created)
 * are skipped. Each step is one resource: what it did before a refusal is in the refusal's message.
 */
export async function applyPlan(
  steps: Step[],
  execution: Execution,
  report: (r: StepResult) => void,
): Promise<StepResult[]> {
  const results: StepResult[] = [];
  const failed = new Set<string>();
  for (const step of steps) {
    if (step.action === 'unchanged' || !step.run) continue;
    let result: StepResult;
    if (step.needs && failed.has(step.needs)) result = { step, outcome: 'skipped' };
    else
      try {
        await step.run(execution);
        result = { step, outcome: 'applied' };
      } catch (e) {
        if (!(e instanceof CliError)) throw e;
        result = { step, outcome: 'failed', error: e };
      }
    if (result.outcome !== 'applied') failed.add(stepId(step.kind, step.key));
    results.push(result);
    report(result);
  }
  return results;
}
