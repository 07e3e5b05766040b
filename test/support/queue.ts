/**
 * Job queue harnesses for tests: the local dispatcher delivering in process, and Amazon SQS on the
 * fauxqs emulator (127.0.0.1 only) with pollers standing in for Lambda's event source mapping.
 * Both deliver to the real worker handlers of functions/workers.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import type { Container } from '../../lib/app/container';
import { inProcessDelivery, LocalQueue, type WorkerHandler } from '../../lib/queue/local';
import type { QueueName, WorkerName } from '../../lib/queue/port';
import { type Poller, startPoller } from '../../lib/queue/sqs-poller';
import { SqsQueue, sqsClient } from '../../lib/queue/sqs';
import { freePort } from '../../scripts/local/ports';
import { handler as deadLetters } from '../../functions/workers/dead-letters';
import { handler as load } from '../../functions/workers/load';
import { handler as processWorker } from '../../functions/workers/process';
import { handler as replayWorker } from '../../functions/workers/replay';

export const WORKERS: Record<WorkerName, WorkerHandler> = {
  load,
  process: processWorker,
  replay: replayWorker,
  deadLetters,
};

export interface QueueHarness {
  name: string;
  /** Installs the queue into the container (after the service started). */
  install(c: Container): Promise<void>;
  /** Holds deliveries back (messages stay queued) until resume(). */
  pause(): void;
  resume(): void;
  /** Resolves when no message waits, runs or is due for redelivery. */
  idle(): Promise<void>;
  /** Messages that reached the dead-letter handler. */
  deadLettered(): number;
  stop(): Promise<void>;
}

/** The default backend: in-process delivery with the local redelivery and dead-letter rules. */
export function localHarness(): QueueHarness {
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => {};
  let dead = 0;
  let delivery: ReturnType<typeof inProcessDelivery> | undefined;
  const held =
    (name: WorkerName): WorkerHandler =>
    async (event, ctx) => {
      await gate;
      if (name === 'deadLetters') dead += event.Records.length;
      return WORKERS[name](event, ctx);
    };
  return {
    name: 'local dispatcher',
    async install(c) {
      delivery = inProcessDelivery({
        load: held('load'),
        process: held('process'),
        replay: held('replay'),
        deadLetters: held('deadLetters'),
      });
      c.queue = new LocalQueue(delivery, { maxAttempts: c.config.jobs.maxAttempts, retryDelayMs: 0 });
    },
    pause() {
      gate = new Promise((r) => {
        open = r;
      });
    },
    resume: () => open(),
    idle: async () => delivery?.idle(),
    deadLettered: () => dead,
    stop: async () => {},
  };
}

/** Amazon SQS as the fauxqs emulator serves it, with a dead-letter queue after maxAttempts receives. */
export function sqsHarness(): QueueHarness {
  let app: { close(): Promise<unknown> } | undefined;
  let client: SQSClient;
  let pollers: Poller[] = [];
  let urls: Record<QueueName | 'dlq', string>;
  let paused = false;
  let dead = 0;
  const startPollers = async () => {
    pollers = [
      await startPoller({ client, queueUrl: urls.load, handler: WORKERS.load as never, waitTimeSeconds: 0 }),
      await startPoller({
        client,
        queueUrl: urls.process,
        handler: WORKERS.process as never,
        waitTimeSeconds: 0,
      }),
      await startPoller({
        client,
        queueUrl: urls.replay,
        handler: WORKERS.replay as never,
        waitTimeSeconds: 0,
      }),
      await startPoller({
        client,
        queueUrl: urls.dlq,
        handler: (async (event: SQSEvent) => {
          dead += event.Records.length;
          return WORKERS.deadLetters(event);
        }) as never,
        waitTimeSeconds: 0,
      }),
    ];
  };
  const waiting = async () => {
    const { GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
    let n = 0;
    for (const url of Object.values(urls)) {
      const r = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
      const a = r.Attributes ?? {};
      n += Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0);
      n += Number(a.ApproximateNumberOfMessagesDelayed ?? 0);
    }
    return n;
  };
  return {
    name: 'Amazon SQS (fauxqs)',
    async install(c) {
      const { buildApp } = await import('fauxqs');
      const port = await freePort();
      const fastify = buildApp({ logger: false });
      // Loopback only: fauxqs' own start helper listens on every interface.
      await fastify.listen({ port, host: '127.0.0.1' });
      app = fastify;
      const endpoint = `http://127.0.0.1:${port}`;
      client = await sqsClient('us-east-1', endpoint);
      const { CreateQueueCommand, GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
      const dlq = (await client.send(new CreateQueueCommand({ QueueName: 'jobs-dlq' }))).QueueUrl!;
      const dlqArn = (
        await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ['QueueArn'] }))
      ).Attributes!.QueueArn!;
      const attributes = {
        VisibilityTimeout: '1',
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: String(c.config.jobs.maxAttempts),
        }),
      };
      const make = async (name: string) =>
        (await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl!;
      urls = {
        load: await make('jobs-load'),
        process: await make('jobs-process'),
        replay: await make('jobs-replay'),
        dlq,
      };
      c.queue = new SqsQueue(client, { load: urls.load, process: urls.process, replay: urls.replay }, 0);
      await startPollers();
    },
    pause() {
      paused = true;
      const stopping = pollers;
      pollers = [];
      void Promise.all(stopping.map((p) => p.stop()));
    },
    resume() {
      if (!paused) return;
      paused = false;
      void startPollers();
    },
    async idle() {
      for (let i = 0; i < 600; i++) {
        if (
          !paused &&
          pollers.every((p) => !p.busy) &&
          (await waiting()) === 0 &&
          pollers.every((p) => !p.busy)
        )
          return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the SQS queues did not drain within 60 s');
    },
    deadLettered: () => dead,
    async stop() {
      await Promise.all(pollers.map((p) => p.stop()));
      client?.destroy();
      await app?.close();
    },
  };
}
