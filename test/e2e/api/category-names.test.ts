/**
 * Category names and values that are also names of Object.prototype (`constructor`, `toString`,
 * `__proto__`, `hasOwnProperty`) are names like any other, through HTTP: the explorer tree offers and
 * filters by them, the search shows them, the contributions take them once, and a filter constrains by
 * them (objects keyed by category names and values are read by their own properties only). A category
 * *named* `__proto__` cannot be loaded yet (the source drivers hand rows over as objects).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

type Json = Record<string, any>;
const DAYS = 70; // 2024-01-01 .. 2024-03-10
/** A row's categories as own properties (a literal `{ __proto__: … }` would set the prototype). */
const cats = (c: string, p: string, ch: string) =>
  Object.fromEntries([
    ['constructor', c],
    ['toString', p],
    ['channel', ch],
  ]);

describe(`category names of Object.prototype on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let view: number;
  const get = (path: string) => s.call('GET', `/api/v1/dataviews/${view}${path}`, { auth: s.adminToken });
  const tree = (q: string) => get(`/explorer/tree?${q}`);

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    const series = [];
    for (const c of ['__proto__', 'valueOf'])
      for (const p of ['toString', 'constructor'])
        for (const ch of ['web', 'hasOwnProperty'])
          series.push({
            categories: cats(c, p, ch),
            values: Array.from({ length: DAYS }, (_, t) =>
              // __proto__ › toString › web drops in the last week.
              c === '__proto__' && p === 'toString' && ch === 'web' && t >= DAYS - 7 ? 10 : 100,
            ),
          });
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'odd_names',
      categories: [{ name: 'constructor' }, { name: 'toString', parent: 'constructor' }, { name: 'channel' }],
      detectors: [{ type: 'dod' }],
      series,
    });
    const queued = await s.call('POST', `/api/v1/dataviews/${view}/jobs/process`, { auth: s.adminToken });
    expect(queued.status).toBe(202);
    await queue.idle();
  }, 180_000);

  afterAll(async () => {
    await queue?.stop();
    await source?.stop();
    await s?.stop();
  });

  it('offers constructor and toString as dimensions and selects by them in the explorer tree', async () => {
    const root = await tree('');
    expect(root.status, root.text).toBe(200);
    expect(root.body.dimensions).toEqual(['constructor', 'channel']);
    expect(root.body.node.seriesId).not.toBeNull();
    const top = await tree('dimension=constructor');
    expect(top.body.children.items.map((i: Json) => i.value)).toEqual(['__proto__', 'valueOf']);
    const node = await tree('c.constructor=__proto__&dimension=toString');
    expect(node.status, node.text).toBe(200);
    expect(Object.entries(node.body.node.categories)).toEqual([['constructor', '__proto__']]);
    expect(node.body.dimensions).toEqual(['toString', 'channel']);
    expect(node.body.node.seriesId).not.toBeNull();
    expect(node.body.node.seriesId).not.toBe(root.body.node.seriesId);
    expect(node.body.children.items.map((i: Json) => i.value)).toEqual(['constructor', 'toString']);
    const deep = await tree('c.constructor=__proto__&c.toString=toString&dimension=channel');
    expect(deep.status, deep.text).toBe(200);
    expect(Object.entries(deep.body.node.categories)).toEqual([
      ['constructor', '__proto__'],
      ['toString', 'toString'],
    ]);
    expect(deep.body.node.seriesId).not.toBeNull();
    expect(deep.body.node.seriesId).not.toBe(node.body.node.seriesId);
    expect(deep.body.children.items.map((i: Json) => i.value)).toEqual(['hasOwnProperty', 'web']);
    // The series of that node is the one whose categories the explorer names.
    const one = await get(`/explorer/series/${deep.body.node.seriesId}`);
    expect(one.status).toBe(200);
    expect(Object.entries(one.body.categories)).toEqual([
      ['constructor', '__proto__'],
      ['toString', 'toString'],
      ['channel', null],
    ]);
  });

  it('finds values named like Object.prototype members in the search', async () => {
    const r = await get('/explorer/search?q=hasOwn');
    expect(r.status).toBe(200);
    const leaf = (r.body.items as Json[]).find((i) => Object.keys(i.categories).length === 3);
    expect(Object.keys(leaf?.categories ?? {})).toEqual(['constructor', 'toString', 'channel']);
    expect(leaf?.categories.channel).toBe('hasOwnProperty');
  });

  it('takes constructor and toString once each in the contributions', async () => {
    const r = await get(
      `/contributions?categories=${encodeURIComponent('constructor=__proto__;toString=toString')}&from=2024-03-04&to=2024-03-10`,
    );
    expect(r.status, r.text).toBe(200);
    expect(Object.entries(r.body.categories)).toEqual([
      ['constructor', '__proto__'],
      ['toString', 'toString'],
      ['channel', null],
    ]);
    expect(r.body.leaves).toBe(2);
    expect(r.body.dimensions[0].name).toBe('channel');
    expect(r.body.dimensions[0].values[0].value).toBe('web');
    const twice = await get(
      `/contributions?categories=${encodeURIComponent('constructor=__proto__;constructor=valueOf')}&from=2024-03-04&to=2024-03-10`,
    );
    expect(twice.status).toBe(400);
    expect(twice.body.errors[0].message).toMatch(/constructor is given twice/);
  });

  it('constrains a filter run by categories named constructor and toString', async () => {
    const r = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: {
        timeRange: 'Custom',
        dateFrom: '2024-03-01',
        dateTo: '2024-03-10',
        categoriesFilter: 'constructor=__proto__;toString=toString;channel=web',
        limit: 100,
      },
    });
    expect(r.status, r.text).toBe(200);
    const rows = r.body.anomalies as Json[];
    expect(rows.length).toBeGreaterThan(0);
    for (const a of rows) {
      expect(Object.entries(a.categories)).toEqual([
        ['constructor', '__proto__'],
        ['toString', 'toString'],
        ['channel', 'web'],
      ]);
    }
  });
});
