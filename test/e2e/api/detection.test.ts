import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

const DAYS = 28; // 2024-01-01 (Monday) .. 2024-01-28
const flat = (v: number) => Array.from({ length: DAYS }, () => v);
// 2024-01-26: the noise model judges a day once it has about three weeks of history.
const spike = flat(100).map((v, t) => (t === 25 ? 200 : v));
const gappy = flat(1).map((v, t) => (t % 3 === 2 ? v : null)); // two days in three missing, from 2024-01-03
const flat35 = (v: number) => Array.from({ length: 35 }, () => v);

describe(`detection over HTTP on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let spikeView: number;
  let crossView: number;
  const admin = () => s.adminToken;

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    const db = s.testDb.db;
    spikeView = await loadedDetectionView(db, source, {
      name: 'e2e_spike',
      categories: [{ name: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 30 } }],
      series: [
        { categories: { country: 'CZ' }, values: spike },
        { categories: { country: 'DE' }, values: flat(100) },
        { categories: { country: 'AT' }, values: gappy },
      ],
    });
    crossView = await loadedDetectionView(db, source, {
      name: 'e2e_cross',
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      detectors: [{ type: 'peer' }, { type: 'mix' }, { type: 'cardinality' }],
      series: ['Prague', 'Brno', 'Ostrava'].map((city) => ({
        categories: { country: 'CZ', city },
        values: flat35(50),
      })),
    });
  }, 120_000);
  afterAll(async () => {
    await queue.stop();
    await source.stop();
    await s.stop();
  });

  it('runs the process job through the queue and serves its anomalies to filters', async () => {
    const queued = await s.call('POST', `/api/v1/dataviews/${spikeView}/jobs/process`, { auth: admin() });
    expect(queued.status).toBe(202);
    await queue.idle();
    const job = await s.call('GET', `/api/v1/jobs/${queued.body.id}`, { auth: admin() });
    expect(job.body).toMatchObject({ status: 'finished', detail: { series: 4, anomalies: 2, detectors: 1 } });
    const found = await s.call('POST', '/api/v1/anomalies/query', {
      auth: admin(),
      body: {
        timeRange: 'Custom',
        dateFrom: '2024-01-01',
        dateTo: '2024-01-31',
        dataViews: 'retail / e2e_spike',
        sortBy: 'SIN',
      },
    });
    expect(found.status).toBe(200);
    const cz = found.body.anomalies.find(
      (a: { categories: Record<string, string | null> }) => a.categories.country === 'CZ',
    );
    expect(cz).toMatchObject({
      type: 'DOD',
      startDate: '2024-01-26',
      duration: 1,
      actualValue: 200,
      predictedValue: 100,
      change: 100,
      changePct: 100,
      result: 'Positive',
    });
  });

  it('refuses to recalculate baselines of a view without peer, mix or cardinality detectors', async () => {
    const r = await s.call('POST', `/api/v1/dataviews/${spikeView}/baselines`, { auth: admin() });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe('No peer, mix or cardinality detector is defined for this data view.');
  });

  it('recalculates the baseline tables of the peer, mix and cardinality detectors', async () => {
    const r = await s.call('POST', `/api/v1/dataviews/${crossView}/baselines`, { auth: admin() });
    expect(r.status).toBe(200);
    // 35 days: the last week has the four weeks of history a peer vote needs. Groups: the three cities under CZ (peer and cardinality), CZ under the total (cardinality only: one member).
    expect(r.body).toMatchObject({
      message: 'Baseline tables rebuilt.',
      series: 5,
      peerGroups: 1,
      cardinalityGroups: 2,
      mixLinks: 4,
    });
    const schema = schemaNameFor(crossView);
    const [peer] = await s.testDb.db.rows<{ category: string; members: number[]; n: number }>(
      sql.raw(`SELECT category, members, cardinality(median_change) AS n FROM ${schema}.baseline_peer`),
    );
    expect(peer).toMatchObject({ category: 'city', n: 35 });
    expect(peer.members.slice(-1)).toEqual([3]);
    const counts = await s.testDb.db.rows<{ category: string; last: number }>(
      sql.raw(
        `SELECT category, distinct_count[35] AS last FROM ${schema}.baseline_cardinality ORDER BY category`,
      ),
    );
    expect(counts).toEqual([
      { category: 'city', last: 3 },
      { category: 'country', last: 1 },
    ]);
  });

  it('previews a detector on one series: values, expected values, flagged days and anomalies', async () => {
    const r = await s.call('POST', `/api/v1/dataviews/${spikeView}/preview-detector`, {
      auth: admin(),
      body: { categories: { country: 'CZ' }, detector: { type: 'DOD', params: { percentualChange: 30 } } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      categories: { country: 'CZ' },
      detector: { type: 'dod', code: 'DOD', params: { percentualChange: 30 } },
      analysedFrom: '2024-01-01',
      analysedTo: '2024-01-28',
      skipped: null,
      flaggedDays: [{ date: '2024-01-26', result: 'Positive' }],
      anomalies: [
        { type: 'DOD', startDate: '2024-01-26', actualValue: 200, predictedValue: 100, result: 'Positive' },
      ],
    });
    expect(r.body.points).toHaveLength(DAYS);
    expect(r.body.points[25]).toEqual({
      date: '2024-01-26',
      value: 200,
      expected: 100,
      flag: 1,
      filled: false,
    });
    expect(r.body.points[0].expected).toBeNull();
  });

  it("serves one series' daily and expected values around an anomaly to readers of the view only", async () => {
    const preview = await s.call('POST', `/api/v1/dataviews/${spikeView}/preview-detector`, {
      auth: admin(),
      body: { categories: { country: 'CZ' }, detector: { type: 'dod' } },
    });
    const seriesId = preview.body.seriesId as number;
    const path = `/api/v1/dataviews/${spikeView}/series/${seriesId}?dateFrom=2024-01-24&dateTo=2024-01-28&type=DOD`;
    const r = await s.call('GET', path, { auth: admin() });
    expect(r.status).toBe(200);
    expect(r.body.type).toBe('DOD');
    expect(r.body.points.map((p: { date: string }) => p.date)).toEqual([
      '2024-01-24',
      '2024-01-25',
      '2024-01-26',
      '2024-01-27',
      '2024-01-28',
    ]);
    expect(r.body.points[2]).toMatchObject({ value: 200, expected: 100, flag: 1 });
    // The data user sees it once the view is assigned, and gets 404 before.
    expect((await s.call('GET', path, { auth: s.userToken })).status).toBe(404);
    const users = await s.call('GET', '/api/v1/users', { auth: admin() });
    const user = users.body.find((u: { email: string }) => u.email === 'user@example.com');
    await s.call('PUT', `/api/v1/users/${user.id}`, { auth: admin(), body: { dataViewIds: [spikeView] } });
    const token = (
      await s.call('POST', '/api/v1/auth/token', {
        body: { email: 'user@example.com', password: 'user-password-1' },
      })
    ).body.accessToken;
    expect((await s.call('GET', path, { auth: token })).status).toBe(200);
    expect((await s.call('GET', `${path}&dateFrom=2024-13-01`, { auth: admin() })).status).toBe(400);
    await s.call('PUT', `/api/v1/users/${user.id}`, { auth: admin(), body: { dataViewIds: [] } });
  });

  it('reports why a detector skips a series: too many missing days, or an average outside minValue/maxValue', async () => {
    const preview = (body: object) =>
      s.call('POST', `/api/v1/dataviews/${spikeView}/preview-detector`, { auth: admin(), body });
    const gap = await preview({ categories: { country: 'AT' }, detector: { type: 'dod' } });
    expect(gap.body.skipped).toMatchObject({ reason: 'gap-amount' });
    expect(gap.body.points.slice(0, 2)).toMatchObject([
      { date: '2024-01-03', value: 1, filled: false },
      { date: '2024-01-04', value: 0, filled: true },
    ]);
    const low = await preview({
      categories: { country: 'DE' },
      detector: { type: 'dod', params: { minValue: 500 } },
    });
    expect(low.body.skipped).toEqual({
      reason: 'average-below-min',
      message: 'average 100 is below minValue 500',
    });
    const high = await preview({
      categories: { country: 'DE' },
      detector: { type: 'dod', params: { maxValue: 50 } },
    });
    expect(high.body.skipped).toMatchObject({ reason: 'average-above-max' });
    expect(high.body.flaggedDays).toEqual([]);
  });

  it('answers 400 for bad params or an unknown category, 404 for an unknown series or view, 403 to a data user', async () => {
    const url = `/api/v1/dataviews/${spikeView}/preview-detector`;
    const bad = await s.call('POST', url, {
      auth: admin(),
      body: { detector: { type: 'dod', params: { percentualChange: -5 } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { path: 'detector.params.percentualChange', message: 'must be greater than 0' },
    ]);
    // The measure is one the view can have (the replay's chart of a count record previews the count).
    const measure = await s.call('POST', url, {
      auth: admin(),
      body: { measure: 'median', detector: { type: 'dod' } },
    });
    expect(measure.status).toBe(400);
    expect(measure.body.errors[0].path).toBe('measure');
    const value = await s.call('POST', url, {
      auth: admin(),
      body: { measure: 'value', detector: { type: 'dod' } },
    });
    expect(value.status).toBe(200);
    const unknownType = await s.call('POST', url, { auth: admin(), body: { detector: { type: 'magic' } } });
    expect(unknownType.body.errors[0].path).toBe('detector.type');
    const category = await s.call('POST', url, {
      auth: admin(),
      body: { categories: { planet: 'Mars' }, detector: { type: 'dod' } },
    });
    expect(category.status).toBe(400);
    const series = await s.call('POST', url, {
      auth: admin(),
      body: { seriesId: 999, detector: { type: 'dod' } },
    });
    expect(series.status).toBe(404);
    const view = await s.call('POST', '/api/v1/dataviews/9999/baselines', { auth: admin() });
    expect(view.status).toBe(404);
    const user = await s.call('POST', url, { auth: s.userToken, body: { detector: { type: 'dod' } } });
    expect(user.status).toBe(403);
  });

  it('lists both actions in the OpenAPI document', async () => {
    const doc = await s.call('GET', '/api/v1/openapi.json');
    expect(doc.body.paths['/api/v1/dataviews/{id}/baselines']).toHaveProperty('post');
    expect(JSON.stringify(doc.body.paths['/api/v1/dataviews/{id}/preview-detector'].post)).toContain(
      'detector-preview',
    );
  });
});
