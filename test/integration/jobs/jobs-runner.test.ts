import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../../lib/db/tables/jobs';
import { deadLetterJob, type JobWork, type RunnerDeps, runJobAttempt } from '../../../lib/jobs/runner';
import { fixedClock } from '../../../lib/shared/clock';
import { UpstreamError, ValidationError } from '../../../lib/shared/errors';
import { logger, setLogLevel } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDeployedView } from '../../support/pipeline-fixture';

describe(`one attempt at a job on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: RunnerDeps;
  let viewId: number;
  const clock = fixedClock('2024-05-01T10:00:00Z');
  const signal = new AbortController().signal;
  const newJob = async (status: 'pending' | 'running' = 'pending', startedAt: Date | null = null) =>
    (
      await t.db.orm
        .insert(jobs)
        .values({ dataViewId: viewId, kind: 'Process', status, startedAt })
        .returning()
    )[0];
  const read = async (id: number) => (await t.db.orm.select().from(jobs).where(eq(jobs.id, id)))[0];
  const attempt = (id: number, work: JobWork) =>
    runJobAttempt(deps, { jobId: id, dataViewId: viewId, kind: 'Load' }, work, signal);

  beforeAll(async () => {
    setLogLevel('silent');
    t = await createTestDatabase();
    deps = { db: t.db, clock, log: logger, maxAttempts: 3, timeoutSeconds: 600 };
    viewId = await createDeployedView(t.db, { loadQuery: 'SELECT 1', categories: [{ name: 'shop' }] });
  });
  afterAll(() => t.drop());

  it('retries a crashed attempt and finishes on the next one with its detail', async () => {
    const job = await newJob();
    expect(await attempt(job.id, async () => Promise.reject(new Error('worker crashed')))).toBe('retry');
    expect(await read(job.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: 'attempt 1 of 3 failed, retrying: worker crashed',
    });
    expect(await attempt(job.id, async () => ({ rows: 5 }))).toBe('done');
    const done = await read(job.id);
    expect(done).toMatchObject({ status: 'finished', attempts: 2, error: null, detail: { rows: 5 } });
    expect(done.startedAt?.toISOString()).toBe('2024-05-01T10:00:00.000Z');
  });

  it('fails a job at once for a problem another attempt cannot fix', async () => {
    const job = await newJob();
    const outcome = await attempt(job.id, async () =>
      Promise.reject(ValidationError.field('source', 'row 3: bad date')),
    );
    expect(outcome).toBe('done');
    expect(await read(job.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: 'source: row 3: bad date',
    });
  });

  it('fails the job on its last attempt and lets the message go on to the dead-letter queue', async () => {
    const job = await newJob();
    const down = async () =>
      Promise.reject(new UpstreamError('could not connect to db:5432: connection refused'));
    expect(await attempt(job.id, down)).toBe('retry');
    expect(await attempt(job.id, down)).toBe('retry');
    expect(await attempt(job.id, down)).toBe('retry');
    expect(await read(job.id)).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: 'could not connect to db:5432: connection refused (attempt 3 of 3)',
    });
    await deadLetterJob(deps, { jobId: job.id, dataViewId: viewId, kind: 'Load' });
    expect((await read(job.id)).error).toBe(
      'could not connect to db:5432: connection refused (attempt 3 of 3)',
    );
  });

  it('drops a message whose job was cleared, is done, or runs elsewhere', async () => {
    let ran = 0;
    const work = async () => {
      ran++;
      return {};
    };
    expect(await attempt(999_999, work)).toBe('done');
    const running = await newJob('running', clock.now());
    expect(await attempt(running.id, work)).toBe('done');
    expect(ran).toBe(0);
    // A live running job holds its view (one job of a view at a time): this one ends here.
    await t.db.rows(sql`UPDATE jobs SET status = 'failed' WHERE id = ${running.id}`);
  });

  it('takes over a job whose running attempt outlived the time bound', async () => {
    const stale = await newJob('running', new Date('2024-05-01T09:40:00Z'));
    expect(await attempt(stale.id, async () => ({}))).toBe('done');
    expect(await read(stale.id)).toMatchObject({ status: 'finished', attempts: 1 });
  });

  it('fails a job that reached the dead-letter queue without an outcome, keeping its last error', async () => {
    const job = await newJob('running', clock.now());
    await t.db.orm
      .update(jobs)
      .set({ attempts: 3, error: 'attempt 2 of 3 failed, retrying: timeout' })
      .where(eq(jobs.id, job.id));
    await deadLetterJob(deps, { jobId: job.id, dataViewId: viewId, kind: 'Load' });
    expect(await read(job.id)).toMatchObject({
      status: 'failed',
      error:
        'The job reached the dead-letter queue after 3 attempt(s) (the worker crashed, timed out or kept failing); last error: attempt 2 of 3 failed, retrying: timeout',
    });
  });
});
