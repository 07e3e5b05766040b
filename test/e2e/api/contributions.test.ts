/**
 * "What drove this change?" and one incident, through HTTP: the contributions of any series over any window,
 * in agreement with the root causes incidents name; bad parameters are 400s naming the field; a data user
 * reads only assigned views.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { INCIDENT_CATEGORIES, INCIDENT_DAYS, incidentSeries } from '../../support/incident-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService, USER } from '../../support/service';

type Json = Record<string, any>;
const DAYS = INCIDENT_DAYS; // 2024-01-01 .. 2024-05-19
const CATEGORIES = INCIDENT_CATEGORIES;
const series = incidentSeries;

describe(`contributions and incidents API on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let view: number;
  let other: number;
  const get = (path: string, auth = s.adminToken) => s.call('GET', path, { auth });
  const contributions = (q: string, auth?: string) =>
    get(`/api/v1/dataviews/${view}/contributions?${q}`, auth);

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    const db = s.testDb.db;
    view = await loadedDetectionView(db, source, {
      name: 'orders_by_city',
      categories: CATEGORIES,
      detectors: [{ type: 'gap' }, { type: 'dod' }, { type: 'spike' }, { type: 'dt' }],
      series: series(),
    });
    other = await loadedDetectionView(db, source, {
      name: 'orders_elsewhere',
      categories: [{ name: 'region' }],
      detectors: [{ type: 'dod' }],
      series: [{ categories: { region: 'East' }, values: Array.from({ length: DAYS }, () => 10) }],
    });
    for (const id of [view, other]) {
      const queued = await s.call('POST', `/api/v1/dataviews/${id}/jobs/process`, { auth: s.adminToken });
      expect(queued.status).toBe(202);
    }
    await queue.idle();
    const users = (await get('/api/v1/users')).body as Array<{ id: number; email: string }>;
    const userId = users.find((u) => u.email === USER.email)?.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [view] } });
  }, 180_000);

  afterAll(async () => {
    await queue?.stop();
    await source?.stop();
    await s?.stop();
  });

  it('ranks the values of every open category by their part of the change, with shares and surprise', async () => {
    const r = await contributions('from=2024-04-30&to=2024-05-03');
    expect(r.status).toBe(200);
    const body = r.body as Json;
    expect(body).toMatchObject({
      from: '2024-04-30',
      to: '2024-05-03',
      days: 4,
      measure: 'value',
      leaves: 8,
    });
    expect(body.categories).toEqual({ region: null, city: null, channel: null });
    expect(body.change).toBeLessThan(0);
    expect(body.dimensions.map((d: Json) => d.name).sort()).toEqual(['channel', 'city', 'region']);
    const city = body.dimensions.find((d: Json) => d.name === 'city');
    expect(city.values[0]).toMatchObject({
      value: 'Milan',
      categories: { region: 'South', city: 'Milan', channel: null },
    });
    expect(city.values[0].change).toBeLessThan(0);
    expect(city.values[0].shareDuring).toBeLessThan(city.values[0].shareBefore);
    const channel = body.dimensions.find((d: Json) => d.name === 'channel');
    expect(channel.values[0].value).toBe('app');
    // The channel's shares moved more than the regions' did.
    const region = body.dimensions.find((d: Json) => d.name === 'region');
    expect(channel.surprise).toBeGreaterThan(region.surprise);
    // The best explaining set crosses categories: Milan's app orders.
    expect(body.explanation.broad).toBe(false);
    expect(body.explanation.causes[0].categories).toEqual({ region: 'South', city: 'Milan', channel: 'app' });
    expect(body.explanation.causes[0].explainsPct).toBeGreaterThan(50);
  });

  it('answers a series below the total over a window without anomalies, and lists at most limit values', async () => {
    const r = await contributions('categories=Region=South&from=2024-03-04&to=2024-03-10&limit=1');
    expect(r.status).toBe(200);
    expect(r.body.categories).toEqual({ region: 'South', city: null, channel: null });
    expect(r.body.dimensions.map((d: Json) => d.name).sort()).toEqual(['channel', 'city']);
    for (const d of r.body.dimensions) {
      expect(d.values).toHaveLength(1);
      expect(d.count).toBe(2);
    }
    expect(r.body.baseline).toMatchObject({
      source: 'history',
      weeks: 4,
      from: '2024-02-05',
      to: '2024-03-03',
    });
  });

  it('agrees with the root cause of the incident whose head it is asked about', async () => {
    const run = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: {
        timeRange: 'Custom',
        dateFrom: '2024-04-28',
        dateTo: '2024-05-05',
        incidents: true,
        limit: 100,
      },
    });
    expect(run.status).toBe(200);
    const row = (run.body.anomalies as Json[]).find((a) =>
      a.incident?.rootCauses.some(
        (c: Json) => c.categories.city === 'Milan' && c.categories.channel === 'app',
      ),
    );
    expect(row, JSON.stringify(run.body.anomalies.map((a: Json) => a.incident?.rootCauses))).toBeDefined();
    const broad = row?.incident.broad.categories as Record<string, string | null>;
    const categories = Object.entries(broad)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k}=${v}`)
      .join(';');
    // The head is the strongest record of the broad series; its window is the explanation's.
    const detail = await get(`/api/v1/dataviews/${view}/incidents/${row?.incidentId}`);
    expect(detail.status).toBe(200);
    const head = (detail.body.members as Json[]).find(
      (m) =>
        JSON.stringify(m.categories) === JSON.stringify(detail.body.incident.broad.categories) &&
        m.type === detail.body.type,
    );
    expect(
      head,
      JSON.stringify({ broad, type: detail.body.type, members: detail.body.members }),
    ).toBeDefined();
    const r = await contributions(
      `categories=${encodeURIComponent(categories)}&from=${head?.startDate}&to=${head?.endDate}&measure=${head?.measure}`,
    );
    expect(r.status).toBe(200);
    expect(r.body.baseline.anomaly.incidentId).toBe(row?.incidentId);
    expect(r.body.explanation.causes.map((c: Json) => c.categories)).toEqual(
      row?.incident.rootCauses.map((c: Json) => c.categories),
    );
  });

  it('shows one incident with its root causes and members, and 404s one that does not exist', async () => {
    const run = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-05-19', incidents: true, limit: 1 },
    });
    const top = run.body.anomalies[0] as Json;
    const r = await get(`/api/v1/dataviews/${view}/incidents/${top.incidentId}`);
    expect(r.status).toBe(200);
    expect(r.body.incidentId).toBe(top.incidentId);
    expect(r.body.incident.rootCauses.length).toBeGreaterThan(0);
    expect(r.body.members.length).toBe(r.body.incident.size);
    expect(r.body.categories).toEqual(top.categories);
    const missing = await get(`/api/v1/dataviews/${view}/incidents/999999`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
  });

  it('refuses bad parameters with a 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['to=2024-05-03', 'from'],
      ['from=2024-04-30', 'to'],
      ['from=2024-13-01&to=2024-05-03', 'from'],
      ['from=2024-05-03&to=2024-04-30', 'to'],
      ['from=2023-01-01&to=2024-05-03', 'to'],
      ['from=2024-04-30&to=2024-05-03&measure=revenue', 'measure'],
      ['from=2024-04-30&to=2024-05-03&measure=count', 'measure'],
      ['from=2024-04-30&to=2024-05-03&categories=country=Norway', 'categories'],
      ['from=2024-04-30&to=2024-05-03&categories=city=Atlantis', 'categories'],
      ['from=2024-04-30&to=2024-05-03&categories=city', 'categories'],
      ['from=2024-04-30&to=2024-05-03&limit=0', 'limit'],
      ['from=2024-04-30&to=2024-05-03&weeks=13', 'weeks'],
    ];
    for (const [q, field] of cases) {
      const r = await contributions(q);
      expect(r.status, q).toBe(400);
      expect(r.body.errors?.[0]?.path, q).toBe(field);
    }
  });

  it('shows a data user only the views assigned to them', async () => {
    const mine = await contributions('from=2024-04-30&to=2024-05-03', s.userToken);
    expect(mine.status).toBe(200);
    const theirs = await get(
      `/api/v1/dataviews/${other}/contributions?from=2024-04-30&to=2024-05-03`,
      s.userToken,
    );
    expect(theirs.status).toBe(404);
    // Not assigned: the same 404 as a view that does not exist, whatever the incident.
    expect((await get(`/api/v1/dataviews/${other}/incidents/1`, s.userToken)).status).toBe(404);
    const top = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-05-19', incidents: true, limit: 1 },
    });
    const id = top.body.anomalies[0].incidentId;
    expect((await get(`/api/v1/dataviews/${view}/incidents/${id}`, s.userToken)).status).toBe(200);
    const unauthenticated = await s.call(
      'GET',
      `/api/v1/dataviews/${view}/contributions?from=2024-04-30&to=2024-05-03`,
    );
    expect(unauthenticated.status).toBe(401);
  });
});
