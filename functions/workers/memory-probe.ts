/**
 * One log line per worker invocation with the memory its isolate held at most ("worker memory"): heap used
 * and reserved, external and array buffers, sampled every 250 ms and at the end. Under `npm start` every
 * invocation runs in a worker thread of serverless-offline's one process, whose RSS is shared; the heap
 * and external figures are the thread's own (Node reports them per isolate), so they are what one worker
 * needs. A synchronous stretch (a shard's detection) is sampled at its next await, while its input block
 * and results are still held. On AWS, Lambda's REPORT line gives the container's own maximum as well.
 * scripts/bench/e2e.ts reads these lines from the service log.
 */
import { isMainThread, threadId } from 'node:worker_threads';
import { logger } from '../../lib/shared/logger';

const MiB = 2 ** 20;

/** What the first record's message names: the job, its kind and the shard (index of count). */
function messageOf(event: unknown): Record<string, unknown> {
  try {
    const body = JSON.parse((event as { Records?: Array<{ body?: string }> }).Records?.[0]?.body ?? '');
    return {
      jobId: body.jobId,
      kind: body.kind,
      ...(body.shard ? { shard: body.shard.index, of: body.shard.count } : {}),
    };
  } catch {
    return {};
  }
}

export function withMemoryProbe<F extends (event: any, context?: any) => Promise<unknown>>(
  worker: string,
  handler: F,
): F {
  return (async (event: unknown, context?: unknown) => {
    const t0 = performance.now();
    const peak = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, rss: 0 };
    const sample = () => {
      const m = process.memoryUsage();
      peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
      peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal);
      peak.external = Math.max(peak.external, m.external);
      peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
      peak.rss = Math.max(peak.rss, m.rss);
    };
    sample();
    const timer = setInterval(sample, 250);
    timer.unref();
    try {
      return await handler(event, context);
    } finally {
      clearInterval(timer);
      sample();
      logger.info('worker memory', {
        worker,
        ...messageOf(event),
        ms: Math.round(performance.now() - t0),
        thread: isMainThread ? 0 : threadId,
        heapUsedMiB: Math.round(peak.heapUsed / MiB),
        heapTotalMiB: Math.round(peak.heapTotal / MiB),
        externalMiB: Math.round(peak.external / MiB),
        arrayBuffersMiB: Math.round(peak.arrayBuffers / MiB),
        // The process's: under serverless-offline, every thread's together.
        processRssMiB: Math.round(peak.rss / MiB),
      });
    }
  }) as F;
}
