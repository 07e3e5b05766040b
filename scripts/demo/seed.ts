/**
 * Seeds the demo through the public API, as a user would: the pgsql connector to the demo source,
 * the demo data view (created, deployed, enabled), the data user assigned to it, a load and the
 * detection after it, then what a new user should see first on Home: pinned filters for both
 * accounts (one shared by the admin with the data user) and comments on two injected anomalies.
 * Idempotent: later starts update the connector (its port changes), load again, and add only what
 * is missing (filters by name and owner, comments by text and window).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { demoInjections } from './data';
import { DEMO_CONNECTOR, DEMO_VIEW, demoDefinition } from './definition';

export interface DemoSeedOptions {
  url: string;
  admin: { email: string; password: string };
  /** The data user: assigned to the demo view, gets its own pinned filter and the admin's shared one. */
  user?: { email: string; password: string };
  connString: string;
  /** The demo source's anchor day (yyyy-MM-dd): where the injected anomalies are. */
  anchor?: string;
  /** How long to wait for the load and for the detection after it. */
  waitMs?: number;
}

type Reply = { status: number; body: any };
type Call = (method: string, path: string, body?: unknown) => Promise<Reply>;

function client(url: string, token?: string): Call {
  return async (method, path, body) => {
    const res = await fetch(url + path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

function must(r: Reply, what: string, ok = [200, 201, 202, 204]): any {
  if (!ok.includes(r.status))
    throw new Error(`demo seed: ${what} answered ${r.status}: ${r.body?.detail ?? JSON.stringify(r.body)}`);
  return r.body;
}

async function signIn(url: string, who: { email: string; password: string }): Promise<Call> {
  const anon = client(url);
  const body = { email: who.email, password: who.password };
  const token = must(await anon('POST', '/api/v1/auth/token', body), `signing in ${who.email}`)
    .accessToken as string;
  return client(url, token);
}

const VIEW_LABEL = `${DEMO_VIEW.domain} / ${DEMO_VIEW.name}`;

/** Filter fields that exist only in newer schemas (event merging, measures): sent when the schema knows them. */
function optionalFilterFields(): Record<string, unknown> {
  try {
    const schema = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, '../../schemas/filter.schema.json'), 'utf8'),
    ) as { properties?: Record<string, { type?: string }> };
    const out: Record<string, unknown> = {};
    // One row per event, whatever the number of detectors that flagged it.
    if (schema.properties?.mergeEvents?.type === 'boolean') out.mergeEvents = true;
    // One row per incident, named by the combination that caused it.
    if (schema.properties?.incidents?.type === 'boolean') out.incidents = true;
    // Revenue only: the orders of the same stores move with it and would repeat every row.
    if (schema.properties?.measures?.type === 'string') out.measures = 'value';
    return out;
  } catch {
    return {};
  }
}

/** The filters a new user sees on Home. Relative ranges: the demo data ends yesterday. */
export function demoFilters() {
  const extra = optionalFilterFields();
  const recent = {
    name: 'What changed in the last 7 days',
    comment: 'What changed in the last 7 days: the 20 most significant anomalies of the demo store chain',
    timeRange: 'Last 7 Days',
    dataViews: VIEW_LABEL,
    sortBy: 'SIN',
    limit: 20,
    isSummarized: true,
    instructions: 'Summarise for a store manager in three sentences: what changed, where, and how much.',
    ...extra,
  };
  const drops = {
    name: 'Biggest drops this month',
    comment: 'Biggest drops of the last 30 days, grouped along country → region → city',
    timeRange: 'Last 30 Days',
    dataViews: VIEW_LABEL,
    anomalyResult: 'Negative',
    sortBy: 'SIN',
    limit: 20,
    isAggregated: true,
    aggregationMode: 'Hierarchical',
    minCommonCategories: 1,
    ...extra,
  };
  return {
    /** Pinned by the admin; `drops` is also shared with the data user. */
    admin: [recent, drops],
    /** The data user's own pinned filter. */
    user: [{ ...recent }],
    shared: drops.name,
  };
}

interface FilterRow {
  id: number;
  name: string;
  isOwner: boolean;
  pinned: boolean;
}

/** Creates the caller's filters that are missing (by name), pins them; returns name → id. */
async function ensureFilters(call: Call, defs: Array<{ name: string }>): Promise<Map<string, number>> {
  const mine = (must(await call('GET', '/api/v1/anomaly-filters'), 'listing filters') as FilterRow[]).filter(
    (f) => f.isOwner,
  );
  const ids = new Map<string, number>();
  for (const def of defs) {
    let row = mine.find((f) => f.name === def.name);
    if (!row) row = must(await call('POST', '/api/v1/anomaly-filters', def), `creating filter "${def.name}"`);
    if (!row!.pinned)
      must(await call('PUT', `/api/v1/anomaly-filters/${row!.id}/pin`, { pinned: true }), 'pinning a filter');
    ids.set(def.name, row!.id);
  }
  return ids;
}

/** Comments on two injected anomalies: the Prague web spike and the Berlin store drop. */
export function demoComments(anchor: string, email: string, dataViewId: number) {
  const inj = demoInjections(anchor);
  const spike = inj.find((i) => i.where === 'Prague / web')!;
  const drop = inj.find((i) => i.where === 'Berlin / store')!;
  return [
    {
      text: 'Flash sale on the web shop in Prague (newsletter campaign): expected, no action needed.',
      email,
      dataViewId,
      dateFrom: spike.from,
      dateTo: spike.to,
      categories: { country: 'Czechia', region: 'Bohemia', city: 'Prague', channel: 'web' },
    },
    {
      text: 'Berlin flagship store closed for the day (water damage); the till data is complete.',
      email,
      dataViewId,
      dateFrom: drop.from,
      dateTo: drop.to,
      categories: { country: 'Germany', region: 'North', city: 'Berlin', channel: 'store' },
    },
  ];
}

