/**
 * kill -9 of a real load worker process mid-stream: the previous data stays intact, the job's lease runs out,
 * the schedule's recovery re-sends it and the next attempt finishes the load.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setContainer } from '../../functions/container';
import { buildContainer, type Container } from '../../lib/app/container';
import { loadConfig } from '../../lib/config/config';
import { schemaNameFor } from '../../lib/dataset/ddl';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';
import { jobs } from '../../lib/db/tables/jobs';
import { recoverStalledJobs } from '../../lib/jobs/schedule';
import { STAGE_TABLE } from '../../lib/pipeline/stage';
import { setLogLevel } from '../../lib/shared/logger';
import { type ServedPglite, servePglite } from '../../scripts/local/pglite-server';
import { loadView } from '../support/detection-fixture';
import { createDeployedView } from '../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../support/pipeline-source';
import { localHarness } from '../support/queue';

const ENV = {
  JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256',
  MASTER_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
  LOG_LEVEL: 'silent',
  SERVICE_STAGE: 'test',
  DATA_DIR: '/tmp/anomaly-monitor-fault',
  LOAD_BATCH_SIZE: '100',
  JOB_MAX_ATTEMPTS: '3',
};

const rows = (factor: number) =>
  Array.from(
    { length: 1000 },
    (_, i) => `(${20240101 + (i % 28)}, 'shop${i % 5}', ${(i + 1) * factor})`,
  ).join(', ');

describe('kill -9 of a load worker process mid-stream', () => {
  let served: ServedPglite;
  let db: Database;
  let c: Container;
  let source: TestSource;
  let child: ChildProcess | undefined;
  const harness = localHarness();

  const total = async (viewId: number) => {
    const s = schemaNameFor(viewId);
    const [r] = await db.rows<{ n: number; sum: number }>(
      sql.raw(`SELECT count(*)::int AS n, coalesce(sum(value), 0)::float8 AS sum FROM ${s}."int"`),
    );
    return { rows: Number(r.n), sum: Number(r.sum) };
  };

  beforeAll(async () => {
    setLogLevel('silent');
    served = await servePglite('memory://');
    db = await connectDatabase({ databaseUrl: served.url, migrate: true, maxConnections: 4 });
    c = await buildContainer(loadConfig({ ...ENV, DATABASE_URL: served.url }), { db });
    setContainer(c);
    await harness.install(c);
    source = await createTestSource();
    c.sources = source.open;
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    setContainer(undefined);
    await db?.close();
    await served?.close();
    await source?.stop();
  });

  it('keeps the previous data, then the retried job finishes the load', async () => {
    await source.exec(
      `CREATE TABLE sales (day integer, shop text, amount double precision); INSERT INTO sales VALUES ${rows(1)}`,
    );
    const viewId = await createDeployedView(db, {
      name: 'killed',
      loadQuery: 'SELECT day, shop, amount FROM sales ORDER BY day, shop',
      categories: [{ name: 'shop' }],
      enabled: false,
    });
    await loadView(db, source, viewId);
    const before = await total(viewId);
    expect(before.rows).toBeGreaterThan(0);
    // The source changes; a load job is queued and a worker process takes it.
    await source.exec(`TRUNCATE sales; INSERT INTO sales VALUES ${rows(10)}`);
    const [job] = await db.orm.insert(jobs).values({ dataViewId: viewId, kind: 'Load' }).returning();

    child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'load-worker-child.ts'), String(job.id), String(viewId)],
      {
        env: { ...process.env, ...ENV, DATABASE_URL: served.url, SOURCE_CONN: source.connString },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child!.on('exit', (code, signal) => resolve({ code, signal })),
    );
    // Mid-stream: two batches read and staged, more to come.
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (d) => {
        out += d;
        if ((out.match(/BATCH/g) ?? []).length >= 2) resolve();
      });
      void exited.then(() => reject(new Error(`the worker exited early: ${out} ${err.slice(0, 2000)}`)));
    });
    expect(out).not.toMatch(/DONE/);
    const staged = await db.rows<{ t: string | null }>(
      sql.raw(`SELECT to_regclass('${schemaNameFor(viewId)}.${STAGE_TABLE}')::text AS t`),
    );
    expect(staged[0].t).not.toBeNull();
    child.kill('SIGKILL');
    expect(await exited).toMatchObject({ signal: 'SIGKILL' });

    // Nothing of the killed attempt is visible; the job still looks running, with a lease.
    expect(await total(viewId)).toEqual(before);
    const [stuck] = await db.orm.select().from(jobs).where(eq(jobs.id, job.id));
    expect(stuck).toMatchObject({ status: 'running', attempts: 1 });
    expect(stuck.leaseUntil).not.toBeNull();

    // The lease runs out (the clock of the recovery is moved past it): re-sent, retried, finished.
    const recovered = await recoverStalledJobs(c, new Date(stuck.leaseUntil!.getTime() + 1000));
    expect(recovered).toEqual([{ jobId: job.id, outcome: 'requeued' }]);
    await harness.idle();
    const [done] = await db.orm.select().from(jobs).where(eq(jobs.id, job.id));
    expect(done).toMatchObject({ status: 'finished', attempts: 2 });
    expect(await total(viewId)).toEqual({ rows: before.rows, sum: before.sum * 10 });
    const left = await db.rows<{ t: string | null }>(
      sql.raw(`SELECT to_regclass('${schemaNameFor(viewId)}.${STAGE_TABLE}')::text AS t`),
    );
    expect(left[0].t).toBeNull();
  });
});
