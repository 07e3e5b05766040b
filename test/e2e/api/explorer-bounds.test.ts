/**
 * The charts of a series read a bounded part of the view (docs/security.md, "Bounded reads"), through
 * HTTP: a data user asks only for the detector types the view has (a 400 naming `type` otherwise; an
 * administrator still previews other types), and the peer or child group of a peer or cardinality
 * preview is read only over the days the chart draws and the look-back before them, and only within
 * PREVIEW_GROUP_CELLS values: past it the chart draws no expectation and says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { startTestService, type TestService, USER } from '../../support/service';

type Json = Record<string, any>;
const DAYS = 200; // 2024-01-01 .. 2024-07-18
const LAST = '2024-07-18';
const FROM = '2024-07-05'; // 14 days drawn: with 112 days of look-back, 127 days of the group
const CITIES = 12;
// 12 cities × 127 days fit; 12 × 200 (every loaded day) do not.
const GROUP_CELLS = CITIES * 130;
const wave = (t: number, size: number) => size * (1 + 0.2 * Math.sin((2 * Math.PI * t) / 7));

describe(`bounded chart reads on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let view: number;
  let brno: number;
  let cz: number;
  const get = (path: string, auth = s.adminToken) =>
    s.call('GET', `/api/v1/dataviews/${view}${path}`, { auth });

  beforeAll(async () => {
    s = await startTestService({ PREVIEW_GROUP_CELLS: String(GROUP_CELLS) });
    source = await createTestSource();
    const cities = Array.from({ length: CITIES }, (_, i) => `City ${String(i).padStart(2, '0')}`);
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'bounded_charts',
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      detectors: [{ type: 'dod' }],
      series: [
        ...cities.map((city, i) => ({
          categories: { country: 'CZ', city },
          // City 00 drops by half on the last three days, the others stay.
          values: Array.from({ length: DAYS }, (_, t) =>
            Math.round(wave(t, 100 + 10 * i) * (i === 0 && t >= DAYS - 3 ? 0.5 : 1)),
          ),
        })),
        {
          categories: { country: 'DE', city: 'Berlin' },
          values: Array.from({ length: DAYS }, (_, t) => Math.round(wave(t, 300))),
        },
      ],
    });
    const node = await get('/explorer/tree?c.country=CZ&c.city=City%2000');
    brno = node.body.node.seriesId;
    cz = (await get('/explorer/tree?c.country=CZ')).body.node.seriesId;
    const users = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Json[];
    const userId = users.find((u) => u.email === USER.email)?.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [view] } });
  }, 180_000);

  afterAll(async () => {
    await source?.stop();
    await s?.stop();
  });

  it("lets a data user ask only for the view's own detector types, naming type", async () => {
    for (const path of [
      `/series/${brno}?type=peer&dateFrom=${FROM}&dateTo=${LAST}`,
      `/explorer/series/${brno}?type=peer`,
      `/explorer/series/${cz}?type=cardinality`,
    ]) {
      const r = await get(path, s.userToken);
      expect(r.status, path).toBe(400);
      expect(
        r.body.errors.map((e: Json) => e.path),
        path,
      ).toEqual(['type']);
      expect(r.body.detail, path).toMatch(/has no (peer|cardinality) detector \(its detectors: dod\)/);
    }
    expect((await get(`/explorer/series/${brno}?type=dod`, s.userToken)).status).toBe(200);
    expect((await get(`/series/${brno}?type=dod&dateFrom=${FROM}`, s.userToken)).status).toBe(200);
    // An administrator previews another type.
    expect((await get(`/explorer/series/${brno}?type=peer`)).status).toBe(200);
  });

  it('draws no expectation past the group bound, and says why', async () => {
    for (const [id, type] of [
      [brno, 'peer'],
      [cz, 'cardinality'],
    ] as const) {
      const r = await get(`/explorer/series/${id}?type=${type}`);
      expect(r.status).toBe(200);
      expect(r.body.points).toHaveLength(DAYS);
      expect(r.body.skipped?.message, type).toMatch(
        /12 (peers|children); over 200 days .* 2,400 values, more than the 1,560 a chart reads \(PREVIEW_GROUP_CELLS\)/,
      );
      expect(r.body.points.every((p: Json) => p.expected === null)).toBe(true);
    }
  });

  it("reads the group only over the chart's window, with the expectation of a whole read", async () => {
    for (const [id, type] of [
      [brno, 'peer'],
      [cz, 'cardinality'],
    ] as const) {
      const chart = await get(`/series/${id}?type=${type}&dateFrom=${FROM}&dateTo=${LAST}`);
      expect(chart.status).toBe(200);
      expect(chart.body.points).toHaveLength(14);
      expect(chart.body.points.every((p: Json) => p.expected !== null)).toBe(true);
      // The same days read with every loaded day of the group.
      s.container.config.reads.previewGroupCells = 1_000_000;
      const whole = await get(`/explorer/series/${id}?type=${type}`);
      s.container.config.reads.previewGroupCells = GROUP_CELLS;
      expect(whole.body.skipped).toBeNull();
      const expected = new Map((whole.body.points as Json[]).map((p) => [p.date, p.expected]));
      for (const p of chart.body.points as Json[])
        expect(p.expected, p.date).toBeCloseTo(expected.get(p.date), 6);
    }
  });
});
