import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { readLayout } from '../../../lib/process-job/layout';
import { seriesLayout } from '../../../lib/series-explorer/layout';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService, USER } from '../../support/service';
import { addComment } from '../../integration/filters/fixtures';

const DAYS = 42; // 2024-01-01 (Monday) .. 2024-02-11
const flat = (v: number) => Array.from({ length: DAYS }, () => v);
const drop = flat(100).map((v, t) => (t === 35 ? 30 : v)); // 2024-02-05
// Twelve cities of CZ (Brno drops once), two of DE.
const CZ = [
  'Brno',
  'Cheb',
  'Decin',
  'Jihlava',
  'Kladno',
  'Liberec',
  'Most',
  'Opava',
  'Praha',
  'Tabor',
  'Usti',
  'Zlin',
];

describe(`series explorer API on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let view: number;
  let other: number;
  const admin = () => s.adminToken;
  const get = (path: string, auth = s.adminToken) =>
    s.call('GET', `/api/v1/dataviews/${view}${path}`, { auth });

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    const db = s.testDb.db;
    view = await loadedDetectionView(db, source, {
      name: 'explorer_sales',
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 40 } }],
      analysis: { specialDates: [{ date: '2024-01-26', impact: 'both' }] } as never,
      series: [
        ...CZ.map((city) => ({
          categories: { country: 'CZ', city },
          values: city === 'Brno' ? drop : flat(100),
        })),
        { categories: { country: 'DE', city: 'Berlin' }, values: flat(200) },
        { categories: { country: 'DE', city: 'Bremen' }, values: flat(50) },
      ],
    });
    other = await loadedDetectionView(db, source, {
      name: 'explorer_other',
      categories: [{ name: 'country' }],
      detectors: [{ type: 'dod' }],
      series: [{ categories: { country: 'AT' }, values: flat(10) }],
    });
    const queued = await s.call('POST', `/api/v1/dataviews/${view}/jobs/process`, { auth: admin() });
    expect(queued.status).toBe(202);
    await queue.idle();
    await addComment(db, {
      dataViewId: view,
      text: 'Brno shop closed for inventory',
      dateFrom: '2024-02-05',
      dateTo: '2024-02-05',
      categories: { city: 'Brno' },
    });
    await addComment(db, {
      dataViewId: view,
      text: 'Only about Praha',
      dateFrom: '2024-02-01',
      dateTo: '2024-02-02',
      categories: { city: 'Praha' },
    });
    const users = (await s.call('GET', '/api/v1/users', { auth: admin() })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: admin(), body: { dataViewIds: [view] } });
  }, 120_000);
  afterAll(async () => {
    await queue.stop();
    await source.stop();
    await s.stop();
  });

  it('starts at the total: only dimensions without a parent split it', async () => {
    const root = await get('/explorer/tree');
    expect(root.status).toBe(200);
    expect(root.body.node.categories).toEqual({});
    expect(typeof root.body.node.seriesId).toBe('number');
    expect(root.body.dimensions).toEqual(['country']);
    expect(root.body.categories.map((c: { name: string }) => c.name)).toEqual(['country', 'city']);
    const countries = await get('/explorer/tree?dimension=country');
    expect(countries.body.children.items.map((i: { value: string }) => i.value)).toEqual(['CZ', 'DE']);
    expect(countries.body.children).toMatchObject({ total: 2, offset: 0 });
    expect(countries.body.children.items[0].expandable).toBe(true);
  });

  it('pages the children of a node in value order, with their total', async () => {
    const first = await get('/explorer/tree?c.country=CZ&dimension=city&limit=5');
    expect(first.status).toBe(200);
    expect(first.body.node.categories).toEqual({ country: 'CZ' });
    expect(first.body.children.total).toBe(12);
    const page1 = first.body.children.items.map((i: { value: string }) => i.value);
    expect(page1).toEqual(CZ.slice(0, 5));
    const last = await get('/explorer/tree?c.country=CZ&dimension=city&limit=5&offset=10');
    expect(last.body.children.items.map((i: { value: string }) => i.value)).toEqual(['Usti', 'Zlin']);
    expect(last.body.children.items.every((i: { expandable: boolean }) => !i.expandable)).toBe(true);
    const brno = first.body.children.items.find((i: { value: string }) => i.value === 'Brno');
    expect(brno.anomalies).toBeGreaterThan(0);
    const searched = await get('/explorer/tree?c.country=CZ&dimension=city&search=LI');
    expect(searched.body.children.items.map((i: { value: string }) => i.value)).toEqual(['Liberec', 'Zlin']);
    expect(searched.body.children.total).toBe(2);
  });

  it('searches every category value with a limit, broadest series first', async () => {
    const found = await get('/explorer/search?q=br');
    expect(found.status).toBe(200);
    expect(found.body.items.map((i: { categories: Record<string, string> }) => i.categories)).toEqual([
      { country: 'CZ', city: 'Brno' },
      { country: 'DE', city: 'Bremen' },
    ]);
    expect(found.body.truncated).toBe(false);
    const limited = await get('/explorer/search?q=c&limit=2');
    expect(limited.body.items).toHaveLength(2);
    expect(limited.body.truncated).toBe(true);
    // The country itself (level 1) comes before its cities.
    expect(limited.body.items[0].categories).toEqual({ country: 'CZ' });
  });

  it('answers one series with values, expectations, band, special dates, comments and its anomalies', async () => {
    const brno = (await get('/explorer/search?q=brno')).body.items[0];
    const r = await get(`/explorer/series/${brno.seriesId}`);
    expect(r.status).toBe(200);
    expect(r.body.categories).toEqual({ country: 'CZ', city: 'Brno' });
    expect(r.body.detector).toMatchObject({ type: 'dod' });
    expect(r.body.band).toMatch(/40/);
    expect(r.body.points).toHaveLength(DAYS);
    const day = r.body.points.find((p: { date: string }) => p.date === '2024-02-05');
    expect(day).toMatchObject({ value: 30, flag: -1 });
    expect(day.expected).toBeCloseTo(100, 0);
    expect(day.lower).toBeCloseTo(day.expected * 0.6, 6);
    expect(day.upper).toBeCloseTo(day.expected * 1.4, 6);
    expect(r.body.specialDates).toEqual([{ date: '2024-01-26', impact: 'both' }]);
    expect(r.body.comments.map((c: { text: string }) => c.text)).toEqual(['Brno shop closed for inventory']);
    expect(r.body.anomalies.length).toBeGreaterThan(0);
    expect(r.body.anomalies[0]).toMatchObject({
      type: 'DOD',
      startDate: '2024-02-05',
      result: 'Negative',
      seriesId: brno.seriesId,
      dataViewId: view,
      categories: { country: 'CZ', city: 'Brno' },
    });
    expect(r.body.anomalies[0]).not.toHaveProperty('detectorIndex');
  });

  it('reads the same groups around a series as the whole layout does', async () => {
    const schema = schemaNameFor(view);
    const cats = [{ name: 'country' }, { name: 'city' }];
    const whole = await readLayout(s.testDb.db, schema, cats);
    const ids = whole.groups.flatMap((g) => g.memberIds);
    expect(ids.length).toBe(17); // total, 2 countries, 14 cities
    for (const id of ids) {
      const part = await seriesLayout(s.testDb.db, schema, cats, id);
      expect(part).toMatchObject({ dayIndex0: whole.dayIndex0, days: whole.days, rootId: whole.rootId });
      const own = (l: typeof whole) => l.groups.find((g) => g.memberIds.includes(id));
      const kids = (l: typeof whole) => l.groups.filter((g) => g.parentId === id);
      expect(own(part)).toEqual(own(whole));
      expect(kids(part)).toEqual(kids(whole));
    }
  });

  it('draws another detector on request, without a band when it has none', async () => {
    const brno = (await get('/explorer/search?q=brno')).body.items[0];
    const r = await get(`/explorer/series/${brno.seriesId}?type=spike`);
    expect(r.status).toBe(200);
    expect(r.body.detector.type).toBe('spike');
    expect(r.body.band).toBeNull();
    expect(r.body.points.every((p: { lower: number | null }) => p.lower === null)).toBe(true);
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    const cases: Array<[string, string]> = [
      ['/explorer/tree?c.region=x', 'c.region'],
      ['/explorer/tree?c.country=', 'c.country'],
      ['/explorer/tree?dimension=city', 'dimension'],
      ['/explorer/tree?dimension=nope', 'dimension'],
      ['/explorer/tree?dimension=country&limit=0', 'limit'],
      ['/explorer/tree?dimension=country&limit=501', 'limit'],
      ['/explorer/tree?dimension=country&offset=-1', 'offset'],
      ['/explorer/tree?search=x', 'search'],
      ['/explorer/search', 'q'],
      ['/explorer/search?q=a&limit=abc', 'limit'],
      ['/explorer/series/abc', 'seriesId'],
      ['/explorer/series/1?type=bogus', 'type'],
      ['/explorer/series/1?measure=amount', 'measure'],
      ['/explorer/series/1?measure=count', 'measure'],
    ];
    for (const [path, param] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(
        r.body.errors.map((e: { path: string }) => e.path),
        path,
      ).toContain(param);
    }
    expect((await get('/explorer/series/999999')).status).toBe(404);
    const huge = await get('/explorer/tree?dimension=country&offset=99999999999999999999');
    expect(huge.status).toBe(400);
    const far = await get('/explorer/tree?dimension=country&offset=9007199254740991');
    expect(far.status).toBe(200);
    expect(far.body.children).toMatchObject({ items: [], total: 2 });
  });

  it('shows a data user only the views assigned to them', async () => {
    expect((await get('/explorer/tree', s.userToken)).status).toBe(200);
    expect((await get('/explorer/search?q=br', s.userToken)).status).toBe(200);
    for (const path of ['/explorer/tree', '/explorer/search?q=a', '/explorer/series/1']) {
      const r = await s.call('GET', `/api/v1/dataviews/${other}${path}`, { auth: s.userToken });
      expect(r.status, path).toBe(404);
    }
    expect((await get('/explorer/tree', null as never)).status).toBe(401);
  });
});
