/**
 * Seeds the demo through the public API, as a user would: the pgsql connector to the demo source,
 * the demo data view (created, deployed, enabled) and a load, waiting until its series are built.
 * Idempotent: later starts update the connector (its port changes) and load again.
 */
import { DEMO_CONNECTOR, DEMO_VIEW, demoDefinition } from './definition';

export interface DemoSeedOptions {
  url: string;
  admin: { email: string; password: string };
  connString: string;
  /** How long to wait for the load job. */
  waitMs?: number;
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

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

function must(r: { status: number; body: any }, what: string, ok = [200, 201, 202]): any {
  if (!ok.includes(r.status))
    throw new Error(`demo seed: ${what} answered ${r.status}: ${r.body?.detail ?? JSON.stringify(r.body)}`);
  return r.body;
}

/** Creates or updates the demo and loads it; returns the lines to print. */
export async function seedDemo(o: DemoSeedOptions): Promise<string[]> {
  const anon = client(o.url);
  const credentials = { email: o.admin.email, password: o.admin.password };
  const token = must(await anon('POST', '/api/v1/auth/token', credentials), 'sign-in').accessToken as string;
  const call = client(o.url, token);

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

  const load = await call('POST', `/api/v1/dataviews/${id}/jobs/load`);
  if (load.status === 409)
    return [`  Demo data view: ${DEMO_VIEW.domain} / ${DEMO_VIEW.name} (id ${id}), a load is already queued`];
  const job = must(load, 'starting the demo load');
  const until = Date.now() + (o.waitMs ?? 180_000);
  let state = job;
  while (Date.now() < until && (state.status === 'pending' || state.status === 'running')) {
    await new Promise((r) => setTimeout(r, 500));
    state = must(await call('GET', `/api/v1/jobs/${job.id}`), 'reading the demo load job');
  }
  if (state.status === 'failed')
    return [
      `  Demo data view: ${DEMO_VIEW.domain} / ${DEMO_VIEW.name} (id ${id}): the load failed: ${state.error}`,
    ];
  if (state.status !== 'finished')
    return [`  Demo data view: ${DEMO_VIEW.domain} / ${DEMO_VIEW.name} (id ${id}): loading (job ${job.id})`];
  const d = state.detail;
  return [
    `  Demo data view: ${DEMO_VIEW.domain} / ${DEMO_VIEW.name} (id ${id}) loaded: ${d.series} series, ${d.firstDate} to ${d.lastDate}`,
  ];
}
