import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName } from '../../support/db';
import { startTestService, type TestService, USER } from '../../support/service';
import { addAnomalies, addComment, createView, type TestView } from '../../integration/filters/fixtures';

/** Wednesday 2024-03-06: Last 7 Days is 2024-02-28..2024-03-05. */
const NOW = '2024-03-06T09:00:00Z';

describe(`running filters over HTTP on ${backendName}`, () => {
  let s: TestService;
  let orders: TestView;
  let returns: TestView;
  let filterId: number;
  let carolToken: string;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    s = await startTestService();
    s.container.clock = fixedClock(NOW);
    const db = s.testDb.db;
    orders = await createView(db, { domain: 'sales', name: 'orders', categories: ['Country', 'City'] });
    returns = await createView(db, { domain: 'sales', name: 'returns', categories: ['Country'] });
    const [berlin, munich, paris, old, hamburg] = await addAnomalies(db, orders, [
      {
        startDate: '2024-03-04',
        changePct: 40,
        change: 40,
        sin: 3,
        categories: { Country: 'DE', City: 'Berlin' },
      },
      {
        startDate: '2024-03-05',
        changePct: -30,
        change: -30,
        sin: 2,
        categories: { Country: 'DE', City: 'Munich' },
      },
      {
        startDate: '2024-03-01',
        changePct: 10,
        change: 10,
        sin: 4,
        categories: { Country: 'FR', City: 'Paris' },
      },
      {
        startDate: '2024-02-01',
        changePct: 90,
        change: 90,
        sin: 9,
        categories: { Country: 'FR', City: 'Paris' },
      },
      {
        startDate: '2024-03-03',
        endDate: '2024-03-04',
        changePct: 5,
        change: 5,
        sin: 1,
        categories: { Country: 'DE', City: 'Hamburg' },
      },
    ]);
    const [lyon] = await addAnomalies(db, returns, [
      { startDate: '2024-03-02', changePct: 20, change: 20, sin: 5, categories: { Country: 'FR' } },
    ]);
    Object.assign(ids, {
      berlin: berlin.id,
      munich: munich.id,
      paris: paris.id,
      old: old.id,
      hamburg: hamburg.id,
      lyon: lyon.id,
    });
    await addComment(db, {
      dataViewId: orders.id,
      text: 'Trade fair in Berlin',
      dateFrom: '2024-03-03',
      dateTo: '2024-03-04',
      categories: { City: 'Berlin' },
    });
    await addComment(db, {
      dataViewId: orders.id,
      text: 'Price change',
      dateFrom: '2024-02-20',
      dateTo: '2024-03-10',
    });

    const users = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await s.call('PUT', `/api/v1/users/${userId}`, {
      auth: s.adminToken,
      body: { dataViewIds: [orders.id] },
    });
    await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'carol@example.com', role: 'data-user', password: 'carol-password' },
    });
    carolToken = (
      await s.call('POST', '/api/v1/auth/token', {
        body: { email: 'carol@example.com', password: 'carol-password' },
      })
    ).body.accessToken;

    const created = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: {
        name: 'Both views',
        timeRange: 'Last 7 Days',
        dataViews: 'sales / orders;sales / returns',
        sortBy: 'SIN',
      },
    });
    filterId = created.body.id;
    await s.call('POST', `/api/v1/anomaly-filters/${filterId}/share`, {
      auth: s.adminToken,
      body: { targetUserIds: [userId] },
    });
  });
  afterAll(() => s.stop());

  const pairs = (body: { anomalies: Array<{ dataView: string; id: number }> }) =>
    body.anomalies.map((a) => `${a.dataView.split(' / ')[1]}:${a.id}`);

  it('runs a saved filter for its owner over every named view, in the preset window, ordered by SIN', async () => {
    const r = await s.call('GET', `/api/v1/anomalies/by-filter/${filterId}`, { auth: s.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.filter).toEqual({ id: filterId, name: 'Both views' });
    expect(r.body.timeRange).toEqual({ preset: 'Last 7 Days', dateFrom: '2024-02-28', dateTo: '2024-03-05' });
    expect(r.body.warnings).toEqual([]);
    expect(r.body.aggregates).toBeUndefined();
    expect(pairs(r.body)).toEqual([
      `returns:${ids.lyon}`,
      `orders:${ids.paris}`,
      `orders:${ids.berlin}`,
      `orders:${ids.munich}`,
      `orders:${ids.hamburg}`,
    ]);
    expect(r.body.anomalies[2]).toMatchObject({
      dataViewId: orders.id,
      dataView: 'sales / orders',
      type: 'DOD',
      startDate: '2024-03-04',
      endDate: '2024-03-04',
      duration: 1,
      changePct: 40,
      result: 'Positive',
      categories: { Country: 'DE', City: 'Berlin' },
    });
  });

  it('attaches the matching comments to each record', async () => {
    const r = await s.call('GET', `/api/v1/anomalies/by-filter/${filterId}`, { auth: s.adminToken });
    const texts = (id: number, view: string) =>
      r.body.anomalies
        .find((a: { id: number; dataView: string }) => a.id === id && a.dataView === view)
        .comments.map((c: { text: string }) => c.text);
    expect(texts(ids.berlin, 'sales / orders')).toEqual(['Price change', 'Trade fair in Berlin']);
    expect(texts(ids.munich, 'sales / orders')).toEqual(['Price change']);
    expect(texts(ids.hamburg, 'sales / orders')).toEqual(['Price change']);
    expect(texts(ids.lyon, 'sales / returns')).toEqual([]);
  });

  it('shows a recipient only the data views assigned to them, with a warning for the rest', async () => {
    const r = await s.call('GET', `/api/v1/anomalies/by-filter/${filterId}`, { auth: s.userToken });
    expect(r.status).toBe(200);
    expect(pairs(r.body)).toEqual([
      `orders:${ids.paris}`,
      `orders:${ids.berlin}`,
      `orders:${ids.munich}`,
      `orders:${ids.hamburg}`,
    ]);
    expect(r.body.dataViews).toEqual([{ id: orders.id, dataView: 'sales / orders' }]);
    expect(r.body.warnings).toEqual([
      "Data view 'sales / returns' is unknown or not accessible; it was skipped.",
    ]);
  });

  it('answers 404 to a user the filter is not shared with, and to an unknown filter', async () => {
    expect(
      (await s.call('GET', `/api/v1/anomalies/by-filter/${filterId}`, { auth: carolToken })).status,
    ).toBe(404);
    expect((await s.call('GET', '/api/v1/anomalies/by-filter/99999', { auth: s.adminToken })).status).toBe(
      404,
    );
  });

  it('lets a recipient preview a locally changed copy without saving it', async () => {
    const saved = (await s.call('GET', `/api/v1/anomaly-filters/${filterId}`, { auth: s.userToken })).body;
    const local = {
      ...saved,
      dataViews: 'sales / orders',
      sortBy: 'Change %',
      anomalyResult: 'Positive',
      limit: 1,
    };
    const r = await s.call('POST', '/api/v1/anomalies/query', { auth: s.userToken, body: local });
    expect(r.status).toBe(200);
    expect(pairs(r.body)).toEqual([`orders:${ids.berlin}`]);
    expect(r.body.filter).toBeUndefined();
    const after = (await s.call('GET', `/api/v1/anomaly-filters/${filterId}`, { auth: s.userToken })).body;
    expect(after).toEqual(saved);
  });

  it('refuses unsaved settings naming a data view the caller cannot see, with a 400 on dataViews', async () => {
    const r = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.userToken,
      body: { dataViews: 'sales / returns' },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { path: 'dataViews', message: "data view 'sales / returns' is unknown or not accessible" },
    ]);
  });

  it('runs unsaved settings with defaults over every visible view, and checks them like a saved filter', async () => {
    const r = await s.call('POST', '/api/v1/anomalies/query', { auth: s.userToken });
    expect(r.status).toBe(200);
    expect(r.body.timeRange).toEqual({ preset: 'Last 7 Days', dateFrom: '2024-02-28', dateTo: '2024-03-05' });
    expect(r.body.anomalies).toHaveLength(4);
    const bad = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.userToken,
      body: { sortBy: 'Size', colour: 'red' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['colour', 'sortBy']);
  });

  it('aggregates on request: groups share the most stable dimension and never mix result signs', async () => {
    const r = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: { dataViews: 'sales / orders', isAggregated: true, minCommonCategories: 1, sortBy: 'Date' },
    });
    expect(r.status).toBe(200);
    // Rises: Country (DE, FR) is more stable than City (3 cities), so Berlin and Hamburg group on DE; Munich fell.
    const groups = r.body.aggregates.map((g: Aggregate) => [
      g.result,
      g.startDate,
      memberIds(g),
      g.commonCategories,
      g.differentCategories,
    ]);
    expect(groups).toEqual([
      ['Negative', '2024-03-05', [ids.munich], { City: 'Munich', Country: 'DE' }, []],
      ['Positive', '2024-03-03', [ids.berlin, ids.hamburg], { Country: 'DE' }, ['City']],
      ['Positive', '2024-03-01', [ids.paris], { City: 'Paris', Country: 'FR' }, []],
    ]);
    expect(r.body.anomalies).toHaveLength(4);
  });

  it('gives more, smaller aggregates for a higher minCommonCategories', async () => {
    const body = {
      timeRange: 'Custom',
      dateFrom: '2024-02-01',
      dateTo: '2024-03-05',
      dataViews: 'sales / orders',
      anomalyResult: 'Positive',
      isAggregated: true,
      sortBy: 'Change',
    };
    const one = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: { ...body, minCommonCategories: 1 },
    });
    expect(one.body.aggregates.map((g: Aggregate) => [memberIds(g), g.n, g.change])).toEqual([
      [[ids.old, ids.paris], 2, 100],
      [[ids.berlin, ids.hamburg], 2, 45],
    ]);
    const two = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: { ...body, minCommonCategories: 2 },
    });
    expect(two.body.aggregates.map((g: Aggregate) => memberIds(g))).toEqual([
      [ids.old, ids.paris],
      [ids.berlin],
      [ids.hamburg],
    ]);
  });

  it('links anomalies overlapping in time by weighted category overlap with Graph aggregation', async () => {
    const body = {
      dataViews: 'sales / orders',
      anomalyResult: 'Positive',
      isAggregated: true,
      aggregationMode: 'Graph',
      sortBy: 'Change',
    };
    const query = async (extra: object) =>
      (await s.call('POST', '/api/v1/anomalies/query', { auth: s.adminToken, body: { ...body, ...extra } }))
        .body.aggregates as Aggregate[];
    // Berlin (4 March) and Hamburg (3-4 March) overlap in time and share Country, not City: overlap 1/2.
    expect((await query({ graphThreshold: 0.5 })).map(memberIds)).toEqual([
      [ids.berlin, ids.hamburg],
      [ids.paris],
    ]);
    expect((await query({ graphThreshold: 0.6 })).map(memberIds)).toEqual([
      [ids.berlin],
      [ids.paris],
      [ids.hamburg],
    ]);
    // City weighs nothing: only Country counts, so they link even at threshold 1.
    const weighted = await query({ graphThreshold: 1, graphWeights: 'City=0' });
    expect(weighted.map(memberIds)).toEqual([[ids.berlin, ids.hamburg], [ids.paris]]);
    expect(weighted[0]).toMatchObject({
      n: 2,
      commonCategories: { Country: 'DE' },
      differentCategories: ['City'],
    });
  });
});

interface Aggregate {
  result: string;
  startDate: string;
  n: number;
  change: number;
  commonCategories: Record<string, string>;
  differentCategories: string[];
  members: Array<{ id: number }>;
}

/** Member ids in rank order (by the filter's sortBy). */
const memberIds = (g: Aggregate) => g.members.map((m) => m.id);
