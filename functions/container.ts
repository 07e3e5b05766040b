/**
 * The process-wide container of the functions: built on first use from the config (a Lambda keeps it
 * warm between invocations) with this service's workers, and handed to lib/ by every handler.
 */
import { buildContainer, type Container } from '../lib/app/container';
import { workerHandlers } from '../lib/app/workers';
import { config } from '../lib/config/config';

let current: Promise<Container> | undefined;

export function getContainer(): Promise<Container> {
  current ??= buildContainer(config(), {}, { workers: (c) => workerHandlers(async () => c) }).catch((e) => {
    current = undefined;
    throw e;
  });
  return current;
}

/** Tests and tools install their own container (or clear it with undefined). */
export function setContainer(c: Container | undefined): void {
  current = c ? Promise.resolve(c) : undefined;
}

/** The service database of the container, for route tables whose use cases need only it. */
export async function serviceDb() {
  return (await getContainer()).db;
}
