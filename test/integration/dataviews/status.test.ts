/**
 * Status and monitoring per job kind: the newest load, custom load and process job each with its state,
 * times, message, rows and progress; the loaded data's counts from job records and catalog estimates;
 * and (on PostgreSQL, where a second connection exists) no wait behind a load's exclusive locks.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../lib/db/connect';
import { deployDataView, disableDataView, enableDataView } from '../../../lib/dataviews/lifecycle';
import { createDataView, getDataView, updateDataView } from '../../../lib/dataviews/service';
import { getDataViewStatus } from '../../../lib/jobs/view-status';
import type { DataViewDeps } from '../../../lib/dataviews/types';
import { systemCaller } from '../../../lib/identity/caller';
import { getJob, getMonitoring } from '../../../lib/jobs/queries';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { fixtureText, insertConnector } from './support';

describe(`data view status per job kind on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: DataViewDeps;
  let id = 0;
  const admin = systemCaller();
  const clock = fixedClock('2025-01-15T08:00:00Z');

  const insertJob = async (
    kind: string,
    status: string,
    at: string,
    detail: object,
    error: string | null = null,
  ) =>
    (
      await t.db.rows<{ id: number }>(sql`
        INSERT INTO jobs (data_view_id, kind, status, trigger, attempts, error, detail, created_at, started_at, finished_at)
        VALUES (${id}, ${kind}, ${status}, 'api', 1, ${error}, ${JSON.stringify(detail)}::jsonb, ${at}::timestamptz,
          ${at}::timestamptz, ${status === 'finished' || status === 'failed' ? at : null}::timestamptz)
        RETURNING id`)
    )[0].id;

  beforeAll(async () => {
    t = await createTestDatabase();
    deps = { db: t.db, clock, config: { license: { plan: 'test', maxDataViews: 100 }, timeZone: 'UTC' } };
    await insertConnector(t.db);
    ({ id } = await createDataView(deps, admin, fixtureText('minimal.yaml')));
    await deployDataView(deps, admin, id);
    await enableDataView(deps, admin, id);
  });
  afterAll(() => t.drop());

  it('shows the newest job of each kind, so a running detection keeps the load outcome visible', async () => {
    await insertJob('Load', 'finished', '2025-01-15T06:00:00Z', {
      rows: 27452,
      series: 84,
      dataRows: 73128,
      firstDate: '2024-05-26',
      lastDate: '2025-01-14',
    });
    await insertJob('CustomLoad', 'failed', '2025-01-15T06:30:00Z', {}, 'source: connection refused');
    await insertJob('Process', 'finished', '2025-01-15T05:00:00Z', { anomalies: 10, keptAnomalies: 5 });
    const running = await insertJob('Process', 'running', '2025-01-15T07:00:00Z', {
      shards: 8,
      shardsDone: [0, 3, 5],
    });
    const s = await getDataViewStatus(deps, admin, id);
    expect(s.lastJob).toMatchObject({ id: running, kind: 'Process', status: 'running' });
    expect(s.jobs?.load).toMatchObject({
      kind: 'Load',
      status: 'finished',
      rows: 27452,
      finishedAt: '2025-01-15T06:00:00.000Z',
      message: '27,452 rows, 84 series, 2024-05-26 – 2025-01-14',
    });
    expect(s.jobs?.customLoad).toMatchObject({ status: 'failed', message: 'source: connection refused' });
    expect(s.jobs?.process).toMatchObject({
      id: running,
      status: 'running',
      progress: { done: 3, total: 8, unit: 'shards' },
    });
    expect(s.activeJobs).toEqual({ pending: 0, running: 1 });
    // Counts of the loaded data from the records: the last finished load and detection.
    expect(s.dataset).toMatchObject({
      firstDate: '2024-05-26',
      lastDate: '2025-01-14',
      series: 84,
      rows: 27452,
      dataRows: 73128,
      anomalies: 15,
      source: 'jobs',
    });
    expect(s.rowCountsEstimated).toBe(true);
    expect(Object.keys(s.rowCounts ?? {})).toEqual(
      expect.arrayContaining(['data', 'all_series', 'all_anomalies']),
    );

    // The same job record through GET /jobs/{id} and the monitoring row.
    expect(await getJob(t.db, admin, running)).toMatchObject({ progress: { done: 3, total: 8 } });
    const m = await getMonitoring({ db: t.db, clock }, admin, id);
    expect(m.dataViews[0]).toMatchObject({
      series: 84,
      anomalies: 15,
      seriesStart: '2024-05-26',
      loadedRows: 27452,
      jobsByKind: {
        load: { status: 'finished', rows: 27452 },
        customLoad: { status: 'failed' },
        process: { status: 'running', progress: { done: 3, total: 8 } },
      },
    });
  });

  it('shows the next scheduled load of an enabled cron view, and none for an API-triggered or disabled one', async () => {
    expect((await getDataViewStatus(deps, admin, id)).schedule).toEqual({
      trigger: 'api',
      cron: null,
      timeZone: 'UTC',
      nextLoadAt: null,
    });
    const doc = await getDataView(deps, admin, id);
    await updateDataView(deps, admin, id, {
      ...doc,
      source: { ...doc.source, trigger: 'cron', cron: '0 30 6 * * *' },
    });
    // The clock stands at 08:00 UTC: today's 06:30 has passed, so tomorrow's.
    expect((await getDataViewStatus(deps, admin, id)).schedule).toEqual({
      trigger: 'cron',
      cron: '0 30 6 * * *',
      timeZone: 'UTC',
      nextLoadAt: '2025-01-16T06:30:00.000Z',
    });
    const prague = await getDataViewStatus({ ...deps, config: { timeZone: 'Europe/Prague' } }, admin, id);
    expect(prague.schedule.nextLoadAt).toBe('2025-01-16T05:30:00.000Z');
    await disableDataView(deps, admin, id);
    expect((await getDataViewStatus(deps, admin, id)).schedule.nextLoadAt).toBeNull();
    await enableDataView(deps, admin, id);
  });

  it('reads row counts from the catalog estimates (ANALYZE), not by counting', async () => {
    await t.db.rows(sql.raw(`INSERT INTO dv_${id}.days (day, series) VALUES (20240101, 10), (20240102, 11)`));
    const before = (await getDataViewStatus(deps, admin, id)).rowCounts!;
    expect(before.days === null || before.days === 0).toBe(true);
    await t.db.rows(sql.raw(`ANALYZE dv_${id}.days`));
    expect((await getDataViewStatus(deps, admin, id)).rowCounts!.days).toBe(2);
  });

  it("lists neither a running load's build tables nor the partitions of data (PGlite's build), and counts a partitioned data", async () => {
    const s = `dv_${id}`;
    await t.db.rows(sql.raw(`CREATE TABLE ${s}.build_7_1_cat_map (series_id integer)`));
    await t.db.rows(sql.raw(`ALTER TABLE ${s}.data RENAME TO data_plain`));
    try {
      await t.db.rows(
        sql.raw(`CREATE TABLE ${s}.data (series_id integer NOT NULL, day integer NOT NULL, value double precision NOT NULL,
          cnt double precision NOT NULL DEFAULT 0, filled boolean NOT NULL DEFAULT false) PARTITION BY RANGE (series_id)`),
      );
      await t.db.rows(sql.raw(`CREATE TABLE ${s}.data_p0 PARTITION OF ${s}.data FOR VALUES FROM (1) TO (3)`));
      await t.db.rows(
        sql.raw(`CREATE TABLE ${s}.data_p1 PARTITION OF ${s}.data FOR VALUES FROM (3) TO (10)`),
      );
      await t.db.rows(
        sql.raw(
          `INSERT INTO ${s}.data (series_id, day, value) VALUES (1, 20240101, 1), (2, 20240101, 2), (5, 20240101, 5)`,
        ),
      );
      await t.db.rows(sql.raw(`ANALYZE ${s}.data`));
      const status = await getDataViewStatus(deps, admin, id);
      expect(status.tables).toContain('data');
      expect(status.tables.filter((x) => x.startsWith('build_') || x.startsWith('data_'))).toEqual([
        'data_plain',
      ]);
      expect(status.rowCounts!.data).toBe(3);
    } finally {
      await t.db.rows(sql.raw(`DROP TABLE ${s}.build_7_1_cat_map, ${s}.data`));
      await t.db.rows(sql.raw(`ALTER TABLE ${s}.data_plain RENAME TO data`));
    }
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'answers while another session holds a load-style ACCESS EXCLUSIVE lock on the data tables',
    async () => {
      const other = await connectDatabase({ databaseUrl: t.url!, maxConnections: 1 });
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => {
        locked = r;
      });
      const tx = other.tx(async (x) => {
        await x.rows(
          sql.raw(
            `LOCK TABLE dv_${id}.data, dv_${id}.all_series, dv_${id}.all_anomalies IN ACCESS EXCLUSIVE MODE`,
          ),
        );
        locked();
        await held;
      });
      try {
        await isLocked;
        // Would block until release if status read the tables (count(*) takes ACCESS SHARE).
        const answer = await Promise.race([
          getDataViewStatus(deps, admin, id).then(() => 'answered'),
          new Promise((r) => setTimeout(() => r('blocked'), 5000)),
        ]);
        expect(answer).toBe('answered');
        const monitoring = await Promise.race([
          getMonitoring({ db: t.db, clock }, admin, id).then(() => 'answered'),
          new Promise((r) => setTimeout(() => r('blocked'), 5000)),
        ]);
        expect(monitoring).toBe('answered');
      } finally {
        release();
        await tx;
        await other.close();
      }
    },
  );
});
