/**
 * Lambda handlers for SQS events: each record is one job attempt, failures are reported per record
 * (batchItemFailures, with functionResponseType ReportBatchItemFailures) so that only they come back.
 */
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Config } from '../config/config';
import type { Database } from '../db/database';
import type { JobQueue } from '../queue/port';
import type { Clock } from '../shared/clock';
import { parseJobMessage, type JobMessage, queueOf, type QueueName, type ShardRef } from '../queue/port';
import { logger } from '../shared/logger';
import { receiveCount } from '../queue/records';
import type { JobRow } from './repository';
import { type AttemptOutcome, deadLetterJob, type JobWork, type RunnerDeps, runJobAttempt } from './runner';

interface LambdaContextLike {
  getRemainingTimeInMillis?: () => number;
}

/** Time kept back from the Lambda timeout to record the outcome of an attempt that runs out of time. */
const MARGIN_MS = 15_000;

/** What a worker needs of its process's container; the work it runs may ask for more (`C`). */
export interface WorkerDeps {
  db: Database;
  clock: Clock;
  queue: Pick<JobQueue, 'send' | 'redeliver'>;
  config: { jobs: Pick<Config['jobs'], 'maxAttempts' | 'timeoutSeconds'> };
}

function deadline(c: WorkerDeps, context: unknown): number {
  const remaining = (context as LambdaContextLike | undefined)?.getRemainingTimeInMillis?.();
  const budget = remaining !== undefined ? remaining - MARGIN_MS : c.config.jobs.timeoutSeconds * 1000;
  return Date.now() + Math.max(1000, budget);
}

/** An AbortSignal that fires at `at` (epoch ms), with a reason naming the time bound. */
function timeoutSignal(at: number): { signal: AbortSignal; clear: () => void } {
  const ac = new AbortController();
  const ms = Math.max(0, at - Date.now());
  const t = setTimeout(() => ac.abort(new Error(`the job timed out after ${Math.round(ms / 1000)} s`)), ms);
  return { signal: ac.signal, clear: () => clearTimeout(t) };
}

/** The container of a worker, handed in by functions/ (built once per process, on first use). */
export type ContainerSource<C extends WorkerDeps = WorkerDeps> = () => Promise<C>;

/**
 * One delivery (the `receiveCount`-th) of a shard message of a fanned-out job, run by the module that
 * fans the job out (lib/process-job `processShards`): the outcome tells the queue whether to deliver it again.
 */
export type ShardAttempt = (
  deps: RunnerDeps,
  message: JobMessage & { shard: ShardRef },
  receiveCount: number,
  signal: AbortSignal,
) => Promise<AttemptOutcome>;

/** The SQS handler of a job queue: `work` does the job, `shards` its shard messages; the runner records the outcome. */
export function jobWorker<C extends WorkerDeps>(
  container: ContainerSource<C>,
  queue: QueueName,
  work: (c: C, job: Parameters<JobWork>[0], signal: AbortSignal) => ReturnType<JobWork>,
  shards?: (c: C) => ShardAttempt,
) {
  return async (event: SQSEvent, context?: unknown): Promise<SQSBatchResponse> => {
    const c = await container();
    const until = deadline(c, context);
    const failures: SQSBatchItemFailure[] = [];
    const failed: SQSRecord[] = [];
    for (const record of event.Records ?? []) {
      let message: JobMessage;
      try {
        message = parseJobMessage(record.body);
      } catch (e) {
        logger.error('poisoned message', { queue, messageId: record.messageId, error: e });
        failures.push({ itemIdentifier: record.messageId });
        failed.push(record);
        continue;
      }
      const { signal, clear } = timeoutSignal(until);
      try {
        const deps = {
          db: c.db,
          clock: c.clock,
          log: logger.child({ queue }),
          maxAttempts: c.config.jobs.maxAttempts,
          timeoutSeconds: c.config.jobs.timeoutSeconds,
          resend: (j: JobRow) =>
            c.queue.send(queueOf(j.kind), { jobId: j.id, dataViewId: j.dataViewId, kind: j.kind }),
        };
        const { shard } = message;
        const outcome =
          shard && shards
            ? await shards(c)(deps, { ...message, shard }, receiveCount(record), signal)
            : await runJobAttempt(deps, message, (job, s) => work(c, job, s), signal);
        if (outcome === 'retry') {
          failures.push({ itemIdentifier: record.messageId });
          failed.push(record);
        }
      } catch (e) {
        // The service database itself failed: let the queue deliver the message again.
        logger.error('job attempt could not be recorded', { queue, jobId: message.jobId, error: e });
        failures.push({ itemIdentifier: record.messageId });
        failed.push(record);
      } finally {
        clear();
      }
    }
    if (failed.length) await c.queue.redeliver(queue, failed);
    return { batchItemFailures: failures };
  };
}

/**
 * The handler of the dead-letter queues: fails the jobs whose messages exhausted their attempts;
 * `abandon` cleans up after a failed job of a kind that leaves state behind.
 */
export function deadLetterWorker<C extends WorkerDeps>(
  container: ContainerSource<C>,
  abandon?: (c: C) => (job: JobRow) => Promise<void>,
) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const c = await container();
    for (const record of event.Records ?? []) {
      try {
        await deadLetterJob(
          { db: c.db, clock: c.clock, log: logger },
          parseJobMessage(record.body),
          abandon?.(c),
        );
      } catch (e) {
        logger.error('dead letter dropped', { messageId: record.messageId, error: e });
      }
    }
    return { batchItemFailures: [] };
  };
}
