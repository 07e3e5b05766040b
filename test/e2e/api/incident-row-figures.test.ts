/**
 * An incident row's figures are its own (issue 41): on a generated cube where one leaf spiked, the row
 * named by the leaf shows the leaf's actual, expected and change over the window — what the contributions
 * of that leaf say — and `incident.broad` the broader series' figures, which the row is ranked by.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNormal, makeRng } from '../../../scripts/synthetic/rng';
import { backendName } from '../../support/db';
import { loadedDetectionView, type SourceSeries } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

type Json = Record<string, any>;
const DAYS = 140; // 2024-01-01 .. 2024-05-19
const SPIKE_DAY = 126; // 2024-05-06
const SPIKE_DATE = '2024-05-06';
const CITIES: Array<[string, string, number]> = [
  ['North', 'Oslo', 300],
  ['North', 'Bergen', 200],
  ['South', 'Rome', 350],
  ['South', 'Milan', 250],
];

/** region → city × channel; Milan's web orders are four times their level on one day. */
function spikedCube(): SourceSeries[] {
  const normal = makeNormal(makeRng(11));
  const out: SourceSeries[] = [];
  for (const [region, city, size] of CITIES)
    for (const [channel, share] of [
      ['web', 0.5],
      ['app', 0.3],
      ['store', 0.2],
    ] as const) {
      const spiked = city === 'Milan' && channel === 'web';
      const values = Array.from({ length: DAYS }, (_, t) => {
        const mean = size * share * (t % 7 === 5 ? 1.2 : 1) * (spiked && t === SPIKE_DAY ? 4 : 1);
        return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal()));
      });
      out.push({ categories: { region, city, channel }, values });
    }
  return out;
}

const query = (c: Record<string, string | null>) =>
  Object.entries(c)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}=${v}`)
    .join(';');

describe(`incident row figures on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let view: number;
  const get = (path: string) => s.call('GET', path, { auth: s.adminToken });

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'orders_spiked',
      categories: [{ name: 'region' }, { name: 'city', parent: 'region' }, { name: 'channel' }],
      detectors: [{ type: 'spike' }, { type: 'dod' }],
      series: spikedCube(),
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

  it("shows the spiked leaf's own figures, and the broad series' in incident.broad", async () => {
    const run = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: { timeRange: 'Custom', dateFrom: SPIKE_DATE, dateTo: SPIKE_DATE, incidents: true, limit: 100 },
    });
    expect(run.status).toBe(200);
    const rows = run.body.anomalies as Json[];
    const row = rows.find((a) => a.categories.city === 'Milan' && a.categories.channel === 'web');
    expect(row, JSON.stringify(rows.map((a) => [a.categories, a.incident?.broad.categories]))).toBeDefined();
    const i = row?.incident as Json;
    // The broad series is broader than the leaf (the row ranks as its event) and its head is on it.
    expect(query(i.broad.categories)).not.toBe(query(row?.categories));
    expect(i.broad.seriesId).toBe(row?.seriesId);
    expect(i.rootCauses[0].seriesId).not.toBe(row?.seriesId);
    const days = row?.duration as number;
    const leaf = await get(
      `/api/v1/dataviews/${view}/contributions?categories=${encodeURIComponent(query(row?.categories))}&from=${row?.startDate}&to=${row?.endDate}`,
    );
    const broad = await get(
      `/api/v1/dataviews/${view}/contributions?categories=${encodeURIComponent(query(i.broad.categories))}&from=${row?.startDate}&to=${row?.endDate}`,
    );
    expect(leaf.status).toBe(200);
    expect(broad.status).toBe(200);
    // The row's actual is the leaf's own (per day over the window), not the broad series'.
    expect(row?.actualValue * days).toBeCloseTo(leaf.body.actual, 6);
    expect(i.rootCauses[0].actual).toBeCloseTo(leaf.body.actual, 6);
    expect(i.broad.actual).toBeCloseTo(broad.body.actual, 6);
    expect(leaf.body.actual).toBeLessThan(broad.body.actual);
    // The leaf about quadrupled; its broader series moved far less.
    expect(row?.changePct).toBeGreaterThan(150);
    expect(row?.changeCum).toBeCloseTo(i.rootCauses[0].change, 6);
    expect(i.broad.changePct).toBeLessThan(row?.changePct / 2);
    for (const c of i.rootCauses) {
      expect(c.explainsPct).toBeGreaterThanOrEqual(0);
      expect(c.explainsPct).toBeLessThanOrEqual(100);
    }
    // The incident's own page answers the same row.
    const detail = await get(`/api/v1/dataviews/${view}/incidents/${row?.incidentId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.actualValue).toBeCloseTo(row?.actualValue, 6);
    expect(detail.body.categories).toEqual(row?.categories);
  });
});
