/**
 * The process-wide container of the functions: built on first use from the config (a Lambda keeps it
 * warm between invocations) and handed to lib/ by every handler.
 *
 * Only the worker entrypoints (functions/workers/*) hand it the job workers, through `withWorkers`; the
 * HTTP functions, schedules and tasks neither run jobs nor carry their code in their bundles. Their
 * messages go to SQS on AWS and, under `npm start`, to the worker functions through serverless-offline's
 * invoke endpoint; a function run on its own with the local queue's in-process delivery (no invoke
 * endpoint) leaves them waiting undelivered, as on a queue nobody polls. Tests that run jobs in process
 * build their container with the workers themselves (test/support/service.ts) and install it.
 */
import { buildContainer, type Container, type ContainerWiring } from '../lib/app/container';
import { config } from '../lib/config/config';
import type { WorkerHandlers } from '../lib/queue/local';

let current: Promise<Container> | undefined;

function containerWith(wiring: ContainerWiring): Promise<Container> {
  current ??= buildContainer(config(), {}, wiring).catch((e) => {
    current = undefined;
    throw e;
  });
  return current;
}

/** The container of this process (built without workers unless a worker entrypoint built it first). */
export function getContainer(): Promise<Container> {
  return containerWith({});
}

/**
 * For the worker entrypoints: `workers` (lib/app/workers.ts) built over this process's container, which
 * in turn hands them to its local queue, so that an in-process delivery (a redelivery, the next job's
 * message) reaches them. Nothing is registered: the container is wired so when a worker builds it.
 */
export function withWorkers<W extends WorkerHandlers>(
  workers: (container: () => Promise<Container>) => W,
): W {
  const handlers: W = workers(() => containerWith({ workers: () => handlers }));
  return handlers;
}

/** Tests and tools install their own container (or clear it with undefined). */
export function setContainer(c: Container | undefined): void {
  current = c ? Promise.resolve(c) : undefined;
}

/** The service database of the container, for route tables whose use cases need only it. */
export async function serviceDb() {
  return (await getContainer()).db;
}
