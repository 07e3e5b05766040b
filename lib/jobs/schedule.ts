/**
 * The every-minute schedule: enqueue the cron loads due since the last tick (the cron start rule
 * applies), and recover jobs whose worker stopped without recording an outcome.
 */
import { and, eq, lt, or, sql } from 'drizzle-orm';
import { jobs } from '../db/tables/jobs';
import { readViews } from '../dataviews/scope';
import { systemCaller } from '../identity/caller';
import { queueOf } from '../queue/port';
import { isDue } from '../schedule/cron';
import { logger } from '../shared/logger';
import { enqueueScheduledLoad, type JobDeps } from './enqueue';
import { failJob, type JobRow, requeueJob, staleRunningJobs, waitingJobsFree } from './repository';

const TICK = 'cron-loads';
const MAX_CATCH_UP_MS = 24 * 3600_000;

export interface TickResult {
  from: string;
  to: string;
  enqueued: Array<{ dataViewId: number; jobId: number }>;
  skipped: Array<{ dataViewId: number; reason: string }>;
  recovered: Array<{ jobId: number; outcome: 'requeued' | 'failed' }>;
}

/** Moves the tick to `now`; returns the previous one, or undefined when a concurrent tick already took this window. */
async function advanceTick(deps: JobDeps, now: Date): Promise<Date | undefined> {
  return deps.db.tx(async (tx) => {
    const [row] = await tx.rows<{ last_tick: Date | string }>(
      sql`SELECT last_tick FROM schedule_ticks WHERE name = ${TICK} FOR UPDATE`,
    );
    const last = row ? new Date(row.last_tick) : new Date(now.getTime() - 60_000);
    if (row && last.getTime() >= now.getTime()) return undefined;
    await tx.rows(sql`INSERT INTO schedule_ticks (name, last_tick) VALUES (${TICK}, ${now.toISOString()}::timestamptz)
      ON CONFLICT (name) DO UPDATE SET last_tick = EXCLUDED.last_tick`);
    return new Date(Math.max(last.getTime(), now.getTime() - MAX_CATCH_UP_MS));
  });
}

/** Enqueues the loads of enabled cron views with a run time in (from, now]. */
export async function enqueueDueLoads(
  deps: JobDeps,
  from: Date,
  now: Date,
): Promise<Pick<TickResult, 'enqueued' | 'skipped'>> {
  const views = (await readViews(systemCaller(), deps.db, { deployed: true, enabled: true })).sort(
    (a, b) => a.id - b.id,
  );
  const enqueued: TickResult['enqueued'] = [];
  const skipped: TickResult['skipped'] = [];
  for (const view of views) {
    const source = view.definition.source;
    if (source?.trigger !== 'cron' || !source.cron) continue;
    try {
      if (!isDue(source.cron, from, now, deps.config.timeZone)) continue;
      const r = await enqueueScheduledLoad(deps, view);
      if (r.job) enqueued.push({ dataViewId: view.id, jobId: r.job.id });
      else skipped.push({ dataViewId: view.id, reason: r.skipped ?? 'skipped' });
    } catch (e) {
      // One view's bad schedule or failed send must not stop the others.
      skipped.push({ dataViewId: view.id, reason: (e as Error).message });
    }
  }
  return { enqueued, skipped };
}

/**
 * Jobs whose worker is gone (lease expired; a fanned-out job with no shard for the time bound): failed on
 * their last attempt, otherwise queued again and re-sent, on every backend (on SQS the message may already be
 * gone, e.g. a duplicate delivery was dropped while the attempt ran). A duplicate message is harmless: the claim
 * lets one attempt run at a time. Local pending jobs that waited that long lost their message and are re-sent.
 */
export async function recoverStalledJobs(deps: JobDeps, now: Date): Promise<TickResult['recovered']> {
  const { maxAttempts, timeoutSeconds } = deps.config.jobs;
  const staleBefore = new Date(now.getTime() - (timeoutSeconds + 60) * 1000);
  const out: TickResult['recovered'] = [];
  const resend = async (job: JobRow) => {
    await deps.queue.send(queueOf(job.kind), { jobId: job.id, dataViewId: job.dataViewId, kind: job.kind });
  };
  for (const job of await staleRunningJobs(deps.db, now, staleBefore)) {
    if (job.attempts >= maxAttempts) {
      const reason = `The worker stopped without finishing (crashed or timed out) on attempt ${job.attempts} of ${maxAttempts}.`;
      if (await failJob(deps.db, job.id, now, reason)) out.push({ jobId: job.id, outcome: 'failed' });
    } else {
      await requeueJob(
        deps.db,
        job.id,
        `attempt ${job.attempts} of ${maxAttempts} stopped without finishing (crashed or timed out); retrying`,
        job.attempts,
      );
      await resend(job);
      out.push({ jobId: job.id, outcome: 'requeued' });
    }
  }
  // Pending jobs that waited for another job of their view, which has ended since.
  for (const job of await waitingJobsFree(deps.db)) {
    await resend(job);
    out.push({ jobId: job.id, outcome: 'requeued' });
  }
  if (deps.queue.backend === 'local') {
    const lost = (await deps.db.orm
      .select()
      .from(jobs)
      .where(
        and(
          eq(jobs.status, 'pending'),
          or(
            lt(jobs.startedAt, staleBefore),
            and(sql`${jobs.startedAt} IS NULL`, lt(jobs.createdAt, staleBefore)),
          ),
        ),
      )) as JobRow[];
    for (const job of lost) {
      if (out.some((o) => o.jobId === job.id)) continue;
      await resend(job);
      out.push({ jobId: job.id, outcome: 'requeued' });
    }
  }
  return out;
}

/** One tick of the every-minute schedule. */
export async function scheduleTick(deps: JobDeps): Promise<TickResult> {
  const now = deps.clock.now();
  const from = await advanceTick(deps, now);
  const result: TickResult = {
    from: (from ?? now).toISOString(),
    to: now.toISOString(),
    enqueued: [],
    skipped: [],
    recovered: [],
  };
  if (from) Object.assign(result, await enqueueDueLoads(deps, from, now));
  result.recovered = await recoverStalledJobs(deps, now);
  if (result.enqueued.length || result.skipped.length || result.recovered.length)
    logger.info('schedule tick', { ...result });
  return result;
}
