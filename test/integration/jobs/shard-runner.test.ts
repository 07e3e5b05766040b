import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../../lib/db/tables/jobs';
import { createStage, stageRunIds } from '../../../lib/process-job/anomaly-store';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { markShardDone } from '../../../lib/jobs/repository';
import { DETACHED, deadLetterJob, type RunnerDeps, runJobAttempt } from '../../../lib/jobs/runner';
import { runShardAttempt, type ShardWork } from '../../../lib/jobs/shard-attempt';
import { abandonRun } from '../../../lib/process-job/fan-out';
import { fixedClock } from '../../../lib/shared/clock';
import { logger, setLogLevel } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDeployedView } from '../../support/pipeline-fixture';

describe(`shard messages of a fanned-out job on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: RunnerDeps;
  let viewId: number;
  const clock = fixedClock('2024-05-01T10:00:00Z');
  const signal = new AbortController().signal;
  const runningJob = async () =>
    (
      await t.db.orm
        .insert(jobs)
        .values({
          dataViewId: viewId,
          kind: 'Process',
          status: 'running',
          attempts: 1,
          startedAt: clock.now(),
        })
        .returning()
    )[0];
  const read = async (id: number) => (await t.db.orm.select().from(jobs).where(eq(jobs.id, id)))[0];
  const message = (jobId: number, index: number, attempt = 1) => ({
    jobId,
    dataViewId: viewId,
    kind: 'Process' as const,
    shard: { runId: jobId, index, count: 2, attempt },
  });
  const work = (run: ShardWork['run'], abandoned: number[] = []): ShardWork => ({
    run,
    abandon: async (job) => {
      abandoned.push(job.id);
    },
  });

  beforeAll(async () => {
    setLogLevel('silent');
    t = await createTestDatabase();
    deps = { db: t.db, clock, log: logger, maxAttempts: 2, timeoutSeconds: 600 };
    viewId = await createDeployedView(t.db, { loadQuery: 'SELECT 1', categories: [{ name: 'shop' }] });
  });
  afterAll(() => t.drop());

  it('counts each shard once, and not at all once the job stopped running', async () => {
    const job = await runningJob();
    expect(await markShardDone(t.db, job.id, 1, clock.now())).toBe(1);
    expect(await markShardDone(t.db, job.id, 1, clock.now())).toBeUndefined();
    expect(await markShardDone(t.db, job.id, 0, clock.now())).toBe(2);
    await t.db.orm.update(jobs).set({ status: 'failed' }).where(eq(jobs.id, job.id));
    expect(await markShardDone(t.db, job.id, 2, clock.now())).toBeUndefined();
  });

  it('leaves a job that handed on to its shards running', async () => {
    const pending = (
      await t.db.orm
        .insert(jobs)
        .values({ dataViewId: viewId, kind: 'Process', status: 'pending' })
        .returning()
    )[0];
    const outcome = await runJobAttempt(
      deps,
      { jobId: pending.id, dataViewId: viewId, kind: 'Process' },
      async () => DETACHED,
      signal,
    );
    expect(outcome).toBe('done');
    expect(await read(pending.id)).toMatchObject({ status: 'running', attempts: 1, finishedAt: null });
  });

  it('finishes the job with the detail of the shard that completed the run', async () => {
    const job = await runningJob();
    expect(
      await runShardAttempt(
        deps,
        message(job.id, 0),
        work(async () => undefined),
        1,
        signal,
      ),
    ).toBe('done');
    expect((await read(job.id)).status).toBe('running');
    expect(
      await runShardAttempt(
        deps,
        message(job.id, 1),
        work(async () => ({ anomalies: 4 })),
        1,
        signal,
      ),
    ).toBe('done');
    expect(await read(job.id)).toMatchObject({ status: 'finished', detail: { anomalies: 4 } });
  });

  it('drops a shard of an earlier attempt without running it', async () => {
    const job = await runningJob();
    let ran = false;
    const outcome = await runShardAttempt(
      deps,
      message(job.id, 0, 0),
      work(async () => {
        ran = true;
        return undefined;
      }),
      1,
      signal,
    );
    expect(outcome).toBe('done');
    expect(ran).toBe(false);
  });

  it('retries a failing shard, then fails the job and abandons the run on the last delivery', async () => {
    const job = await runningJob();
    const abandoned: number[] = [];
    const failing = work(async () => Promise.reject(new Error('worker crashed')), abandoned);
    expect(await runShardAttempt(deps, message(job.id, 1), failing, 1, signal)).toBe('retry');
    expect((await read(job.id)).status).toBe('running');
    expect(abandoned).toEqual([]);
    expect(await runShardAttempt(deps, message(job.id, 1), failing, 2, signal)).toBe('retry');
    expect(await read(job.id)).toMatchObject({
      status: 'failed',
      error: 'shard 2 of 2 failed: worker crashed',
    });
    expect(abandoned).toEqual([job.id]);
  });

  it('fails a job whose shard was dead-lettered by a crash, naming the shard, and drops the run it left', async () => {
    const job = await runningJob();
    const schema = schemaNameFor(viewId);
    await createStage(t.db, schema, job.id);
    expect(await stageRunIds(t.db, schema)).toContain(job.id);
    await deadLetterJob(deps, message(job.id, 1), (j) => abandonRun(t.db, j));
    expect(await read(job.id)).toMatchObject({
      status: 'failed',
      error:
        'Shard 2 of 2 of the job reached the dead-letter queue after 1 attempt(s) (the worker crashed, timed out or kept failing)',
    });
    expect(await stageRunIds(t.db, schema)).not.toContain(job.id);
  });

  it('leaves the running attempt alone when a shard of an earlier attempt is dead-lettered', async () => {
    const job = await runningJob();
    const abandoned: number[] = [];
    await deadLetterJob(deps, message(job.id, 0, 0), async (j) => {
      abandoned.push(j.id);
    });
    expect((await read(job.id)).status).toBe('running');
    expect(abandoned).toEqual([]);
  });
});
