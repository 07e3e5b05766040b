import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { inProcessDelivery, LocalQueue } from '../../../lib/queue/local';
import type { WorkerName } from '../../../lib/queue/port';
import { receiveCount } from '../../../lib/queue/records';

function recorder() {
  const seen: Array<{ worker: WorkerName; receive: number; body: string }> = [];
  const deliver = async (worker: WorkerName, event: SQSEvent) => {
    for (const r of event.Records) seen.push({ worker, receive: receiveCount(r), body: r.body });
  };
  return { seen, deliver };
}

describe('the local dispatcher', () => {
  it('sends an SQS-shaped record carrying only the job message', async () => {
    const { seen, deliver } = recorder();
    await new LocalQueue(deliver, { maxAttempts: 3, retryDelayMs: 0 }).send('load', {
      jobId: 7,
      dataViewId: 2,
      kind: 'Load',
    });
    expect(seen).toEqual([{ worker: 'load', receive: 1, body: '{"jobId":7,"dataViewId":2,"kind":"Load"}' }]);
  });

  it('redelivers a failed record with a higher receive count, then hands it to the dead-letter handler', async () => {
    const { seen, deliver } = recorder();
    const q = new LocalQueue(deliver, { maxAttempts: 2, retryDelayMs: 0 });
    await q.send('process', { jobId: 1, dataViewId: 1, kind: 'Process' });
    const { sqsRecord } = await import('../../../lib/queue/records');
    const first = sqsRecord('process', { jobId: 1, dataViewId: 1, kind: 'Process' });
    await q.redeliver('process', [first]);
    const second = { ...first, attributes: { ...first.attributes, ApproximateReceiveCount: '2' } };
    await q.redeliver('process', [second]);
    expect(seen.map((s) => `${s.worker}#${s.receive}`)).toEqual(['process#1', 'process#2', 'deadLetters#2']);
  });

  it('runs in-process handlers on a later tick and reports when all work is done', async () => {
    const order: string[] = [];
    const delivery = inProcessDelivery({
      load: async () => {
        order.push('handled');
        return { batchItemFailures: [] };
      },
    });
    const q = new LocalQueue(delivery, { maxAttempts: 3, retryDelayMs: 0 });
    await q.send('load', { jobId: 1, dataViewId: 1, kind: 'Load' });
    order.push('sent');
    await q.idle();
    expect(order).toEqual(['sent', 'handled']);
  });
});
