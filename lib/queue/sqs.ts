/**
 * Amazon SQS adapter: one queue per worker; the dead-letter queue handled by SQS itself. A failed record is
 * made visible again after a backoff of seconds to minutes (ChangeMessageVisibility), not after the queue's
 * visibility timeout (which must outlast the longest job, e.g. 90 minutes).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { logger } from '../shared/logger';
import type { JobMessage, JobQueue, QueueName } from './port';
import { receiveCount } from './records';

export interface SqsQueueOptions {
  region: string;
  /** A non-AWS endpoint such as the fauxqs emulator. */
  endpoint?: string;
  queueUrls: Partial<Record<QueueName, string>>;
  /** The first retry's delay; each further one doubles, up to MAX_RETRY_DELAY_SECONDS. */
  retryDelaySeconds?: number;
}

export const MAX_RETRY_DELAY_SECONDS = 15 * 60;

/** The delay before the `receiveCount + 1`-th delivery: base, 2·base, 4·base … at most 15 minutes. */
export function retryDelaySeconds(base: number, receives: number): number {
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.round(base * 2 ** Math.min(20, Math.max(0, receives - 1))));
}

/** An SQS client; with an explicit endpoint the queue URL's host is not used for requests. */
export async function sqsClient(region: string, endpoint?: string): Promise<SQSClient> {
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  return new SQSClient({
    region,
    ...(endpoint
      ? {
          endpoint,
          useQueueUrlAsEndpoint: false,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
}

export class SqsQueue implements JobQueue {
  readonly backend = 'sqs' as const;

  constructor(
    private readonly client: SQSClient,
    private readonly queueUrls: Partial<Record<QueueName, string>>,
    private readonly retryBaseSeconds = 30,
  ) {}

  async send(queue: QueueName, message: JobMessage): Promise<void> {
    const url = this.queueUrls[queue];
    if (!url) throw new Error(`no queue URL for the ${queue} queue (set QUEUE_URL_${queue.toUpperCase()})`);
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    await this.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(message) }));
  }

  /** Shortens the failed records' invisibility to the backoff of their receive count (best effort: else the visibility timeout). */
  async redeliver(queue: QueueName, records: SQSRecord[]): Promise<void> {
    const url = this.queueUrls[queue];
    const handles = records.filter((r) => r.receiptHandle);
    if (!url || handles.length === 0) return;
    const { ChangeMessageVisibilityBatchCommand } = await import('@aws-sdk/client-sqs');
    for (let i = 0; i < handles.length; i += 10) {
      const entries = handles.slice(i, i + 10).map((r, j) => ({
        Id: String(i + j),
        ReceiptHandle: r.receiptHandle,
        VisibilityTimeout: retryDelaySeconds(this.retryBaseSeconds, receiveCount(r)),
      }));
      try {
        const out = await this.client.send(
          new ChangeMessageVisibilityBatchCommand({ QueueUrl: url, Entries: entries }),
        );
        if (out.Failed?.length)
          logger.warn('retry backoff not set for some messages', { queue, failed: out.Failed });
      } catch (e) {
        logger.warn('retry backoff not set; the visibility timeout applies', { queue, error: e });
      }
    }
  }
}

/** The SQS adapter of the configuration. */
export async function createSqsQueue(o: SqsQueueOptions): Promise<SqsQueue> {
  return new SqsQueue(await sqsClient(o.region, o.endpoint), o.queueUrls, o.retryDelaySeconds ?? 30);
}
