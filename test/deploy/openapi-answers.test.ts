/**
 * The OpenAPI document tells the truth: real requests through the whole HTTP service (as the e2e API tests
 * make them) answer the status each operation declares, and every JSON answer validates (ajv, JSON Schema
 * 2020-12 with formats) against the schema the document declares for that operation and status.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes } from '../../functions/http/registry';
import * as system from '../../functions/http/system';
import { buildOpenApi, responseOf } from '../../lib/http/openapi';
import { compileRoutes, matchRoute, type Route } from '../../lib/http/router';
import { fixtureDoc } from '../integration/dataviews/support';
import { backendName } from '../support/db';
import { loadedDetectionView } from '../support/detection-fixture';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm';
import { createTestSource, type TestSource } from '../support/pipeline-source';
import { localHarness, type QueueHarness } from '../support/queue';
import {
  type CallOptions,
  type CallResult,
  startTestService,
  type TestService,
  USER,
} from '../support/service';

type Json = Record<string, any>;
const routes: Route[] = [...system.routes, ...registeredRoutes()];
const doc = buildOpenApi(routes, { version: 'test' }) as Json;
const table = compileRoutes(routes);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...doc, $id: 'openapi' });
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The validator of an operation's JSON answer with this status, from the document. */
function validatorOf(route: Route, status: number): ValidateFunction | undefined {
  return ajv.getSchema(
    `openapi#/${pointer('paths', route.path, route.method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`,
  );
}

const DAYS = 42;
const flat = (v: number) => Array.from({ length: DAYS }, () => v);
const drop = flat(100).map((v, t) => (t === 35 ? 30 : v));

