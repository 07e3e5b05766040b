/** Builds the job queue of the configuration: the local dispatcher by default, SQS when QUEUE_BACKEND=sqs. */
import type { Config } from '../config/config';
import { inProcessDelivery, lambdaDelivery, LocalQueue } from './local';
import type { JobQueue, QueueName } from './port';
import { createSqsQueue } from './sqs';

export async function createQueue(cfg: Config): Promise<JobQueue> {
  if (cfg.queue.backend === 'sqs') {
    return createSqsQueue({
      region: cfg.awsRegion,
      endpoint: cfg.queue.sqsEndpoint,
      queueUrls: cfg.queue.queueUrls as Partial<Record<QueueName, string>>,
      retryDelaySeconds: cfg.jobs.retryDelaySeconds,
    });
  }
  const deliver = cfg.queue.lambdaEndpoint ? lambdaDelivery(cfg.queue.lambdaEndpoint) : inProcessDelivery();
  return new LocalQueue(deliver, {
    maxAttempts: cfg.jobs.maxAttempts,
    retryDelayMs: cfg.jobs.retryDelaySeconds * 1000,
  });
}

export type { JobMessage, JobQueue, QueueName, WorkerName } from './port';
