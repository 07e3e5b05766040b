/**
 * One delivery of a shard message of a fanned-out job (the shards of a process job, the parts of a
 * large load): runs the shard, lets the last shard finish the job, and on a final failure fails the
 * job and drops what the run staged.
 */
import type { JobRow } from './repository';
import { failJob, findJob, finishJob } from './repository';
import { type AttemptOutcome, errorText, isPermanent, type RunnerDeps } from './runner';
import type { JobMessage, ShardRef } from '../queue/port';
import { recordJob } from '../shared/metrics';

/**
 * The work of one shard message: the finished job's detail when this shard completed the run,
 * undefined when other shards are still out; `abandon` cleans up after the job failed.
 */
export interface ShardWork {
  run(job: JobRow, shard: ShardRef, signal: AbortSignal): Promise<Record<string, unknown> | undefined>;
  abandon(job: JobRow, shard: ShardRef): Promise<void>;
}

/**
 * Runs one delivery (the `receiveCount`-th) of a shard message of a running fan-out job. A shard
 * failing for good fails the job and drops its staging table: the view's anomalies stay as they were.
 */
export async function runShardAttempt(
  deps: RunnerDeps,
  message: JobMessage & { shard: ShardRef },
  work: ShardWork,
  receiveCount: number,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  const { db, clock } = deps;
  const shard = message.shard;
  const log = deps.log.child({ jobId: message.jobId, shard: shard.index, of: shard.count });
  const job = await findJob(db, message.jobId);
  if (!job || job.status !== 'running' || job.attempts !== shard.attempt) {
    log.info('shard of a job that does not run this attempt; message dropped', { status: job?.status });
    return 'done';
  }
  try {
    const detail = await work.run(job, shard, signal);
    if (detail) {
      await finishJob(db, job.id, clock.now(), detail);
      log.info('job finished by its last shard');
      recordJob(message.kind, 'finished', detail);
    }
    return 'done';
  } catch (e) {
    const reason = errorText(e);
    const last = isPermanent(e) || receiveCount >= deps.maxAttempts;
    if (!last) {
      log.warn('shard attempt failed; it will be retried', { attempt: receiveCount, reason });
      return 'retry';
    }
    const why = `shard ${shard.index + 1} of ${shard.count} failed: ${reason}`;
    if (await failJob(db, job.id, clock.now(), why)) {
      log.error('job failed by a shard', { error: e });
      recordJob(message.kind, 'failed');
    }
    await work.abandon(job, shard).catch((x) => log.warn('fan-out not cleaned up', { error: x }));
    return isPermanent(e) ? 'done' : 'retry';
  }
}
