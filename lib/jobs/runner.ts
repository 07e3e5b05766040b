/**
 * One attempt at a job: claim it, run the work, record the outcome. A problem of the data or the
 * definition fails the job at once; anything else (source down, crash, timeout) is retried until the
 * last attempt, which fails the job and lets the message go on to the dead-letter queue.
 */
import type { Database } from '../db/database';
import type { JobMessage } from '../queue/port';
import type { Clock } from '../shared/clock';
import { isAppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { recordJob } from '../shared/metrics';
import {
  claimJob,
  failJob,
  findJob,
  finishJob,
  type JobRow,
  LEASE_SECONDS,
  markWaiting,
  releaseLease,
  renewLease,
  requeueJob,
  runningJobOfView,
  waitingJobsFree,
} from './repository';

export interface RunnerDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  maxAttempts: number;
  /** A fanned-out job with no shard done for longer than this is taken to have lost its workers. */
  timeoutSeconds: number;
  /** How often the lease is renewed (tests shorten it); a third of LEASE_SECONDS by default. */
  renewEveryMs?: number;
  /** Sends a job's message again: jobs that waited for this one are sent when it ends (else the schedule does). */
  resend?: (job: JobRow) => Promise<void>;
}

/** After a job of the view ended: the jobs of the view that waited for it are sent again. */
async function sendWaiting(deps: RunnerDeps, dataViewId: number): Promise<void> {
  if (!deps.resend) return;
  try {
    for (const job of await waitingJobsFree(deps.db))
      if (job.dataViewId === dataViewId) await deps.resend(job);
  } catch (e) {
    deps.log.warn('waiting jobs not sent again; the schedule will', { dataViewId, error: e });
  }
}

/** Keeps the lease of a running attempt; aborts `signal` when the job stops being this attempt's (cancelled, taken over). */
function holdLease(
  deps: RunnerDeps,
  job: JobRow,
  outer: AbortSignal,
): { signal: AbortSignal; lost: () => boolean; stop: () => void } {
  const ac = new AbortController();
  let lost = false;
  const onOuter = () => ac.abort(outer.reason);
  if (outer.aborted) onOuter();
  else outer.addEventListener('abort', onOuter, { once: true });
  const timer = setInterval(
    () => {
      renewLease(deps.db, job.id, job.attempts, deps.clock.now())
        .then((held) => {
          if (held || lost) return;
          lost = true;
          ac.abort(
            new Error(`job ${job.id} was cancelled or taken over by another attempt; this attempt stops`),
          );
        })
        .catch((e) => deps.log.warn('lease not renewed', { jobId: job.id, error: e }));
    },
    deps.renewEveryMs ?? (LEASE_SECONDS * 1000) / 3,
  );
  timer.unref?.();
  return {
    signal: ac.signal,
    lost: () => lost,
    stop: () => {
      clearInterval(timer);
      outer.removeEventListener('abort', onOuter);
    },
  };
}

/** What the queue should do with the message: drop it, or deliver it again. */
export type AttemptOutcome = 'done' | 'retry';

/** Returned by work that handed the job on (shard messages): the job stays running, the last shard finishes it. */
export const DETACHED: unique symbol = Symbol('job detached');

export type JobWork = (
  job: JobRow,
  signal: AbortSignal,
) => Promise<Record<string, unknown> | undefined | typeof DETACHED>;

const MAX_ERROR = 2000;

/** Problems that another attempt cannot fix: bad rows, a bad definition, a view gone or not allowed. */
export function isPermanent(e: unknown): boolean {
  return (
    isAppError(e) &&
    ['VALIDATION', 'NOT_FOUND', 'CONFLICT', 'FORBIDDEN', 'UNSUPPORTED_MEDIA_TYPE'].includes(e.code)
  );
}

export function errorText(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > MAX_ERROR ? `${m.slice(0, MAX_ERROR - 1)}…` : m;
}

const CLAIM_TRIES = 3;

/**
 * Claims the job, or marks it as waiting for the running job of its view. A failed claim and the other
 * job's end race: when the view is free by the time it is looked at, the claim is tried again. The mark and the other job's
 * end race too: the other job sends the waiting jobs when it ends, and may have looked for them just before
 * this one was marked. So after the mark the view is looked at again, and when the other job has ended
 * by then, the claim is tried again here: one of the two always sees the other's write, and no job waits
 * for the schedule's next minute while its view is free.
 */
