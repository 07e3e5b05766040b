/**
 * The job queue port. The jobs table is the source of truth; a message only carries the job id.
 * Adapters: local (in-process or serverless-offline's Lambda invoke endpoint) and Amazon SQS.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { JobKind } from '../db/tables/jobs';

/** One queue per worker function: loads (Load and CustomLoad) and process (detection). */
export type QueueName = 'load' | 'process';

/** Worker functions a queue delivers to; `deadLetters` receives what exhausted its attempts. */
export type WorkerName = QueueName | 'deadLetters';

export interface JobMessage {
  jobId: number;
  dataViewId: number;
  kind: JobKind;
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

/** The queue a job kind travels on. */
export function queueOf(kind: JobKind): QueueName {
  return kind === 'Process' ? 'process' : 'load';
}

/** Parses a record body into a JobMessage; throws on anything else (a poisoned message). */
export function parseJobMessage(body: string): JobMessage {
  const m = JSON.parse(body) as Partial<JobMessage>;
  if (!Number.isSafeInteger(m.jobId) || !Number.isSafeInteger(m.dataViewId) || typeof m.kind !== 'string') {
    throw new Error(`not a job message: ${body.slice(0, 200)}`);
  }
  return m as JobMessage;
}

export type { SQSEvent, SQSRecord };
