/** The process job of a view of several shards, spread over shard messages on both queue backends. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { stageRunIds } from '../../../lib/process-job/anomaly-store';
import { setLogLevel } from '../../../lib/shared/logger';
import { backendName } from '../../support/db';
import {
  type DetectionViewOptions,
  loadedDetectionView,
  type StoredAnomaly,
  storedAnomalies,
} from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness, sqsHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

// A shard store that fails while `fault.on`: only the shard messages write through this export.
// `onWrite` runs before a shard's write (e.g. to change a setting while the run is under way).
const fault = vi.hoisted(() => ({ on: false, onWrite: undefined as (() => void) | undefined }));
vi.mock('../../../lib/process-job/run', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../../lib/process-job/run')>();
  return {
    ...m,
    writeShard: (...args: Parameters<typeof m.writeShard>) => {
      fault.onWrite?.();
      return fault.on ? Promise.reject(new Error('the shard store is down')) : m.writeShard(...args);
    },
  };
});

const DAYS = 28;
const series = (country: string, city: string, base: number, spikeAt: number) => ({
  categories: { country, city },
  values: Array.from({ length: DAYS }, (_, t) => (t === spikeAt ? base * 3 : base + (t % 7))),
});

/** Two countries of three cities each: with shards of 2 series the plan has several shards. */
const view = (name: string): DetectionViewOptions => ({
  name,
  categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
  detectors: [
    { type: 'dod', params: { percentualChange: 30, mode: 'both', useSpecialDates: false, minVolume: 0 } },
    { type: 'peer', params: {} },
  ],
  series: [
    series('CZ', 'Prague', 100, 19),
    series('CZ', 'Brno', 80, 12),
    series('CZ', 'Ostrava', 60, 25),
    series('DE', 'Berlin', 120, 19),
    series('DE', 'Munich', 90, 8),
    series('DE', 'Hamburg', 70, 22),
  ],
});

const withoutIds = (rows: StoredAnomaly[]) => rows.map(({ id: _id, ...r }) => r);

function fanOutSuite(makeHarness: () => QueueHarness): void {
  const harness = makeHarness();
  describe(`the fanned-out process job through the ${harness.name} on ${backendName}`, () => {
    let s: TestService;
    let source: TestSource;
    const process = async (id: number) => {
      const r = await s.call('POST', `/api/v1/dataviews/${id}/jobs/process`, { auth: s.adminToken });
      expect(r.status, r.text).toBe(202);
      await harness.idle();
      return (await s.call('GET', `/api/v1/jobs/${r.body.id}`, { auth: s.adminToken })).body;
    };
    const anomalies = (id: number) => storedAnomalies(s.container.db, id, ['country', 'city']);

    beforeAll(async () => {
      s = await startTestService({
        DETECTION_SHARD_SIZE: '2',
        JOB_MAX_ATTEMPTS: '2',
        JOB_RETRY_DELAY_SECONDS: '0',
      });
      setLogLevel('silent');
      await harness.install(s.container);
      source = await createTestSource();
    });
    afterAll(async () => {
      fault.on = false;
      await harness.stop();
      await s.stop();
      await source.stop();
    });

    it('finishes the job with the same anomalies as one worker running every shard', async () => {
      const id = await loadedDetectionView(s.container.db, source, view('fanned'));
      s.container.config.detection.fanOut = false;
      const single = await process(id);
      expect(single).toMatchObject({ status: 'finished' });
      expect(single.detail.fannedOut).toBeUndefined();
      // The after-cycle hooks ran once the run published, and said so in the job detail.
      expect(single.detail).toMatchObject({ summaries: [], alerts: [] });
      const expected = withoutIds(await anomalies(id));
      expect(expected.length).toBeGreaterThan(0);

      s.container.config.detection.fanOut = true;
      const fanned = await process(id);
      expect(fanned).toMatchObject({ status: 'finished', error: null, attempts: 1 });
      expect(fanned.detail).toMatchObject({ fannedOut: true, anomalies: single.detail.anomalies });
      expect(fanned.detail).toMatchObject({ summaries: [], alerts: [] });
      expect(fanned.detail.shards).toBeGreaterThan(1);
      expect([...fanned.detail.shardsDone].sort((a, b) => a - b)).toEqual(
        Array.from({ length: fanned.detail.shards }, (_, i) => i),
      );
      expect(withoutIds(await anomalies(id))).toEqual(expected);
    });

    it('cuts the shards as the coordinator did when a worker has another shard size', async () => {
      const id = await loadedDetectionView(s.container.db, source, view('resized'));
      s.container.config.detection.fanOut = true;
      fault.onWrite = () => {
        s.container.config.detection.shardSize = 5;
      };
      try {
        const job = await process(id);
        expect(job).toMatchObject({ status: 'finished', attempts: 1, error: null });
        expect(job.detail).toMatchObject({ fannedOut: true, shardSize: 2 });
        expect(job.detail.shards).toBeGreaterThan(2);
        expect(job.detail.shardsDone).toHaveLength(job.detail.shards);
      } finally {
        fault.onWrite = undefined;
        s.container.config.detection.shardSize = 2;
      }
    });

    it('fails the job when a shard keeps failing, and keeps the previous anomalies', async () => {
      const id = await loadedDetectionView(s.container.db, source, view('faulty'));
      expect((await process(id)).status).toBe('finished');
      const before = await anomalies(id);
      fault.on = true;
      const failed = await process(id);
      fault.on = false;
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/^shard \d+ of \d+ failed: the shard store is down/);
      expect(await anomalies(id)).toEqual(before);
      expect(await stageRunIds(s.container.db, schemaNameFor(id))).toEqual([]);
    });
  });
}

fanOutSuite(localHarness);
fanOutSuite(sqsHarness);
