/**
 * The local dispatcher (default backend): delivers SQS-shaped events to the same worker handlers that
 * run on AWS, either in this process (tests, tools) or through serverless-offline's Lambda invoke
 * endpoint (`npm start`). Like SQS it redelivers a failed record up to maxAttempts times, then hands
 * it to the dead-letter handler.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../shared/logger';
import type { JobMessage, JobQueue, QueueName, WorkerName } from './port';
import { receiveCount, redelivered, sqsEvent, sqsRecord } from './records';

/** Hands an event to a worker function; resolves once the event is accepted (not when it is done). */
export type Delivery = (worker: WorkerName, event: SQSEvent) => Promise<void>;

export type WorkerHandler = (event: SQSEvent, context?: unknown) => Promise<SQSBatchResponse | undefined>;

export interface LocalQueueOptions {
  maxAttempts: number;
  retryDelayMs: number;
}

export class LocalQueue implements JobQueue {
  readonly backend = 'local' as const;

  constructor(
    private readonly deliver: Delivery,
    private readonly options: LocalQueueOptions,
  ) {}

  async send(queue: QueueName, message: JobMessage): Promise<void> {
    await this.deliver(queue, sqsEvent([sqsRecord(queue, message)]));
  }

  /** With in-process delivery: resolves when every delivered event has been handled. */
  async idle(): Promise<void> {
    await (this.deliver as Partial<InProcessDelivery>).idle?.();
  }

  async redeliver(queue: QueueName, records: SQSRecord[]): Promise<void> {
    const again = records.filter((r) => receiveCount(r) < this.options.maxAttempts);
    const dead = records.filter((r) => receiveCount(r) >= this.options.maxAttempts);
    if (dead.length) await this.deliver('deadLetters', sqsEvent(dead));
    if (again.length === 0) return;
    if (this.options.retryDelayMs > 0) await new Promise((r) => setTimeout(r, this.options.retryDelayMs));
    await this.deliver(queue, sqsEvent(again.map(redelivered)));
  }
}

/** The worker handler of each queue this process serves; handed in by whoever builds the queue. */
export type WorkerHandlers = Partial<Record<WorkerName, WorkerHandler>>;

export interface InProcessDelivery extends Delivery {
  /** Resolves when every delivered event, and whatever it led to, has been handled. */
  idle(): Promise<void>;
  /** Events of queues that have no worker in this process: they wait, as on an SQS queue nobody polls. */
  waiting(): number;
}

/**
 * Delivery to the given handlers in this process, on a later tick, so that a request never waits for
 * its job. `handlers` may be a function: the workers of a container are built once it is complete.
 */
export function inProcessDelivery(
  handlers: WorkerHandlers | (() => WorkerHandlers | undefined) = {},
): InProcessDelivery {
  const running = new Set<Promise<void>>();
  let waiting = 0;
  const deliver = (async (worker: WorkerName, event: SQSEvent) => {
    const handler = (typeof handlers === 'function' ? handlers() : handlers)?.[worker];
    if (!handler) {
      waiting += event.Records.length;
      logger.info('no worker of this queue in this process; the message waits undelivered', { worker });
      return;
    }
    const p: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => handler(event, {}))
      .then(
        () => undefined,
        (e) => logger.error('worker crashed', { worker, error: e }),
      )
      .finally(() => running.delete(p));
    running.add(p);
  }) as InProcessDelivery;
  deliver.idle = async () => {
    while (running.size > 0) await Promise.allSettled([...running]);
  };
  deliver.waiting = () => waiting;
  return deliver;
}

/** serverless-offline's names of the worker functions (service-stage-function). */
export const LOCAL_FUNCTION_NAMES: Record<WorkerName | 'cronLoads', string> = {
  load: 'anomaly-monitor-local-loadWorker',
  process: 'anomaly-monitor-local-processWorker',
  replay: 'anomaly-monitor-local-replayWorker',
  deadLetters: 'anomaly-monitor-local-deadLetters',
  cronLoads: 'anomaly-monitor-local-cronLoads',
};

/** Invokes a local Lambda asynchronously (InvocationType Event) through serverless-offline's invoke endpoint. */
export async function invokeLocalLambda(
  endpoint: string,
  functionName: string,
  payload: unknown,
): Promise<void> {
  const url = `${endpoint.replace(/\/$/, '')}/2015-03-31/functions/${functionName}/invocations`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
    body: JSON.stringify(payload),
  });
  if (res.status >= 300)
    throw new Error(
      `local Lambda ${functionName} answered ${res.status}: ${(await res.text()).slice(0, 200)}`,
    );
}

/** Delivery through serverless-offline: each worker runs as its own function, as on AWS. */
export function lambdaDelivery(endpoint: string): Delivery {
  return (worker, event) => invokeLocalLambda(endpoint, LOCAL_FUNCTION_NAMES[worker], event);
}
