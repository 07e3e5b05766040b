import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config/config';
import { type PeerGroup, planShards } from '../../../lib/process-job/layout';
import { shardSizeWithin } from '../../../lib/process-job/run';

/** 40 peer groups of 25 series: 1,000 series. */
const groups: PeerGroup[] = Array.from({ length: 40 }, (_, g) => ({
  parentId: 0,
  category: 0,
  memberIds: Array.from({ length: 25 }, (_, i) => 1 + g * 25 + i),
}));

describe('shard size within a number of shards', () => {
  it('keeps the shard size while the shards are few enough, and grows it to stay within maxShards', () => {
    expect(shardSizeWithin(groups, 100, Number.POSITIVE_INFINITY)).toBe(100);
    expect(planShards(groups, shardSizeWithin(groups, 100, Number.POSITIVE_INFINITY))).toHaveLength(10);
    expect(shardSizeWithin(groups, 100, 4)).toBe(250);
    expect(planShards(groups, shardSizeWithin(groups, 100, 4))).toHaveLength(4);
    expect(shardSizeWithin(groups, 500, 4)).toBe(500);
  });

  it('leaves the shards uncapped by default, also under npm start (its event source caps the concurrency)', () => {
    const base = { MASTER_KEY: 'k'.repeat(44) };
    expect(loadConfig({ ...base, LOCAL_LAMBDA_ENDPOINT: 'http://127.0.0.1:3002' }).detection.maxShards).toBe(
      1_000_000,
    );
    expect(loadConfig(base).localWorkerConcurrency).toBe(Math.max(2, availableParallelism()));
    expect(loadConfig({ ...base, LOCAL_WORKER_CONCURRENCY: '3' }).localWorkerConcurrency).toBe(3);
    expect(() => loadConfig({ ...base, LOCAL_WORKER_CONCURRENCY: '0' })).toThrow(/LOCAL_WORKER_CONCURRENCY/);
    expect(loadConfig(base).detection.maxShards).toBe(1_000_000);
    expect(loadConfig({ ...base, DETECTION_MAX_SHARDS: '3' }).detection.maxShards).toBe(3);
    expect(() => loadConfig({ ...base, DETECTION_MAX_SHARDS: '0' })).toThrow(/DETECTION_MAX_SHARDS/);
  });
});