async function claimOrWait(deps: RunnerDeps, jobId: number, log: Logger): Promise<JobRow | undefined> {
  const { db, clock } = deps;
  for (let attempt = 1; attempt <= CLAIM_TRIES; attempt++) {
    const now = clock.now();
    const job = await claimJob(db, jobId, now, new Date(now.getTime() - deps.timeoutSeconds * 1000));
    if (job) return job;
    const existing = await findJob(db, jobId);
    // One job of a view at a time: a pending job waits for the running one and is sent again after it.
    const other =
      existing?.status === 'pending'
        ? await runningJobOfView(db, existing.dataViewId, existing.id)
        : undefined;
    if (existing?.status === 'pending' && other === undefined) {
      // The job that held the view ended between the claim and the look at the view (a load that queued
      // this job ends just after): the view is free now, so the claim is tried again.
      continue;
    }
    if (!existing || other === undefined) {
      // Cleared, already done, or running elsewhere: this delivery has nothing to do.
      log.info('job not claimable; message dropped', { status: existing?.status ?? 'deleted' });
      return undefined;
    }
    await markWaiting(db, existing.id, other);
    if ((await runningJobOfView(db, existing.dataViewId, existing.id)) !== undefined) {
      log.info('job waits for another job of its view', { waitingFor: other });
      return undefined;
    }
  }
  log.info('job still not claimable after its view became free; the schedule sends it again');
  return undefined;
}

/** Runs one delivery of `message`; never throws for a failure of the work itself. */
export async function runJobAttempt(
  deps: RunnerDeps,
  message: JobMessage,
  work: JobWork,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  const { db, clock } = deps;
  const log = deps.log.child({ jobId: message.jobId, kind: message.kind, dataViewId: message.dataViewId });
  const job = await claimOrWait(deps, message.jobId, log);
  if (!job) return 'done';
  log.info('job started', { attempt: job.attempts });
  recordJob(message.kind, 'started');
  const started = Date.now();
  const lease = holdLease(deps, job, signal);
  let detached = false;
  try {
    const result = await work(job, lease.signal);
    lease.stop();
    if (lease.lost()) {
      log.warn('job attempt finished after losing its lease; its outcome is not recorded');
      return 'done';
    }
    if (result === DETACHED) {
      detached = true;
      await releaseLease(db, job.id, job.attempts);
      log.info('job handed on to its shard messages');
      return 'done';
    }
    const detail = result ?? {};
    await finishJob(db, job.id, clock.now(), { ...detail, ms: Date.now() - started }, job.attempts);
    log.info('job finished', { ms: Date.now() - started });
    recordJob(message.kind, 'finished', { ...detail, ms: Date.now() - started });
    return 'done';
  } catch (e) {
    lease.stop();
    const reason = errorText(e);
    if (lease.lost()) {
      // Cancelled (jobs/clear) or taken over: whoever holds the job now records its outcome.
      log.warn('job attempt stopped: it lost its lease', { reason });
      return 'done';
    }
    if (isPermanent(e)) {
      await failJob(db, job.id, clock.now(), reason);
      log.warn('job failed', { reason });
      recordJob(message.kind, 'failed');
      return 'done';
    }
    if (job.attempts >= deps.maxAttempts) {
      await failJob(db, job.id, clock.now(), `${reason} (attempt ${job.attempts} of ${deps.maxAttempts})`);
      log.error('job failed on its last attempt', { error: e });
      recordJob(message.kind, 'failed');
      return 'retry';
    }
    await requeueJob(
      db,
      job.id,
      `attempt ${job.attempts} of ${deps.maxAttempts} failed, retrying: ${reason}`,
      job.attempts,
    );
    log.warn('job attempt failed; it will be retried', { attempt: job.attempts, reason });
    return 'retry';
  } finally {
    // The attempt ended (not handed to shard messages): jobs of the view that waited for it go now.
    if (!detached) await sendWaiting(deps, job.dataViewId);
  }
}

/**
 * Dead-letter handling: a job whose message exhausted its deliveries is failed, keeping its last
 * reason. A worker that crashed (out of memory, killed at its time limit) never ran its own clean-up,
 * so `abandon` removes what the attempt left behind (a detection run's staging table).
 */
export async function deadLetterJob(
  deps: Pick<RunnerDeps, 'db' | 'clock' | 'log'>,
  message: JobMessage,
  abandon?: (job: JobRow) => Promise<void>,
): Promise<void> {
  const job = await findJob(deps.db, message.jobId);
  if (!job || job.status === 'finished' || job.status === 'failed') return;
  // A shard of an earlier attempt says nothing about the attempt that runs now.
  if (message.shard && message.shard.attempt !== job.attempts) return;
  const last = job.error ? `; last error: ${job.error}` : '';
  const what = message.shard
    ? `Shard ${message.shard.index + 1} of ${message.shard.count} of the job`
    : 'The job';
  const reason = `${what} reached the dead-letter queue after ${job.attempts} attempt(s) (the worker crashed, timed out or kept failing)${last}`;
  if (await failJob(deps.db, job.id, deps.clock.now(), errorText(reason))) {
    deps.log.error('job dead-lettered', { jobId: job.id, shard: message.shard?.index });
    recordJob(job.kind, 'failed');
    if (abandon)
      await abandon(job).catch((e) => deps.log.warn('dead-lettered job not cleaned up', { error: e }));
  }
}
