import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { inProcessDelivery, LocalQueue } from '../../../lib/queue/local';
import { localHarness, type QueueHarness, WORKERS } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

const DAYS = 28; // 2024-01-01 (Monday) .. 2024-01-28
/** Flat at 100, then `last` on 2024-01-26 (the noise model judges a day once it has about three weeks). */
const spikeTo = (last: number) => Array.from({ length: DAYS }, (_, t) => (t === 25 ? last : 100));

type Rec = { seriesId: number; type: string; startDate: string; categories?: Record<string, string | null> };
const countries = (rows: Rec[]) => rows.map((r) => r.categories?.country ?? 'all').sort();

describe(`replay of a changed definition on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let view: number;
  const admin = () => s.adminToken;
  const schema = () => schemaNameFor(view);

  /** The stored records, as rows a reader could see change. */
  const stored = () =>
    s.testDb.db.rows<Record<string, unknown>>(
      sql.raw(
        `SELECT id, series_id, type, start_date::text, end_date::text, actual_value, predicted_value, sin, sim FROM ${schema()}.all_anomalies ORDER BY id`,
      ),
    );

  /** The stored definition with the DOD threshold set to `pct`. */
  async function withThreshold(pct: number): Promise<Record<string, unknown>> {
    const def = (await s.call('GET', `/api/v1/dataviews/${view}`, { auth: admin() })).body;
    def.analysis.detectors[0].params.percentualChange = pct;
    return def;
  }

  async function replay(body: unknown) {
    const queued = await s.call('POST', `/api/v1/dataviews/${view}/replay`, { auth: admin(), body });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body).toMatchObject({ kind: 'Replay', status: 'pending', dataViewId: view });
    await queue.idle();
    const answer = await s.call('GET', `/api/v1/dataviews/${view}/replay/${queued.body.id}`, {
      auth: admin(),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.job).toMatchObject({ id: queued.body.id, kind: 'Replay', status: 'finished' });
    return answer.body.result;
  }

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    // CZ +100 %, DE +40 %, FR +25 % on 2024-01-26; the total +55 %.
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'replay_spikes',
      categories: [{ name: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 30 } }],
      series: [
        { categories: { country: 'CZ' }, values: spikeTo(200) },
        { categories: { country: 'DE' }, values: spikeTo(140) },
        { categories: { country: 'FR' }, values: spikeTo(125) },
      ],
    });
    // The fixture's definition names this connector; a replay checks the definition as saving does.
    const connector = await s.call('POST', '/api/v1/connectors', {
      auth: admin(),
      body: { name: 'test_source', type: 'pgsql', configuration: { conn_string: source.connString } },
    });
    expect(connector.status).toBe(201);
    const processed = await s.call('POST', `/api/v1/dataviews/${view}/jobs/process`, { auth: admin() });
    expect(processed.status).toBe(202);
    await queue.idle();
  }, 300_000);
  afterAll(async () => {
    await queue.stop();
    await source.stop();
    await s.stop();
  });

  it('the same definition replays to no difference', async () => {
    const result = await replay(await withThreshold(30));
    expect(result.counts).toMatchObject({ added: 0, removed: 0, changed: 0 });
    expect(result.counts.before).toBeGreaterThan(0);
    expect(result.counts.unchanged).toBe(result.counts.before);
  });

  it('the same replay run twice answers the same difference, to the last row', async () => {
    const change = await withThreshold(20);
    const [first, second] = [await replay(change), await replay(change)];
    // Only the times of the run may differ.
    const timeless = (r: Record<string, any>) => ({ ...r, run: { ...r.run, readMs: 0, detectMs: 0, ms: 0 } });
    expect(first.counts.added).toBeGreaterThan(0);
    expect(timeless(second)).toEqual(timeless(first));
  });

  it('a higher threshold removes the smaller spike, and nothing is published', async () => {
    const before = await stored();
    const result = await replay(await withThreshold(50));
    expect(countries(result.removed)).toEqual(['DE']);
    expect(result.removed[0]).toMatchObject({ type: 'DOD', startDate: '2024-01-26', result: 'Positive' });
    expect(result.added).toEqual([]);
    expect(result.counts).toMatchObject({ removed: 1, added: 0 });
    expect(result.counts.after).toBe(result.counts.before - 1);
    expect(result.byType).toContainEqual(
      expect.objectContaining({ type: 'DOD', measure: 'value', removed: 1, added: 0 }),
    );
    expect(result.run).toMatchObject({ series: 4, days: DAYS, firstDate: '2024-01-01' });
    // Nothing users see changed: the records, every figure of them, and no table left behind.
    expect(await stored()).toEqual(before);
    const tables = await s.testDb.db.rows<{ table_name: string }>(
      sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema()} AND table_name LIKE 'anomalies_%'`,
    );
    expect(tables).toEqual([]);
    const [{ n }] = await s.testDb.db.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM alert_deliveries`,
    );
    expect(Number(n)).toBe(0);
  });

  it('a lower threshold adds the smallest spike; the YAML document is accepted as well', async () => {
    const yaml = await s.call('GET', `/api/v1/dataviews/${view}`, {
      auth: admin(),
      headers: { accept: 'application/yaml' },
    });
    const text = String(yaml.body).replace(/percentualChange: 30/, 'percentualChange: 20');
    expect(text).toContain('percentualChange: 20');
    const queued = await s.call('POST', `/api/v1/dataviews/${view}/replay`, {
      auth: admin(),
      body: text,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(queued.status).toBe(202);
    await queue.idle();
    const answer = await s.call('GET', `/api/v1/dataviews/${view}/replay/${queued.body.id}`, {
      auth: admin(),
    });
    expect(countries(answer.body.result.added)).toEqual(['FR']);
    expect(answer.body.result.removed).toEqual([]);
  });

  it("a replayed record's chart is drawn with the replayed definition's special dates and params", async () => {
    // Prepare: the edit makes the 26th a special date (no anomaly that day) and DOD 50 %.
    const def = (await withThreshold(50)) as { analysis: Record<string, unknown> };
    def.analysis.specialDates = ['2024-01-26'];
    const queued = await s.call('POST', `/api/v1/dataviews/${view}/replay`, { auth: admin(), body: def });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    await queue.idle();
    const result = (
      await s.call('GET', `/api/v1/dataviews/${view}/replay/${queued.body.id}`, { auth: admin() })
    ).body.result;
    const cz = result.removed.find((r: Rec) => r.categories?.country === 'DE');
    expect(cz, JSON.stringify(result.removed)).toBeDefined();
    // Act: the chart of DE's removed record, and the saved view's chart of the same series.
    const q = `type=${cz.type}&detectorIndex=${cz.detectorIndex}&dateFrom=2024-01-20&dateTo=2024-01-28`;
    const chart = await s.call(
      'GET',
      `/api/v1/dataviews/${view}/replay/${queued.body.id}/series/${cz.seriesId}?${q}`,
      { auth: admin() },
    );
    const saved = await s.call('GET', `/api/v1/dataviews/${view}/series/${cz.seriesId}?${q}`, {
      auth: admin(),
    });
    // Assess: the chart is the replayed definition's (its calendar and params): DE's +40 % is under its 50 %.
    expect(chart.status, JSON.stringify(chart.body)).toBe(200);
    expect(chart.body.definition).toBe('replayed');
    const day = (points: Array<{ date: string; flag: number }>) =>
      points.find((p) => p.date === '2024-01-26');
    expect(day(saved.body.points)?.flag).toBe(1);
    expect(day(chart.body.points)?.flag).toBe(0);
    // A bad type names the field; another view's or an unknown replay is not found.
    const bad = await s.call(
      'GET',
      `/api/v1/dataviews/${view}/replay/${queued.body.id}/series/${cz.seriesId}?type=nope`,
      { auth: admin() },
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('type');
    const missing = await s.call(
      'GET',
      `/api/v1/dataviews/${view}/replay/999999/series/${cz.seriesId}?type=dod`,
      {
        auth: admin(),
      },
    );
    expect(missing.status).toBe(404);
  });

  it('status shows the replay job, and loads and detection are not held up by it', async () => {
    const status = await s.call('GET', `/api/v1/dataviews/${view}/status`, { auth: admin() });
    expect(status.body.jobs.replay).toMatchObject({ kind: 'Replay', status: 'finished' });
    const jobs = await s.call('GET', `/api/v1/jobs?dataViewId=${view}&kind=Replay`, { auth: admin() });
    expect(jobs.body.length).toBe(6);
    expect(jobs.body[0].message).toMatch(/added/);
    // A replay waiting in the queue does not stop a load from being queued.
    const waiting = await s.call('POST', `/api/v1/dataviews/${view}/replay`, {
      auth: admin(),
      body: await withThreshold(40),
    });
    const load = await s.call('POST', `/api/v1/dataviews/${view}/jobs/load`, { auth: admin() });
    expect(load.status).toBe(202);
    await queue.idle();
    const done = await s.call('GET', `/api/v1/jobs/${waiting.body.id}`, { auth: admin() });
    expect(done.body.status).toBe('finished');
  });

  it('refuses a bad definition naming the field, a locked field, and a replay of another view', async () => {
    const bad = await withThreshold(30);
    (
      bad as { analysis: { detectors: Array<{ params: Record<string, unknown> }> } }
    ).analysis.detectors[0].params.percentualChange = 'high';
    const r = await s.call('POST', `/api/v1/dataviews/${view}/replay`, { auth: admin(), body: bad });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.errors)).toContain('percentualChange');

    const locked = await withThreshold(30);
    (locked as { metadata: { name: string } }).metadata.name = 'renamed';
    const l = await s.call('POST', `/api/v1/dataviews/${view}/replay`, { auth: admin(), body: locked });
    expect(l.status).toBe(409);

    const missing = await s.call('GET', `/api/v1/dataviews/${view}/replay/999999`, { auth: admin() });
    expect(missing.status).toBe(404);
    const user = await s.call('POST', `/api/v1/dataviews/${view}/replay`, {
      auth: s.userToken,
      body: await withThreshold(30),
    });
    expect(user.status).toBe(403);
  });

  it('regroups the records into incidents: a higher threshold removes a whole incident, a lower one adds one', async () => {
    // Prepare: the stored incident of the 26th (the cycle grouped the total with the countries that moved).
    const [incident] = await s.testDb.db.rows<{ id: number; size: number }>(
      sql.raw(`SELECT id, size FROM ${schema()}.incidents WHERE start_date = '2024-01-26'`),
    );
    expect(incident, 'the cycle stored an incident of the 26th').toBeDefined();
    // Act: at 200 % no day of any series is an anomaly.
    const gone = await replay(await withThreshold(200));
    // Assess: every record goes, and with them the whole incident, named by its stored id.
    expect(gone.counts).toMatchObject({ after: 0, removed: gone.counts.before });
    expect(gone.incidents.counts).toMatchObject({ after: 0, removed: 1, added: 0, changed: 0 });
    expect(gone.incidents.removed[0]).toMatchObject({
      storedId: Number(incident.id),
      size: Number(incident.size),
      startDate: '2024-01-26',
      result: 'Positive',
    });
    expect(gone.incidents.removed[0].head.categories).toEqual({ country: null });

    // A lower threshold adds FR's +25 %: too small a part of the total's change to be its event (a quarter
    // of it, or alike), so an incident of its own is added and the stored one stays as it is.
    const more = await replay(await withThreshold(20));
    expect(more.incidents.counts).toMatchObject({ added: 1, removed: 0, changed: 0, unchanged: 1 });
    expect(more.incidents.added[0]).toMatchObject({ storedId: null, size: 1, startDate: '2024-01-26' });
    expect(more.incidents.added[0].head.categories).toEqual({ country: 'FR' });
    // The stored incidents are as they were.
    const [after] = await s.testDb.db.rows<{ n: number }>(
      sql.raw(`SELECT count(*)::int AS n FROM ${schema()}.incidents`),
    );
    expect(Number(after.n)).toBe(1);
  });

  it('runs on a queue of its own: a replay finishes while a detection waits on the process queue', async () => {
    // Prepare: a queue whose process worker is busy elsewhere (its messages wait undelivered).
    const delivery = inProcessDelivery({ load: WORKERS.load, replay: WORKERS.replay });
    const saved = s.container.queue;
    s.container.queue = new LocalQueue(delivery, { maxAttempts: 3, retryDelayMs: 0 });
    try {
      const detection = await s.call('POST', `/api/v1/dataviews/${view}/jobs/process`, { auth: admin() });
      expect(detection.status).toBe(202);
      // Act
      const queued = await s.call('POST', `/api/v1/dataviews/${view}/replay`, {
        auth: admin(),
        body: await withThreshold(50),
      });
      expect(queued.status).toBe(202);
      await delivery.idle();
      // Assess: the replay ran past the waiting detection, which still waits.
      const answer = await s.call('GET', `/api/v1/dataviews/${view}/replay/${queued.body.id}`, {
        auth: admin(),
      });
      expect(answer.body.job.status).toBe('finished');
      expect(countries(answer.body.result.removed)).toEqual(['DE']);
      expect(delivery.waiting()).toBe(1);
      const waiting = await s.call('GET', `/api/v1/jobs/${detection.body.id}`, { auth: admin() });
      expect(waiting.body.status).toBe('pending');
    } finally {
      s.container.queue = saved;
    }
  });
});
