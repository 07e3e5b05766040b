import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config/config';
import { dataViews } from '../../../lib/db/tables/dataviews';
import { jobs } from '../../../lib/db/tables/jobs';
import type { JobDeps } from '../../../lib/jobs/enqueue';
import { scheduleTick } from '../../../lib/jobs/schedule';
import type { JobMessage, JobQueue, QueueName } from '../../../lib/queue/port';
import { fixedClock } from '../../../lib/shared/clock';
import { setLogLevel } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDeployedView } from '../../support/pipeline-fixture';

function recordingQueue(backend: 'local' | 'sqs' = 'local') {
  const sent: Array<{ queue: QueueName; message: JobMessage }> = [];
  const queue: JobQueue = {
    backend,
    send: async (q, message) => void sent.push({ queue: q, message }),
    redeliver: async () => {},
  };
  return { queue, sent };
}

describe(`the every-minute schedule on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: JobDeps;
  let sent: Array<{ queue: QueueName; message: JobMessage }>;
  const clock = fixedClock('2024-03-04T05:59:30Z');
  const view = (name: string, cron: string | undefined, o: { enabled?: boolean } = {}) =>
    createDeployedView(t.db, { name, loadQuery: 'SELECT 1', categories: [{ name: 'shop' }], cron, ...o });
  const tickAt = async (iso: string) => {
    clock.set(iso);
    return scheduleTick(deps);
  };
  const addJob = async (
    dataViewId: number,
    kind: 'Load' | 'Process' | 'CustomLoad',
    status: 'pending' | 'running',
  ) =>
    (
      await t.db.orm
        .insert(jobs)
        .values({ dataViewId, kind, status, startedAt: status === 'running' ? clock.now() : null })
        .returning()
    )[0];

  beforeAll(async () => {
    setLogLevel('silent');
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());
  beforeEach(async () => {
    await t.db.orm.delete(jobs);
    await t.db.orm.delete(dataViews);
    await t.db.rows(sql`DELETE FROM schedule_ticks`);
    const r = recordingQueue();
    sent = r.sent;
    deps = {
      db: t.db,
      queue: r.queue,
      clock,
      config: loadConfig({ JOB_MAX_ATTEMPTS: '3', JOB_TIMEOUT_SECONDS: '600' }),
    };
    await tickAt('2024-03-04T05:59:30Z');
  });

  it('enqueues a cron load once when its time comes, and not again in the next minute', async () => {
    const daily = await view('daily', '0 0 6 * * *');
    const five = await view('five', '*/5 * * * *');
    await view('by_api', undefined);
    await view('disabled', '0 0 6 * * *', { enabled: false });
    const first = await tickAt('2024-03-04T06:00:30Z');
    expect(first.enqueued.map((e) => e.dataViewId).sort()).toEqual([daily, five].sort());
    expect(sent.map((m) => [m.queue, m.message.kind])).toEqual([
      ['load', 'Load'],
      ['load', 'Load'],
    ]);
    const [job] = await t.db.orm.select().from(jobs).where(eq(jobs.dataViewId, daily));
    expect(job).toMatchObject({ kind: 'Load', status: 'pending', trigger: 'cron' });
    const next = await tickAt('2024-03-04T06:01:30Z');
    expect(next.enqueued).toEqual([]);
  });

  it('does not start a cron load while a load, custom load or process job of the view is in progress', async () => {
    const loading = await view('loading', '0 0 6 * * *');
    const custom = await view('custom', '0 0 6 * * *');
    const processing = await view('processing', '0 0 6 * * *');
    const free = await view('free', '0 0 6 * * *');
    await addJob(loading, 'Load', 'running');
    await addJob(custom, 'CustomLoad', 'pending');
    const p = await addJob(processing, 'Process', 'running');
    const r = await tickAt('2024-03-04T06:00:10Z');
    expect(r.enqueued.map((e) => e.dataViewId)).toEqual([free]);
    expect(r.skipped.map((s) => s.dataViewId).sort()).toEqual([loading, custom, processing].sort());
    expect(r.skipped.find((s) => s.dataViewId === processing)?.reason).toBe(
      `job ${p.id} (Process, running) is in progress`,
    );
  });

  it('runs a missed time once after a pause of the schedule', async () => {
    const daily = await view('missed', '0 0 6 * * *');
    const r = await tickAt('2024-03-04T09:17:00Z');
    expect(r.enqueued.map((e) => e.dataViewId)).toEqual([daily]);
  });

  it('queues again a job whose worker stopped, and fails one that stopped on its last attempt', async () => {
    const id = await view('stalled', undefined);
    const retry = await addJob(id, 'Process', 'running');
    const last = await addJob(id, 'Load', 'running');
    await t.db.orm.update(jobs).set({ attempts: 1 }).where(eq(jobs.id, retry.id));
    await t.db.orm.update(jobs).set({ attempts: 3 }).where(eq(jobs.id, last.id));
    // Within the worker's time bound nothing happens.
    expect((await tickAt('2024-03-04T06:05:00Z')).recovered).toEqual([]);
    const r = await tickAt('2024-03-04T06:11:30Z');
    expect(r.recovered).toEqual([
      { jobId: retry.id, outcome: 'requeued' },
      { jobId: last.id, outcome: 'failed' },
    ]);
    const rows = Object.fromEntries((await t.db.orm.select().from(jobs)).map((j) => [j.id, j]));
    expect(rows[retry.id]).toMatchObject({ status: 'pending' });
    expect(rows[retry.id].error).toMatch(/attempt 1 of 3 stopped without finishing/);
    expect(rows[last.id]).toMatchObject({ status: 'failed' });
    expect(rows[last.id].error).toBe(
      'The worker stopped without finishing (crashed or timed out) on attempt 3 of 3.',
    );
    expect(sent.map((m) => m.message.jobId)).toEqual([retry.id]);
  });

  it('re-sends a stopped attempt on SQS too (its message may be gone: a duplicate was dropped while it ran)', async () => {
    const r = recordingQueue('sqs');
    deps = { ...deps, queue: r.queue };
    const id = await view('sqs', undefined);
    const stalled = await addJob(id, 'Load', 'running');
    await t.db.orm.update(jobs).set({ attempts: 1 }).where(eq(jobs.id, stalled.id));
    expect((await tickAt('2024-03-04T06:30:00Z')).recovered).toEqual([
      { jobId: stalled.id, outcome: 'requeued' },
    ]);
    expect(r.sent).toHaveLength(1);
  });
});
