/**
 * The e2e bench's memory per worker: the process worker's probe (functions/workers/memory-probe.ts) logs one
 * "worker memory" line per invocation, naming the job and the shard, and the bench reads those lines back
 * from the service log (scripts/bench/e2e.ts workerMemory). No service is started.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withMemoryProbe } from '../../functions/workers/memory-probe';
import { logger } from '../../lib/shared/logger';
import { workerMemory } from '../../scripts/bench/e2e';

const shardEvent = {
  Records: [
    { body: JSON.stringify({ jobId: 42, dataViewId: 1, kind: 'Process', shard: { index: 3, count: 9 } }) },
  ],
};

describe('bench e2e: memory per worker', () => {
  afterEach(() => vi.restoreAllMocks());

  it('logs one line per invocation with the job, the shard and the isolate memory, which the bench reads back', async () => {
    const lines: string[] = [];
    vi.spyOn(logger, 'info').mockImplementation((message, fields) => {
      // As Powertools writes it, behind what serverless-offline prints before a line.
      lines.push(`[offline] ${JSON.stringify({ level: 'INFO', message, ...fields })}`);
    });
    let held: Float64Array | undefined;
    const handler = withMemoryProbe('process', async (_event: unknown) => {
      held = new Float64Array(4 * 2 ** 20); // 32 MiB outside the heap, held across an await
      await new Promise((r) => setTimeout(r, 300));
      return { batchItemFailures: [] };
    });
    expect(await handler(shardEvent)).toEqual({ batchItemFailures: [] });
    expect(held?.length).toBe(4 * 2 ** 20);
    const read = workerMemory(
      ['some other line', '{"message":"request"}', ...lines, '{"message":"worker memory", cut'].join('\n'),
    );
    expect(read).toHaveLength(1);
    const [w] = read;
    expect(w).toMatchObject({ worker: 'process', kind: 'Process', jobId: 42, shard: 3, of: 9 });
    expect(w.arrayBuffersMiB).toBeGreaterThanOrEqual(32);
    expect(w.externalMiB).toBeGreaterThanOrEqual(w.arrayBuffersMiB);
    expect(w.heapTotalMiB).toBeGreaterThanOrEqual(w.heapUsedMiB);
    expect(Number.isInteger(w.ms)).toBe(true);
  });

  it('logs the line when the handler fails, and a job message without a shard names none', async () => {
    const fields: Array<Record<string, unknown> | undefined> = [];
    vi.spyOn(logger, 'info').mockImplementation((_m, f) => {
      fields.push(f);
    });
    const handler = withMemoryProbe('process', async (_event: unknown) => {
      throw new Error('shard failed');
    });
    const jobEvent = { Records: [{ body: JSON.stringify({ jobId: 7, dataViewId: 1, kind: 'Process' }) }] };
    await expect(handler(jobEvent)).rejects.toThrow('shard failed');
    expect(fields).toHaveLength(1);
    expect(fields[0]).toMatchObject({ worker: 'process', jobId: 7, kind: 'Process' });
    expect(fields[0]).not.toHaveProperty('shard');
  });
});
