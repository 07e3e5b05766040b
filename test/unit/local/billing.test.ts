import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configuredMemory, usageBetween, usageMeter, usageTotals } from '../../../scripts/local/billing';

const root = path.resolve(import.meta.dirname, '../../..');

describe('what local invocations would be billed on AWS', () => {
  it('reads each function memory from serverless.yml, the provider default for the rest', () => {
    const memory = configuredMemory(path.join(root, 'serverless.yml'));
    expect(memory['anomaly-monitor-local-processWorker']).toBe(3008);
    expect(memory['anomaly-monitor-local-health']).toBe(1024);
  });

  it('bills each invocation rounded up to the millisecond times its memory, and counts SQS requests of queued ones', () => {
    const meter = usageMeter({ w: 2048, 'svc-local-cronLoads': 1024 });
    meter.record('w', 1000.2);
    const before = meter.snapshot();
    meter.record('w', 499.1);
    meter.record('svc-local-cronLoads', 0.2);
    const after = meter.snapshot();
    expect(after.w).toEqual({
      invocations: 2,
      billedMs: 1501,
      memoryMb: 2048,
      gbSeconds: 1.001 * 2 + 0.5 * 2,
    });
    const between = usageBetween(before, after);
    expect(between.w).toMatchObject({ invocations: 1, billedMs: 500 });
    expect(between['svc-local-cronLoads']).toMatchObject({ invocations: 1, billedMs: 1 });
    expect(usageTotals(between)).toEqual({ gbSeconds: 1 + 0.001, requests: 2, sqsRequests: 3 });
  });
});
