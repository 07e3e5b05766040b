/** Amazon SQS adapter: one queue per worker, redelivery and the dead-letter queue handled by SQS itself. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { JobMessage, JobQueue, QueueName } from './port';

export interface SqsQueueOptions {
  region: string;
  /** A non-AWS endpoint such as the fauxqs emulator. */
  endpoint?: string;
  queueUrls: Partial<Record<QueueName, string>>;
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
  ) {}

  async send(queue: QueueName, message: JobMessage): Promise<void> {
    const url = this.queueUrls[queue];
    if (!url) throw new Error(`no queue URL for the ${queue} queue (set QUEUE_URL_${queue.toUpperCase()})`);
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    await this.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(message) }));
  }

  /** Nothing to do: a failed record becomes visible again after the visibility timeout. */
  async redeliver(_queue: QueueName, _records: SQSRecord[]): Promise<void> {}
}

/** The SQS adapter of the configuration. */
export async function createSqsQueue(o: SqsQueueOptions): Promise<SqsQueue> {
  return new SqsQueue(await sqsClient(o.region, o.endpoint), o.queueUrls);
}
