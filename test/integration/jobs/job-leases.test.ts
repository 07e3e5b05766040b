/** Jobs never get stuck: leases renewed while working, expired leases recovered on every backend, clear cancels, one run at a time, SQS backoff. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config/config';
import { jobs } from '../../../lib/db/tables/jobs';
import type { Caller } from '../../../lib/identity/caller';
import { clearQueuedJobs, type JobDeps } from '../../../lib/jobs/enqueue';
import { LEASE_SECONDS } from '../../../lib/jobs/repository';
import { type RunnerDeps, runJobAttempt } from '../../../lib/jobs/runner';
import { recoverStalledJobs } from '../../../lib/jobs/schedule';
import type { JobMessage, JobQueue } from '../../../lib/queue/port';
import { SqsQueue } from '../../../lib/queue/sqs';
import { sqsRecord } from '../../../lib/queue/records';
import { fixedClock } from '../../../lib/shared/clock';
import { logger, setLogLevel } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDeployedView } from '../../support/pipeline-fixture';

const admin: Caller = {
  userId: 1,
  email: 'admin@example.com',
  role: 'admin',
  permissions: new Set(['read', 'process', 'admin']),
  via: 'token',
  dataViews: 'all',
};

describe(`job leases on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: RunnerDeps;
  let viewId: number;
  const clock = fixedClock('2024-05-01T10:00:00Z');
  const sent: JobMessage[] = [];
  const sqsLike: JobQueue = {
    backend: 'sqs',
    send: async (_q, m) => void sent.push(m),
    redeliver: async () => {},
  };
  const jobDeps = (): JobDeps => ({
    db: t.db,
    queue: sqsLike,
    clock,
    config: loadConfig({ JOB_MAX_ATTEMPTS: '3', JOB_TIMEOUT_SECONDS: '600', LOG_LEVEL: 'silent' }),
  });
  const newJob = async (kind: 'Load' | 'Process' = 'Load') =>
    (await t.db.orm.insert(jobs).values({ dataViewId: viewId, kind, status: 'pending' }).returning())[0];
  const read = async (id: number) => (await t.db.orm.select().from(jobs).where(eq(jobs.id, id)))[0];
  const message = (id: number): JobMessage => ({ jobId: id, dataViewId: viewId, kind: 'Load' });
  const until = async (cond: () => Promise<boolean> | boolean) => {
    for (let i = 0; i < 500 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await cond()).toBe(true);
  };

  beforeAll(async () => {
    setLogLevel('silent');
    t = await createTestDatabase();
    deps = { db: t.db, clock, log: logger, maxAttempts: 3, timeoutSeconds: 600, renewEveryMs: 10 };
    viewId = await createDeployedView(t.db, { loadQuery: 'SELECT 1', categories: [{ name: 'shop' }] });
  });
  afterAll(() => t.drop());

  it('holds a lease renewed while the job works, and runs a duplicate delivery not at all', async () => {
    const job = await newJob();
    let release: () => void = () => {};
    let runs = 0;
    const work = async () => {
      runs++;
      await new Promise<void>((r) => {
        release = r;
      });
      return { rows: 1 };
    };
    const first = runJobAttempt(deps, message(job.id), work, new AbortController().signal);
    await until(async () => (await read(job.id)).status === 'running');
    const claimed = (await read(job.id)).leaseUntil!;
    expect(claimed.toISOString()).toBe(new Date(clock.now().getTime() + LEASE_SECONDS * 1000).toISOString());
    // Time passes while it works: the lease follows.
    clock.set('2024-05-01T10:05:00Z');
    await until(async () => (await read(job.id)).leaseUntil!.getTime() > claimed.getTime());
    // The same message delivered again while the attempt runs: dropped, not run.
    expect(await runJobAttempt(deps, message(job.id), work, new AbortController().signal)).toBe('done');
    expect(runs).toBe(1);
    release();
    expect(await first).toBe('done');
    expect(await read(job.id)).toMatchObject({ status: 'finished', attempts: 1, leaseUntil: null });
    clock.set('2024-05-01T10:00:00Z');
  });

  it('recovers a running job whose lease expired on SQS too: re-sent, then failed on its last attempt', async () => {
    const job = await newJob();
    await t.db.orm
      .update(jobs)
      .set({
        status: 'running',
        attempts: 1,
        startedAt: clock.now(),
        leaseUntil: new Date('2024-05-01T09:59:00Z'),
      })
      .where(eq(jobs.id, job.id));
    sent.length = 0;
    const recovered = await recoverStalledJobs(jobDeps(), clock.now());
    expect(recovered).toContainEqual({ jobId: job.id, outcome: 'requeued' });
    expect(sent).toEqual([message(job.id)]);
    expect(await read(job.id)).toMatchObject({ status: 'pending', leaseUntil: null });
    // A live lease is left alone.
    await t.db.orm
      .update(jobs)
      .set({ status: 'running', attempts: 3, leaseUntil: new Date('2024-05-01T10:00:30Z') })
      .where(eq(jobs.id, job.id));
    expect((await recoverStalledJobs(jobDeps(), clock.now())).map((r) => r.jobId)).not.toContain(job.id);
    await t.db.orm
      .update(jobs)
      .set({ leaseUntil: new Date('2024-05-01T09:59:59Z') })
      .where(eq(jobs.id, job.id));
    expect(await recoverStalledJobs(jobDeps(), clock.now())).toContainEqual({
      jobId: job.id,
      outcome: 'failed',
    });
    expect((await read(job.id)).error).toMatch(/stopped without finishing.*attempt 3 of 3/);
  });

  it('jobs/clear cancels a running job that lost its worker, freeing the view for a new load', async () => {
    const job = await newJob();
    await t.db.orm
      .update(jobs)
      .set({
        status: 'running',
        attempts: 1,
        startedAt: clock.now(),
        leaseUntil: new Date('2024-05-01T09:58:00Z'),
      })
      .where(eq(jobs.id, job.id));
    // The one-active-load rule refuses a second load of the view.
    expect(
      await t.db.orm
        .insert(jobs)
        .values({ dataViewId: viewId, kind: 'Load' })
        .onConflictDoNothing()
        .returning(),
    ).toEqual([]);
    const cleared = await clearQueuedJobs(jobDeps(), admin, viewId);
    expect(cleared).toMatchObject({ removed: 0, cancelled: [job.id] });
    expect(await read(job.id)).toMatchObject({ status: 'failed' });
    expect((await read(job.id)).error).toMatch(/Cancelled by admin@example.com: its worker had stopped/);
    const next = await newJob();
    expect(next.status).toBe('pending');
    await t.db.orm.delete(jobs).where(eq(jobs.id, next.id));
  });

  it('jobs/clear with force cancels a live attempt, which stops and records nothing over it', async () => {
    const job = await newJob();
    let aborted: unknown;
    const work = (_j: unknown, signal: AbortSignal) =>
      new Promise<Record<string, unknown>>((_r, reject) => {
        signal.addEventListener('abort', () => {
          aborted = signal.reason;
          reject(signal.reason);
        });
      });
    const run = runJobAttempt(deps, message(job.id), work, new AbortController().signal);
    await until(async () => (await read(job.id)).status === 'running');
    await expect(clearQueuedJobs(jobDeps(), admin, viewId)).rejects.toThrow(/No queued jobs/);
    expect(await clearQueuedJobs(jobDeps(), admin, viewId, { force: true })).toMatchObject({
      cancelled: [job.id],
    });
    expect(await run).toBe('done');
    expect(String(aborted)).toMatch(/cancelled or taken over/);
    expect(await read(job.id)).toMatchObject({
      status: 'failed',
      error: 'Cancelled by admin@example.com (jobs/clear with force).',
    });
  });
});

describe('SQS retry backoff', () => {
  it('sets the visibility of failed records to seconds-to-minutes, doubling with the receive count', async () => {
    const commands: Array<{ input: { QueueUrl: string; Entries: Array<{ VisibilityTimeout: number }> } }> =
      [];
    const client = { send: async (c: never) => void commands.push(c) } as never;
    const q = new SqsQueue(client, { load: 'https://sqs.local/000/jobs-load' }, 30);
    const m: JobMessage = { jobId: 1, dataViewId: 1, kind: 'Load' };
    await q.redeliver(
      'load',
      [1, 2, 3, 8].map((n) => sqsRecord('load', m, n)),
    );
    expect(commands).toHaveLength(1);
    expect(commands[0].input.QueueUrl).toBe('https://sqs.local/000/jobs-load');
    expect(commands[0].input.Entries.map((e) => e.VisibilityTimeout)).toEqual([30, 60, 120, 900]);
  });
});
