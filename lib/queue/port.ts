/**
 * The job queue port. The jobs table is the source of truth; a message only carries the job id.
 * Adapters: local (in-process or serverless-offline's Lambda invoke endpoint) and Amazon SQS.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { JobKind } from '../db/tables/jobs';

/** One queue per worker function: loads (Load and CustomLoad), process (detection) and replay. */
export type QueueName = 'load' | 'process' | 'replay';

/** Worker functions a queue delivers to; `deadLetters` receives what exhausted its attempts. */
export type WorkerName = QueueName | 'deadLetters';

/** One shard of a fanned-out process job: the run (job id), which shard of how many, and the job attempt that planned it. */
export interface ShardRef {
  runId: number;
  index: number;
  count: number;
  attempt: number;
}

export interface JobMessage {
  jobId: number;
  dataViewId: number;
  kind: JobKind;
  /** Present on the shard messages of a fanned-out process job; absent on the job's own message. */
  shard?: ShardRef;
}

export interface JobQueue {
  readonly backend: 'local' | 'sqs';
  /** Puts a job message on the queue of its kind. */
  send(queue: QueueName, message: JobMessage): Promise<void>;
  /**
   * Called by a worker for the records it reports as failed. SQS redelivers by itself (visibility
   * timeout, then the dead-letter queue after maxReceiveCount); the local dispatcher redelivers here.
   */
  redeliver(queue: QueueName, records: SQSRecord[]): Promise<void>;
}

/**
 * The queue a job kind travels on: loads on `load`, detection on `process`, and replays (detection in memory,
 * lib/replay) on `replay`, with a worker of their own, so that a replay never waits behind a load or a
 * detection and never holds one up.
 */
export function queueOf(kind: JobKind): QueueName {
  if (kind === 'Process') return 'process';
  return kind === 'Replay' ? 'replay' : 'load';
}

/** Parses a record body into a JobMessage; throws on anything else (a poisoned message). */
export function parseJobMessage(body: string): JobMessage {
  const m = JSON.parse(body) as Partial<JobMessage>;
  if (!Number.isSafeInteger(m.jobId) || !Number.isSafeInteger(m.dataViewId) || typeof m.kind !== 'string') {
    throw new Error(`not a job message: ${body.slice(0, 200)}`);
  }
  if (m.shard !== undefined) {
    const r = m.shard as Partial<ShardRef> | null;
    const ints = [r?.runId, r?.index, r?.count, r?.attempt].every((x) => Number.isSafeInteger(x));
    if (!r || !ints || (r.index as number) < 0 || (r.index as number) >= (r.count as number))
      throw new Error(`not a shard message: ${body.slice(0, 200)}`);
  }
  return m as JobMessage;
}

export type { SQSEvent, SQSRecord };
