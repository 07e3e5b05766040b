/**
 * What Lambda's SQS event source mapping does, for running workers against an SQS endpoint outside
 * AWS (the fauxqs emulator): receive batches, hand them to the handler, delete what succeeded and
 * leave the reported failures to come back after the visibility timeout.
 */
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../shared/logger';

export interface PollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn?: string;
  handler: (event: SQSEvent, context?: unknown) => Promise<SQSBatchResponse | undefined>;
  batchSize?: number;
  waitTimeSeconds?: number;
}

export interface Poller {
  /** True while a received batch is being handled. */
  readonly busy: boolean;
  stop(): Promise<void>;
}

function toRecord(m: Message, arn: string): SQSRecord {
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
      SenderId: m.Attributes?.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: arn.split(':')[3] ?? 'local',
  };
}

/** Starts polling `queueUrl` until stop() is called. */
export async function startPoller(o: PollerOptions): Promise<Poller> {
  const { ReceiveMessageCommand, DeleteMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  let running = true;
  let busy = false;
  const arn = o.queueArn ?? `arn:aws:sqs:local:000000000000:${o.queueUrl.split('/').pop()}`;
  const loop = (async () => {
    while (running) {
      try {
        const r = await o.client.send(
          new ReceiveMessageCommand({
            QueueUrl: o.queueUrl,
            MaxNumberOfMessages: o.batchSize ?? 1,
            WaitTimeSeconds: o.waitTimeSeconds ?? 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        const messages = r.Messages ?? [];
        if (messages.length === 0 || !running) continue;
        busy = true;
        let failed = new Set<string>(messages.map((m) => m.MessageId ?? ''));
        try {
          const res = await o.handler({ Records: messages.map((m) => toRecord(m, arn)) }, {});
          failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        } catch (e) {
          logger.error('worker threw; the whole batch comes back', { queueUrl: o.queueUrl, error: e });
        }
        const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
        if (done.length) {
          await o.client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: o.queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
            }),
          );
        }
      } catch (e) {
        if (running) logger.warn('SQS poll failed', { queueUrl: o.queueUrl, error: e });
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        busy = false;
      }
    }
  })();
  return {
    get busy() {
      return busy;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
