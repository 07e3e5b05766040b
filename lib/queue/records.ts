/** SQS-shaped events for the local dispatcher: the same shape Lambda's event source mapping delivers. */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { JobMessage, WorkerName } from './port';

const REGION = 'local';

/** A record for `message` on its `receiveCount`-th delivery. */
export function sqsRecord(
  queue: WorkerName,
  message: JobMessage,
  receiveCount = 1,
  messageId = randomUUID(),
): SQSRecord {
  const body = JSON.stringify(message);
  const now = String(Date.now());
  return {
    messageId,
    receiptHandle: `local-${messageId}-${receiveCount}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: now,
      SenderId: 'anomaly-monitor',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${REGION}:000000000000:anomaly-monitor-${queue}`,
    awsRegion: REGION,
  };
}

/** The same record delivered once more. */
export function redelivered(record: SQSRecord): SQSRecord {
  const n = receiveCount(record) + 1;
  return {
    ...record,
    receiptHandle: `local-${record.messageId}-${n}`,
    attributes: { ...record.attributes, ApproximateReceiveCount: String(n) },
  };
}

export function receiveCount(record: SQSRecord): number {
  const n = Number(record.attributes?.ApproximateReceiveCount ?? 1);
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}
