/**
 * functions/container.ts: only a worker entrypoint's container hands the job workers to the local queue's
 * in-process delivery (`withWorkers`); the container the other functions build (`getContainer`) has none,
 * so a message they send in process waits undelivered. Each test takes a fresh module (one container per
 * process) over an embedded PGlite in a temporary DATA_DIR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Container } from '../../../lib/app/container';
import type { InProcessDelivery, LocalQueue } from '../../../lib/queue/local';
import type { JobMessage, SQSEvent } from '../../../lib/queue/port';

const message: JobMessage = { jobId: 7, dataViewId: 3, kind: 'Load' };

describe('the containers of functions/container.ts', () => {
  let dataDir: string;
  let container: Container | undefined;

  /** The module as a fresh Lambda process loads it, with a local-queue config in process. */
  async function freshModule() {
    vi.resetModules();
    const { loadConfig, setConfig } = await import('../../../lib/config/config');
    setConfig(
      loadConfig({
        JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256',
        MASTER_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
        LOG_LEVEL: 'silent',
        SERVICE_STAGE: 'test',
        QUEUE_BACKEND: 'local',
        DATA_DIR: dataDir,
      }),
    );
    return import('../../../functions/container');
  }

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'function-containers-'));
  });
  afterEach(async () => {
    await container?.db.close();
    container = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a worker entrypoint's container delivers in-process messages to the workers handed in", async () => {
    const { withWorkers } = await freshModule();
    const delivered: SQSEvent[] = [];
    let getter: (() => Promise<Container>) | undefined;
    const handlers = withWorkers((get) => {
      getter = get;
      return {
        load: async (event: SQSEvent) => {
          delivered.push(event);
          return { batchItemFailures: [] };
        },
      };
    });
    expect(Object.keys(handlers)).toEqual(['load']);
    container = await (getter as () => Promise<Container>)();
    await container.queue.send('load', message);
    await (container.queue as LocalQueue).idle();
    expect(delivered.map((e) => JSON.parse(e.Records[0].body))).toEqual([message]);
    expect((container.queue as unknown as { deliver: InProcessDelivery }).deliver.waiting()).toBe(0);
  });

  it('the container of any other function has no workers: its message waits undelivered', async () => {
    const { getContainer } = await freshModule();
    container = await getContainer();
    const delivered: SQSEvent[] = [];
    // A worker list built afterwards changes nothing: the process's container is already built.
    const { withWorkers } = await import('../../../functions/container');
    withWorkers(() => ({
      load: async (event: SQSEvent) => {
        delivered.push(event);
        return { batchItemFailures: [] };
      },
    }));
    await container.queue.send('load', message);
    await (container.queue as LocalQueue).idle();
    expect(delivered).toEqual([]);
    // The queue's in-process delivery counts it as waiting (a worker of this process would have taken it).
    const delivery = (container.queue as unknown as { deliver: InProcessDelivery }).deliver;
    expect(delivery.waiting()).toBe(1);
  });
});