/** Polls a job until it ends or `until`; a slow or failed poll (a busy machine) is simply tried again. */
async function waitJob(call: Call, id: number, until: number): Promise<any> {
  let job: any = { id, status: 'pending' };
  for (;;) {
    const r = await call('GET', `/api/v1/jobs/${id}`).catch(() => undefined);
    if (r?.status === 200 && typeof r.body?.status === 'string') job = r.body;
    if ((job.status !== 'pending' && job.status !== 'running') || Date.now() >= until) return job;
    await new Promise((res) => setTimeout(res, 500));
  }
}

/** Creates or updates the demo, loads and analyses it, and seeds Home; returns the lines to print. */
export async function seedDemo(o: DemoSeedOptions): Promise<string[]> {
  const call = await signIn(o.url, o.admin);

  const existing = await call('GET', `/api/v1/connectors/${DEMO_CONNECTOR}`);
  const configuration = { conn_string: o.connString };
  if (existing.status === 404) {
    must(
      await call('POST', '/api/v1/connectors', {
        name: DEMO_CONNECTOR,
        type: 'pgsql',
        description: 'The demo source database (PGlite served on 127.0.0.1 by npm start)',
        configuration,
      }),
      'creating the demo connector',
    );
  } else {
    must(
      await call('PUT', `/api/v1/connectors/${DEMO_CONNECTOR}`, { type: 'pgsql', configuration }),
      'updating the demo connector',
    );
  }

  const list = must(
    await call('GET', `/api/v1/dataviews?domain=${DEMO_VIEW.domain}&name=${DEMO_VIEW.name}`),
    'listing data views',
  );
  let view = (list as Array<{ id: number; name: string; domain: string; state: string }>).find(
    (v) => v.name === DEMO_VIEW.name && v.domain === DEMO_VIEW.domain,
  );
  if (!view)
    view = must(await call('POST', '/api/v1/dataviews', demoDefinition), 'creating the demo data view');
  const id = view!.id;
  if (view!.state === 'prepared')
    must(await call('POST', `/api/v1/dataviews/${id}/deploy`), 'deploying the demo data view');
  if (view!.state !== 'enabled')
    must(await call('POST', `/api/v1/dataviews/${id}/enable`), 'enabling the demo data view');

  let userId: number | undefined;
  if (o.user) {
    const users = must(await call('GET', '/api/v1/users'), 'listing users') as Array<{
      id: number;
      email: string;
      dataViewIds: number[];
    }>;
    const u = users.find((x) => x.email === o.user!.email);
    if (u) {
      userId = u.id;
      if (!u.dataViewIds.includes(id))
        must(
          await call('PUT', `/api/v1/users/${u.id}`, { dataViewIds: [...u.dataViewIds, id] }),
          'assigning the data user to the demo view',
        );
    }
  }

  const label = `  Demo: ${VIEW_LABEL} (id ${id})`;
  const load = await call('POST', `/api/v1/dataviews/${id}/jobs/load`);
  if (load.status === 409) return [`${label}: a load is already queued`];
  const job = must(load, 'starting the demo load');
  const until = Date.now() + (o.waitMs ?? 180_000);
  const loaded = await waitJob(call, job.id, until);
  if (loaded.status === 'failed') return [`${label}: the load failed: ${loaded.error}`];
  if (loaded.status !== 'finished') return [`${label}: still loading (job ${job.id})`];
  const d = loaded.detail;
  let detected = '';
  if (typeof d.processJobId === 'number') {
    const processed = await waitJob(call, d.processJobId, until);
    detected =
      processed.status === 'finished'
        ? `, ${processed.detail?.anomalies ?? 0} anomalies`
        : processed.status === 'failed'
          ? `, detection failed: ${processed.error}`
          : `, detection still ${processed.status} (job ${processed.id}; Home fills in when it ends)`;
  }

  const filters = demoFilters();
  const adminIds = await ensureFilters(call, filters.admin);
  if (o.user && userId !== undefined) {
    const sharedId = adminIds.get(filters.shared)!;
    const shares = must(await call('GET', `/api/v1/anomaly-filters/${sharedId}`), 'reading a filter') as {
      sharedWith?: Array<number | { id: number }>;
    };
    const current = (shares.sharedWith ?? []).map((s) => (typeof s === 'number' ? s : s.id));
    if (!current.includes(userId))
      must(
        await call('POST', `/api/v1/anomaly-filters/${sharedId}/share`, {
          targetUserIds: [...current, userId],
        }),
        'sharing a demo filter',
      );
    await ensureFilters(await signIn(o.url, o.user), filters.user);
  }
  if (o.anchor) {
    const present = must(
      await call('GET', `/api/v1/comments/by-dataview/${id}`),
      'listing comments',
    ) as Array<{
      text: string;
      dateFrom: string;
    }>;
    for (const c of demoComments(o.anchor, o.admin.email, id)) {
      if (!present.some((p) => p.text === c.text && p.dateFrom === c.dateFrom))
        must(await call('POST', '/api/v1/comments', c), 'adding a demo comment');
    }
  }
  return [`${label}: ${d.series} series, ${d.firstDate} to ${d.lastDate}${detected}`];
}