describe(`every answer matches the OpenAPI document on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let fake: FakeLlm;
  let view: number;
  /** Operations whose answer was checked, by `METHOD path`. */
  const checked = new Map<string, number>();

  /** A request that must succeed; its status and body are checked against the document. */
  async function ok(method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
    const r = await s.call(method, path, { auth: s.adminToken, ...opts });
    const [rawPath] = path.split('?');
    const match = matchRoute(table, method, rawPath);
    if (match.kind !== 'found') throw new Error(`no route for ${method} ${rawPath}`);
    const key = `${match.route.method} ${match.route.path}`;
    const declared = responseOf(match.route);
    // Every query parameter sent is one the operation documents.
    const documented = doc.paths[match.route.path][match.route.method.toLowerCase()].parameters
      .filter((p: Json) => p.in === 'query')
      .map((p: Json) => p.name);
    for (const name of new URLSearchParams(path.split('?')[1] ?? '').keys())
      expect(documented, `${key} ?${name}`).toContain(name.startsWith('c.') ? 'c.{category}' : name);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBe(declared.status);
    const type = r.headers.get('content-type') ?? '';
    if (declared.status === 204) expect(r.text, key).toBe('');
    else if (type.startsWith('application/json')) {
      const validate = validatorOf(match.route, declared.status);
      expect(validate, `${key}: no JSON schema in the document`).toBeDefined();
      const valid = (validate as ValidateFunction)(r.body);
      expect(valid, `${key}: ${ajv.errorsText(validate?.errors, { separator: '\n' })}`).toBe(true);
    } else {
      const media = Object.keys(
        doc.paths[match.route.path][match.route.method.toLowerCase()].responses[declared.status].content ??
          {},
      );
      expect(media, `${key} answered ${type}`).toContain(type.split(';')[0]);
    }
    checked.set(key, (checked.get(key) ?? 0) + 1);
    return r;
  }

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    fake = await startFakeLlm();
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'answers_sales',
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 40 } }, { type: 'peer' }],
      series: [
        { categories: { country: 'CZ', city: 'Brno' }, values: drop },
        { categories: { country: 'CZ', city: 'Praha' }, values: flat(100) },
        { categories: { country: 'DE', city: 'Berlin' }, values: flat(200) },
      ],
    });
    // A custom load query, so that custom loads can be queued too.
    await s.testDb.db.rows(
      sql`UPDATE data_views SET definition = jsonb_set(definition, '{source,customLoadQuery}', to_jsonb(definition #>> '{source,loadQuery}')) WHERE id = ${view}`,
    );
    // Detection over the loaded days, so that filters, the explorer and feedback have anomalies.
    const queued = await s.call('POST', `/api/v1/dataviews/${view}/jobs/process`, { auth: s.adminToken });
    expect(queued.status).toBe(202);
    await queue.idle();
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await source?.stop();
    await fake?.close();
  });

  it('system, identity, users and API keys', async () => {
    await ok('GET', '/api/v1/health', { auth: null });
    await ok('GET', '/api/v1/openapi.json', { auth: null });
    await ok('GET', '/api/v1/docs', { auth: null });
    await ok('GET', '/api/v1/docs/assets/init.js', { auth: null });
    await ok('GET', '/api/v1/system/license');
    await ok('POST', '/api/v1/auth/token', { auth: null, body: USER });
    await ok('GET', '/api/v1/auth/me', { auth: s.userToken });
    await ok('GET', '/api/v1/auth/me');
    const users = await ok('GET', '/api/v1/users');
    const me = users.body.find((u: Json) => u.email === USER.email);
    await ok('GET', `/api/v1/users/${me.id}`);
    await ok('PUT', `/api/v1/users/${me.id}`, { body: { dataViewIds: [view] } });
    const other = await ok('POST', '/api/v1/users', {
      body: { email: 'other@example.com', role: 'data-user', password: 'other-password-1' },
    });
    await ok('DELETE', `/api/v1/users/${other.body.id}`);
    const key = await ok('POST', '/api/v1/api-keys', { body: { name: 'ci', permissions: ['read'] } });
    await ok('GET', '/api/v1/api-keys');
    await ok('GET', '/api/v1/auth/me', { auth: { apiKey: key.body.key } });
    await ok('DELETE', `/api/v1/api-keys/${key.body.id}`);
  });

  it('connectors and settings', async () => {
    const config = { conn_string: source.connString };
    await ok('POST', '/api/v1/connectors', {
      body: { name: 'demo_pgsql', type: 'pgsql', configuration: config },
    });
    await ok('POST', '/api/v1/connectors', { body: { name: 'spare', type: 'pgsql', configuration: config } });
    await ok('GET', '/api/v1/connectors');
    await ok('GET', '/api/v1/connectors/demo_pgsql');
    await ok('PUT', '/api/v1/connectors/spare', { body: { type: 'pgsql', description: 'spare one' } });
    await ok('POST', '/api/v1/connectors/demo_pgsql/test');
    const query = { connector: 'demo_pgsql', query: 'SELECT * FROM answers_sales' };
    await ok('POST', '/api/v1/connectors/preview-query', { body: query });
    await ok('POST', '/api/v1/dataviews/preview-query', { body: query });
    await ok('POST', '/api/v1/dataviews/draft-from-query', {
      body: { ...query, name: 'answers_draft', domain: 'retail' },
    });
    await ok('DELETE', '/api/v1/connectors/spare');

    await ok('GET', '/api/v1/settings/summarization');
    const llm = {
      url: fake.url,
      headers: { Authorization: 'Bearer sk-secret' },
      bodyTemplate:
        '{"model":"m","messages":[{"role":"system","content":"{{instructions}}"},{"role":"user","content":"{{prompt}}"}]}',
      responsePath: 'choices[0].message.content',
      timeoutMs: 5000,
      allowPrivateNetwork: true,
    };
    await ok('PUT', '/api/v1/settings/summarization', { body: llm });
    await ok('GET', '/api/v1/settings/summarization');
    await ok('POST', '/api/v1/settings/summarization/test');
    await ok('GET', '/api/v1/settings/alerts');
    await ok('PUT', '/api/v1/settings/alerts', {
      body: {
        publicUrl: 'https://monitor.example.com/',
        allowPrivateNetwork: true,
        smtp: { host: '127.0.0.1', port: 2525, from: 'alerts@example.com', password: 'smtp-pass' },
      },
    });
    await ok('GET', '/api/v1/settings/alerts');
  });

  it('data views: lifecycle, detection, jobs and the series explorer', async () => {
    await ok('POST', '/api/v1/cron/validate', { body: { expression: '0 6 * * *' } });
    const created = await ok('POST', '/api/v1/dataviews', { body: fixtureDoc('retail.yaml') });
    const id = created.body.id as number;
    await ok('GET', `/api/v1/dataviews/${id}`);
    await ok('GET', `/api/v1/dataviews/${id}`, { headers: { accept: 'application/yaml' } });
    await ok('PUT', `/api/v1/dataviews/${id}`, {
      body: { ...created.body, id: undefined, state: undefined },
    });
    for (const action of ['deploy', 'enable', 'disable', 'clean', 'undeploy'])
      await ok('POST', `/api/v1/dataviews/${id}/${action}`);
    await ok('DELETE', `/api/v1/dataviews/${id}`);
    await ok('GET', '/api/v1/dataviews');
    await ok('GET', '/api/v1/dataviews?name=answers');
    await ok('GET', '/api/v1/dataviews/lite');
    await ok('GET', '/api/v1/dataviews/definition-schema');
    await ok('POST', '/api/v1/dataviews/validate', { body: fixtureDoc('retail.yaml') });
    await ok('GET', `/api/v1/dataviews/${view}/categories`);

    const views = await ok('GET', '/api/v1/dataviews/lite');
    const { domain, name } = views.body.find((v: Json) => v.id === view);
    // Held in the queue: each request queues a job (one pending job per kind), and clear removes it.
    queue.pause();
    for (const action of ['load', 'process', 'custom-load'])
      for (const path of [
        `/api/v1/dataviews/${view}/jobs/${action}`,
        `/api/v1/dataviews/${domain}/${name}/jobs/${action}`,
        `/api/v1/jobs/${domain}/${name}/${action}`,
      ]) {
        await ok('POST', path);
        await ok('POST', `/api/v1/dataviews/${view}/jobs/clear`);
      }
    queue.resume();
    await queue.idle();
    const jobs = await ok('GET', `/api/v1/jobs?dataViewId=${view}&limit=50`);
    await ok('GET', `/api/v1/jobs/${jobs.body[0].id}`);
    await ok('GET', '/api/v1/monitoring');
    await ok('GET', `/api/v1/monitoring/${view}`);
    await ok('GET', `/api/v1/dataviews/${view}/status`);

    await ok('POST', `/api/v1/dataviews/${view}/baselines`);
    const preview = await ok('POST', `/api/v1/dataviews/${view}/preview-detector`, {
      body: { categories: { country: 'CZ', city: 'Brno' }, detector: { type: 'dod' } },
    });
    const seriesId = preview.body.seriesId as number;
    await ok(
      'GET',
      `/api/v1/dataviews/${view}/series/${seriesId}?dateFrom=2024-01-20&dateTo=2024-02-10&type=DOD`,
    );
    const stored = (await ok('GET', `/api/v1/dataviews/${view}`)).body;
    // A replay checks the definition as saving does: the fixture's connector must exist.
    await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'test_source', type: 'pgsql', configuration: { conn_string: source.connString } },
    });
    const replay = await ok('POST', `/api/v1/dataviews/${view}/replay`, { body: stored });
    await queue.idle();
    await ok('GET', `/api/v1/dataviews/${view}/replay/${replay.body.id}`);
    await ok(
      'GET',
      `/api/v1/dataviews/${view}/replay/${replay.body.id}/series/${seriesId}?type=DOD&detectorIndex=0&dateFrom=2024-01-20&dateTo=2024-02-10`,
    );
    await ok('GET', `/api/v1/dataviews/${view}/explorer/tree`);
    await ok('GET', `/api/v1/dataviews/${view}/explorer/tree?c.country=CZ&dimension=city&limit=10`);
    await ok('GET', `/api/v1/dataviews/${view}/explorer/search?q=br`);
    await ok('GET', `/api/v1/dataviews/${view}/explorer/series/${seriesId}`);
    await ok('GET', `/api/v1/dataviews/${view}/explorer/series/${seriesId}?type=DOD`);
    await ok('GET', `/api/v1/dataviews/${view}/contributions?from=2024-02-05&to=2024-02-05`);
    await ok(
      'GET',
      `/api/v1/dataviews/${view}/contributions?categories=country=CZ&from=2024-02-01&to=2024-02-07&limit=1`,
    );
    const incidents = await ok('POST', '/api/v1/anomalies/query', {
      body: { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-02-11', incidents: true, limit: 1 },
    });
    await ok('GET', `/api/v1/dataviews/${view}/incidents/${incidents.body.anomalies[0].incidentId}`);
  });

  it('comments', async () => {
    const base = '/api/v1/comments';
    const body = { text: 'Promotion week', dateFrom: '2024-02-01', dateTo: '2024-02-07', dataViewId: view };
    const c = await ok('POST', base, { body: { ...body, email: 'admin@example.com' } });
    await ok('GET', `${base}/${c.body.id}`);
    await ok('PUT', `${base}/${c.body.id}`, { body: { ...body, email: 'admin@example.com', text: 'Promo' } });
    await ok('GET', `${base}?dataViewId=${view}`);
    await ok('GET', `${base}/by-dataview/${view}`);
    await ok('GET', `${base}/by-dataview/${view}/daterange?dateFrom=2024-01-01&dateTo=2024-03-01`);
    await ok('GET', `${base}/by-email/${encodeURIComponent('admin@example.com')}`);
    const mine = await ok('POST', `${base}/ui`, { auth: s.userToken, body });
    await ok('PUT', `${base}/ui/${mine.body.id}`, { auth: s.userToken, body: { ...body, text: 'Mine' } });
    await ok('DELETE', `${base}/ui/${mine.body.id}`, { auth: s.userToken });
    await ok('DELETE', `${base}/${c.body.id}`);
  });

  it('filters, sharing, anomalies, feedback, summaries and alerts', async () => {
    const base = '/api/v1/anomaly-filters';
    const settings = {
      name: 'Everything',
      timeRange: 'Custom',
      dateFrom: '2024-01-01',
      dateTo: '2024-02-29',
    };
    const f = await ok('POST', base, { body: settings });
    const id = f.body.id as number;
    await ok('PUT', base, { body: { ...settings, id, comment: 'all of it' } });
    await ok('GET', base);
    await ok('GET', `${base}/little`);
    await ok('GET', `${base}/${id}`);
    const people = await ok('GET', `${base}/shareable-users`);
    const user = people.body.find((u: Json) => u.email === USER.email);
    await ok('POST', `${base}/${id}/share`, { body: { targetUserIds: [user.id] } });
    await ok('GET', `${base}/${id}/shares`);
    await ok('PUT', `${base}/${id}/pin`, { auth: s.userToken, body: { pinned: true } });
    await ok('GET', `${base}/pinned`, { auth: s.userToken });
    await ok('GET', `${base}/${id}`, { auth: s.userToken });

    const run = await ok('GET', `/api/v1/anomalies/by-filter/${id}?pageSize=5&sortBy=rank&order=desc`);
    expect(run.body.anomalies.length).toBeGreaterThan(0);
    await ok('GET', `/api/v1/anomalies/by-filter/${id}?format=csv`);
    await ok('POST', '/api/v1/anomalies/query?members=true', { body: { ...settings, mergeEvents: true } });
    const grouped = await ok('POST', '/api/v1/anomalies/query', {
      body: { ...settings, isAggregated: true },
    });
    expect(grouped.body.aggregates.length).toBeGreaterThan(0);
    const a = run.body.anomalies[0];
    const key = {
      dataViewId: a.dataViewId,
      seriesId: a.seriesId,
      measure: a.measure,
      type: a.type,
      startDate: a.startDate,
    };
    const fb = await ok('PUT', '/api/v1/anomalies/feedback', {
      body: { ...key, status: 'expected', note: 'known' },
    });
    await ok('GET', `/api/v1/anomalies/feedback?dataViewId=${view}`);
    await ok('GET', `/api/v1/anomalies/feedback/${fb.body.id}`);
    await ok('DELETE', `/api/v1/anomalies/feedback/${fb.body.id}`);
    if (a.incidentId) {
      await ok('PUT', '/api/v1/anomalies/feedback/incident', {
        body: { dataViewId: a.dataViewId, incidentId: a.incidentId, status: 'confirmed' },
      });
      await ok('DELETE', `/api/v1/anomalies/feedback/incident/${a.dataViewId}/${a.incidentId}`);
    }

    await ok('GET', `${base}/${id}/summarization`);
    await ok('GET', `${base}/${id}/summarization/prompt`);
    await ok('POST', `${base}/${id}/summarization/refresh`, { body: { instructions: 'Be brief.' } });
    await ok('GET', `${base}/${id}/summarization`);

    const sub = await ok('POST', `${base}/${id}/alerts`, { body: { channel: 'webhook', url: fake.url } });
    const alert = `${base}/alerts/${sub.body.id}`;
    await ok('GET', `${base}/alerts`);
    await ok('GET', `${base}/alerts?all=true`);
    await ok('GET', `${base}/${id}/alerts`);
    await ok('GET', alert);
    await ok('PUT', alert, { body: { mode: 'daily', digestHour: 7 } });
    await ok('POST', `${alert}/test`);
    await ok('POST', `${alert}/rotate-secret`);
    await ok('GET', `${alert}/deliveries`);
    await ok('DELETE', alert);

    await ok('DELETE', `${base}/${id}/share`, { auth: s.userToken });
    await ok('DELETE', `${base}/${id}`);
  });

  it('checked the answer of every operation', () => {
    const unchecked = routes.map((r) => `${r.method} ${r.path}`).filter((k) => !checked.has(k));
    console.info(`${checked.size} of ${routes.length} operations answered as documented`);
    expect(unchecked).toEqual([]);
  });

  it('refuses an answer that breaks its schema (the check can fail)', () => {
    const route = routes.find((r) => r.method === 'GET' && r.path === '/api/v1/users/{id}') as Route;
    const validate = validatorOf(route, 200) as ValidateFunction;
    const user = { id: 1, email: 'a@example.com', role: 'admin', enabled: true, dataViewIds: [] };
    const times = { createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z' };
    expect(validate({ ...user, ...times })).toBe(true);
    expect(validate(user)).toBe(false);
    expect(validate({ ...user, ...times, role: 'root' })).toBe(false);
    expect(validate({ ...user, ...times, password: 'x' })).toBe(false);
  });
});
