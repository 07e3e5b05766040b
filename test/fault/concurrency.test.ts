/**
 * The fault suite, concurrency: two services migrating one empty database at once, two process jobs of one view
 * at once, a clean while a load runs. Each ends in one clear state: migrations applied once, one detection at
 * a time, and no load that puts its build in place after the view was cleaned.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../lib/dataset/ddl';
import { connectDatabase } from '../../lib/db/connect';
import { migrations } from '../../lib/db/migrations/index';
import { cleanDataView } from '../../lib/dataviews/lifecycle';
import { deleteJobsOfView, findJob, insertJob, type JobRow } from '../../lib/jobs/repository';
import { runJobAttempt } from '../../lib/jobs/runner';
import { runLoad } from '../../lib/pipeline/load';
import { systemCaller } from '../../lib/identity/caller';
import { fixedClock } from '../../lib/shared/clock';
import { logger, setLogLevel } from '../../lib/shared/logger';
import { createTestDatabase, serverUrl, type TestDatabase } from '../support/db';
import { loadedDetectionView, writeSource } from '../support/detection-fixture';
import { createTestSource, type TestSource } from '../support/pipeline-source';

setLogLevel('silent');

describe.skipIf(!serverUrl)('two services migrating one empty PostgreSQL database at once', () => {
  it('applies every migration once; both services start', async () => {
    const { default: postgres } = await import('postgres');
    const admin = postgres(serverUrl as string, { max: 1, onnotice: () => {} });
    const name = `test_migrate_${randomBytes(4).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl as string);
    url.pathname = `/${name}`;
    try {
      const both = await Promise.all([
        connectDatabase({ databaseUrl: url.toString(), migrate: true }),
        connectDatabase({ databaseUrl: url.toString(), migrate: true }),
      ]);
      const rows = await both[0].rows<{ name: string }>(
        sql`SELECT name FROM service_migrations ORDER BY name`,
      );
      expect(rows.map((r) => r.name)).toEqual(migrations.map((m) => m.name).sort());
      await Promise.all(both.map((db) => db.close()));
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('jobs of one view at once', () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;
  const clock = fixedClock('2025-01-15T08:00:00Z');
  const flat = () => Array.from({ length: 14 }, () => 100);
  const spec = (countries: string[]) => ({
    name: 'concurrent_jobs',
    categories: [{ name: 'country' }],
    detectors: [],
    series: countries.map((country) => ({ categories: { country }, values: flat() })),
  });

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    viewId = await loadedDetectionView(t.db, source, spec(['CZ', 'DE']));
  });
  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  it('two process jobs delivered at once: one runs, the other waits for it and is sent again when it ends', async () => {
    const a = (await insertJob(t.db, {
      dataViewId: viewId,
      kind: 'Process',
      trigger: 'api',
      createdAt: new Date(),
    }))!;
    const b = (await insertJob(t.db, {
      dataViewId: viewId,
      kind: 'Process',
      trigger: 'api',
      createdAt: new Date(),
    }))!;
    let active = 0;
    let most = 0;
    const ran: number[] = [];
    const work = async (job: JobRow) => {
      active++;
      most = Math.max(most, active);
      ran.push(job.id);
      await new Promise((r) => setTimeout(r, 300));
      active--;
      return { ok: true };
    };
    const resent: number[] = [];
    const deps = {
      db: t.db,
      clock,
      log: logger,
      maxAttempts: 3,
      timeoutSeconds: 600,
      resend: async (job: JobRow) => {
        resent.push(job.id);
      },
    };
    const attempt = (job: JobRow) =>
      runJobAttempt(
        deps,
        { jobId: job.id, dataViewId: viewId, kind: 'Process' },
        work,
        new AbortController().signal,
      );
    await Promise.all([attempt(a), attempt(b)]);
    expect(ran).toHaveLength(1);
    const waiting = ran[0] === a.id ? b : a;
    expect((await findJob(t.db, waiting.id))?.status).toBe('pending');
    expect((await findJob(t.db, waiting.id))?.detail).toMatchObject({ waitingFor: ran[0] });
    // The running one ended: the waiting one was sent again, and runs now.
    expect(resent).toEqual([waiting.id]);
    await attempt(waiting);
    expect(ran).toEqual([ran[0], waiting.id]);
    expect(most).toBe(1);
    expect((await findJob(t.db, waiting.id))?.status).toBe('finished');
  });

  it('a job whose view frees while it is being marked as waiting runs at once, not at the next schedule tick', async () => {
    // The load that queued this process job ends between the process job's failed claim and its mark as
    // waiting: the load looked for waiting jobs before the mark, so it sent nothing again.
    const a = (await insertJob(t.db, {
      dataViewId: viewId,
      kind: 'Load',
      trigger: 'api',
      createdAt: new Date(),
    }))!;
    const b = (await insertJob(t.db, {
      dataViewId: viewId,
      kind: 'Process',
      trigger: 'api',
      createdAt: new Date(),
    }))!;
    await t.db.rows(sql`UPDATE jobs SET status = 'running', attempts = 1,
      lease_until = now() + interval '10 minutes' WHERE id = ${a.id}`);
    let endedOther = false;
    const db = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop !== 'rows') return Reflect.get(target, prop, receiver);
        return async (query: Parameters<typeof target.rows>[0]) => {
          const text = JSON.stringify(query);
          if (!endedOther && text.includes('waitingFor')) {
            endedOther = true;
            await target.rows(sql`UPDATE jobs SET status = 'finished', finished_at = now(), lease_until = NULL
              WHERE id = ${a.id}`);
          }
          return target.rows(query);
        };
      },
    });
    const ran: number[] = [];
    const outcome = await runJobAttempt(
      { db, clock, log: logger, maxAttempts: 3, timeoutSeconds: 600, resend: async () => {} },
      { jobId: b.id, dataViewId: viewId, kind: 'Process' },
      async (job: JobRow) => {
        ran.push(job.id);
        return { ok: true };
      },
      new AbortController().signal,
    );
    expect(endedOther).toBe(true);
    expect(outcome).toBe('done');
    expect(ran).toEqual([b.id]);
    expect((await findJob(t.db, b.id))?.status).toBe('finished');
  });

  it('a job whose view frees between its failed claim and the look at the view runs at once', async () => {
    // The load that queued this process job ends after the process job's claim failed and before it looked
    // for the running job of its view: the job is pending, nothing runs, and nothing would send it again.
    const a = (await insertJob(t.db, {
      dataViewId: viewId,
      kind: 'Load',
      trigger: 'api',
      createdAt: new Date(),
    }))!;
    const b = (await insertJob(t.db, {
      dataViewId: viewId,
      kind: 'Process',
      trigger: 'api',
      createdAt: new Date(),
    }))!;
    await t.db.rows(sql`UPDATE jobs SET status = 'running', attempts = 1,
      lease_until = now() + interval '10 minutes' WHERE id = ${a.id}`);
    let endedOther = false;
    const db = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop !== 'rows') return Reflect.get(target, prop, receiver);
        return async (query: Parameters<typeof target.rows>[0]) => {
          if (!endedOther && JSON.stringify(query).includes('ORDER BY id LIMIT 1')) {
            endedOther = true;
            await target.rows(sql`UPDATE jobs SET status = 'finished', finished_at = now(), lease_until = NULL
              WHERE id = ${a.id}`);
          }
          return target.rows(query);
        };
      },
    });
    const ran: number[] = [];
    const outcome = await runJobAttempt(
      { db, clock, log: logger, maxAttempts: 3, timeoutSeconds: 600, resend: async () => {} },
      { jobId: b.id, dataViewId: viewId, kind: 'Process' },
      async (job: JobRow) => {
        ran.push(job.id);
        return { ok: true };
      },
      new AbortController().signal,
    );
    expect(endedOther).toBe(true);
    expect(outcome).toBe('done');
    expect(ran).toEqual([b.id]);
    expect((await findJob(t.db, b.id))?.status).toBe('finished');
  });

  it('a clean while a load reads its source: the load does not put its build in place afterwards', async () => {
    await writeSource(source, spec(['CZ', 'DE', 'PL', 'AT']));
    const job = (await insertJob(t.db, {
      dataViewId: viewId,
      kind: 'Load',
      trigger: 'api',
      createdAt: new Date(),
    }))!;
    await t.db.rows(sql`UPDATE jobs SET status = 'running', attempts = 1,
      lease_until = now() + interval '10 minutes' WHERE id = ${job.id}`);
    const deps = {
      db: t.db,
      clock,
      config: { license: { plan: 'test', maxDataViews: 100 }, timeZone: 'UTC' },
      forgetJobs: deleteJobsOfView,
    };
    // The clean comes while the load reads its source, before it builds (the clean also drops build tables).
    const outcome = await runLoad(
      {
        db: t.db,
        log: logger,
        openSource: async (...args: Parameters<TestSource['open']>) => {
          await cleanDataView(deps, systemCaller(), viewId);
          return source.open(...args);
        },
        batchSize: 10_000,
      },
      { ...job, status: 'running', attempts: 1 },
      new AbortController().signal,
    ).then(
      () => 'swapped',
      (e: Error) => e.message,
    );
    const s = schemaNameFor(viewId);
    const [n] = await t.db.rows<{ series: number; leftovers: number }>(
      sql.raw(`SELECT
      (SELECT count(*) FROM ${s}.all_series)::int AS series,
      (SELECT count(*) FROM information_schema.tables WHERE table_schema = '${s}' AND table_name LIKE 'build\\_%')::int AS leftovers`),
    );
    // The load fails (its staging table or its job row went with the clean); the clean is what stays.
    expect(outcome).not.toBe('swapped');
    expect(n).toEqual({ series: 0, leftovers: 0 });
  });
});
