/** The job tests every queue adapter must pass: the same HTTP calls, the same worker handlers, only the queue differs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogLevel } from '../../../lib/shared/logger';
import { backendName } from '../../support/db';
import { definitionOf } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import type { QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

const SALES = `CREATE TABLE sales (day integer, country text, city text, amount numeric);
INSERT INTO sales VALUES (20240101, 'CZ', 'Prague', 10), (20240101, 'CZ', 'Brno', 5), (20240102, 'CZ', 'Prague', 12),
  (20240102, 'DE', 'Berlin', 7), (20240103, 'CZ', 'Brno', 6), (20240103, 'DE', 'Berlin', 9);`;

export function jobsContract(makeHarness: () => QueueHarness): void {
  const harness = makeHarness();
  describe(`jobs through the ${harness.name} on ${backendName}`, () => {
    let s: TestService;
    let source: TestSource;
    const admin = () => ({ auth: s.adminToken });
    const post = (path: string, auth: Parameters<TestService['call']>[2] = admin()) =>
      s.call('POST', path, auth);
    const job = async (id: number) => (await s.call('GET', `/api/v1/jobs/${id}`, admin())).body;

    /** Creates a view through the API (connector shop_pg), deploys and, unless told, enables it. */
    const createView = async (
      name: string,
      over: Record<string, unknown> = {},
      enable = true,
    ): Promise<number> => {
      const def = definitionOf({
        name,
        domain: 'shop',
        loadQuery: 'SELECT day, country, city, amount FROM sales',
        categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      }) as unknown as Record<string, Record<string, unknown>>;
      const body = { ...def, source: { ...def.source, connector: 'shop_pg', ...over } };
      const created = await s.call('POST', '/api/v1/dataviews', { ...admin(), body });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as number;
      expect((await post(`/api/v1/dataviews/${id}/deploy`)).status).toBe(200);
      if (enable) expect((await post(`/api/v1/dataviews/${id}/enable`)).status).toBe(200);
      return id;
    };

    beforeAll(async () => {
      s = await startTestService({
        JOB_MAX_ATTEMPTS: '2',
        JOB_RETRY_DELAY_SECONDS: '0',
        CONNECTOR_TIMEOUT_MS: '5000',
      });
      setLogLevel('silent');
      await harness.install(s.container);
      source = await createTestSource();
      await source.exec(SALES);
      const c = await s.call('POST', '/api/v1/connectors', {
        ...admin(),
        body: { name: 'shop_pg', type: 'pgsql', configuration: { conn_string: source.connString } },
      });
      expect(c.status, c.text).toBe(201);
    });
    afterAll(async () => {
      await harness.stop();
      await s.stop();
      await source.stop();
    });

    it('loads a view end to end from the source, builds its series and then runs the process job', async () => {
      const id = await createView('daily');
      const r = await post(`/api/v1/dataviews/${id}/jobs/load`);
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({
        dataViewId: id,
        dataView: 'shop / daily',
        kind: 'Load',
        status: 'pending',
        trigger: 'api',
      });
      await harness.idle();
      const done = await job(r.body.id);
      expect(done).toMatchObject({ status: 'finished', attempts: 1, error: null });
      expect(done.detail).toMatchObject({
        rows: 6,
        series: 6,
        firstDate: '2024-01-01',
        lastDate: '2024-01-03',
        mode: 'full',
      });
      const processJob = await job(done.detail.processJobId);
      expect(processJob).toMatchObject({ kind: 'Process', status: 'finished', trigger: 'load' });
      const m = await s.call('GET', `/api/v1/monitoring/${id}`, admin());
      expect(m.body.dataViews[0]).toMatchObject({
        dataViewId: id,
        state: 'enabled',
        seriesStart: '2024-01-01',
        seriesEnd: '2024-01-03',
        series: 6,
        anomalies: 0,
        jobs: 2,
        pending: 0,
        running: 0,
        finished: 2,
        failed: 0,
      });
      expect(m.body.dataViews[0].lastDataImport).toBe(done.finishedAt);
    });

    it('refuses a second load while one is queued, and clears queued jobs once', async () => {
      const id = await createView('queued');
      harness.pause();
      try {
        const first = await post(`/api/v1/dataviews/${id}/jobs/load`);
        expect(first.status).toBe(202);
        const second = await post('/api/v1/jobs/shop/queued/load');
        expect(second.status).toBe(409);
        expect(second.body.detail).toBe(
          `A load task (job ${first.body.id}, pending) for data view shop/queued is already in the queue`,
        );
        const custom = await post(`/api/v1/dataviews/shop/queued/jobs/load`);
        expect(custom.status).toBe(409);
        const cleared = await post(`/api/v1/dataviews/${id}/jobs/clear`);
        expect(cleared.status).toBe(200);
        expect(cleared.body).toEqual({ dataViewId: id, removed: 1, jobIds: [first.body.id] });
        const again = await post(`/api/v1/dataviews/${id}/jobs/clear`);
        expect(again.status).toBe(409);
        expect(again.body.detail).toBe('No queued jobs were found for data view shop/queued.');
      } finally {
        harness.resume();
      }
      await harness.idle();
      expect((await s.call('GET', `/api/v1/jobs?dataViewId=${id}`, admin())).body).toEqual([]);
    });

    it('starts jobs by domain and name and through the /jobs aliases', async () => {
      await createView('named');
      const load = await post('/api/v1/jobs/shop/named/load');
      expect(load.status).toBe(202);
      await harness.idle();
      const processed = await post('/api/v1/dataviews/shop/named/jobs/process');
      expect(processed.status).toBe(202);
      expect(processed.body.kind).toBe('Process');
      await harness.idle();
      expect((await job(processed.body.id)).status).toBe('finished');
      expect((await post('/api/v1/jobs/shop/nope/load')).status).toBe(404);
    });

    it('follows the state rules of load, process and custom load', async () => {
      const id = await createView(
        'rules',
        { customLoadQuery: 'SELECT day, country, city, amount FROM sales WHERE day = 20240102' },
        false,
      );
      expect((await post(`/api/v1/dataviews/${id}/jobs/load`)).body.detail).toBe(
        'Data view shop/rules is disabled; enable it before starting jobs.',
      );
      expect((await post(`/api/v1/dataviews/${id}/jobs/process`)).status).toBe(409);
      const custom = await post(`/api/v1/dataviews/${id}/jobs/custom-load`);
      expect(custom.status).toBe(202);
      expect(custom.body.kind).toBe('CustomLoad');
      await harness.idle();
      const done = await job(custom.body.id);
      expect(done).toMatchObject({ status: 'finished', detail: { mode: 'days', rows: 2 } });
      // A disabled view gets no process job after its load.
      expect(done.detail.processJobId).toBeUndefined();
      const other = await createView('nocustom');
      const refused = await post(`/api/v1/dataviews/${other}/jobs/custom-load`);
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toBe(
        'Data view shop/nocustom has no custom load query (source.customLoadQuery).',
      );
    });

    it('retries a job whose source fails, then fails it with the reason and dead-letters the message', async () => {
      const id = await createView('broken', {
        loadQuery: 'SELECT day, country, city, amount FROM no_such_table',
      });
      const deadBefore = harness.deadLettered();
      const r = await post(`/api/v1/dataviews/${id}/jobs/load`);
      await harness.idle();
      const failed = await job(r.body.id);
      expect(failed).toMatchObject({ status: 'failed', attempts: 2 });
      expect(failed.error).toMatch(/no_such_table.*\(attempt 2 of 2\)/);
      expect(harness.deadLettered()).toBe(deadBefore + 1);
      const m = await s.call('GET', `/api/v1/monitoring/${id}`, admin());
      expect(m.body.dataViews[0]).toMatchObject({ jobs: 1, failed: 1, lastDataImport: null });
    });

    it('fails a job at once when a row breaks the source query rules', async () => {
      const id = await createView('badrows', {
        loadQuery: "SELECT day, country, city, 'n/a' AS amount FROM sales",
      });
      const r = await post(`/api/v1/dataviews/${id}/jobs/load`);
      await harness.idle();
      expect(await job(r.body.id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        error: "source: row 1 of the load query: the value column amount must be numeric, got 'n/a' (text)",
      });
    });

    it('takes a Bearer token or an API key with the process permission, and hides other views', async () => {
      const id = await createView('access');
      const key = async (permissions: string[]) =>
        (
          await s.call('POST', '/api/v1/api-keys', {
            ...admin(),
            body: { name: permissions.join('+'), permissions },
          })
        ).body.key;
      const reader = await key(['read']);
      const processor = await key(['process']);
      const refused = await post(`/api/v1/dataviews/${id}/jobs/load`, { auth: { apiKey: reader } });
      expect(refused.status).toBe(403);
      const accepted = await post(`/api/v1/dataviews/${id}/jobs/load`, { auth: { apiKey: processor } });
      expect(accepted.status).toBe(202);
      await harness.idle();
      // The data user has no data views: the view is not found, its jobs are not listed.
      expect((await post(`/api/v1/dataviews/${id}/jobs/process`, { auth: s.userToken })).status).toBe(404);
      expect((await s.call('GET', `/api/v1/jobs/${accepted.body.id}`, { auth: s.userToken })).status).toBe(
        404,
      );
      expect((await s.call('GET', '/api/v1/jobs', { auth: s.userToken })).body).toEqual([]);
      expect((await s.call('GET', '/api/v1/monitoring', { auth: s.userToken })).body.dataViews).toEqual([]);
      expect((await post(`/api/v1/dataviews/${id}/jobs/clear`, { auth: s.userToken })).status).toBe(403);
      expect((await post(`/api/v1/dataviews/${id}/jobs/load`, { auth: null })).status).toBe(401);
    });

    it('lists jobs by view and status, newest first', async () => {
      const all = (await s.call('GET', '/api/v1/jobs?status=failed', admin())).body as Array<{
        status: string;
        id: number;
      }>;
      expect(all.length).toBeGreaterThanOrEqual(2);
      expect(all.every((j) => j.status === 'failed')).toBe(true);
      expect(all.map((j) => j.id)).toEqual([...all.map((j) => j.id)].sort((a, b) => b - a));
      expect((await s.call('GET', '/api/v1/jobs?status=done', admin())).status).toBe(400);
      const monitoring = (await s.call('GET', '/api/v1/monitoring', admin())).body;
      expect(monitoring.totals.dataViews).toBe(monitoring.dataViews.length);
      expect(monitoring.totals.failed).toBeGreaterThanOrEqual(2);
    });
  });
}
