import { describe, expect, it } from 'vitest';
import { parseJobMessage } from '../../../lib/queue/port';

describe('a job message body', () => {
  it('carries an optional shard of a fanned-out process job', () => {
    const shard = { runId: 7, index: 1, count: 3, attempt: 1 };
    expect(parseJobMessage(JSON.stringify({ jobId: 7, dataViewId: 2, kind: 'Process', shard }))).toEqual({
      jobId: 7,
      dataViewId: 2,
      kind: 'Process',
      shard,
    });
  });

  it('is refused when its shard is not one of the run', () => {
    const body = (shard: unknown) => JSON.stringify({ jobId: 7, dataViewId: 2, kind: 'Process', shard });
    expect(() => parseJobMessage(body({ runId: 7, index: 3, count: 3, attempt: 1 }))).toThrow(
      /not a shard message/,
    );
    expect(() => parseJobMessage(body({ runId: 7, index: 0, count: 3 }))).toThrow(/not a shard message/);
    expect(() => parseJobMessage(body(null))).toThrow(/not a shard message/);
  });
});
