/** Builds the job queue of the configuration: the local dispatcher by default, SQS when QUEUE_BACKEND=sqs. */
import type { Config } from '../config/config';
import { inProcessDelivery, lambdaDelivery, LocalQueue, type WorkerHandlers } from './local';
import type { JobQueue, QueueName } from './port';
import { createSqsQueue } from './sqs';

/** `workers`: the handlers in-process delivery hands messages to (none: messages wait undelivered). */
export async function createQueue(
  cfg: Config,
  workers?: () => WorkerHandlers | undefined,
): Promise<JobQueue> {
  if (cfg.queue.backend === 'sqs') {
    return createSqsQueue({
      region: cfg.awsRegion,
      endpoint: cfg.queue.sqsEndpoint,
      queueUrls: cfg.queue.queueUrls as Partial<Record<QueueName, string>>,
      retryDelaySeconds: cfg.jobs.retryDelaySeconds,
    });
  }
  const deliver = cfg.queue.lambdaEndpoint
    ? lambdaDelivery(cfg.queue.lambdaEndpoint)
    : inProcessDelivery(workers);
  return new LocalQueue(deliver, {
    maxAttempts: cfg.jobs.maxAttempts,
    retryDelayMs: cfg.jobs.retryDelaySeconds * 1000,
  });
}

export type { JobMessage, JobQueue, QueueName, WorkerName } from './port';
