/**
 * The fault suite (issue 20): what happens when things break under a running service. Every case checks that the
 * previous data and anomalies survive and that the job ends in a clear state. The kill -9 of a real load worker
 * process is in kill-load-worker.test.ts.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { schemaNameFor } from '../../lib/dataset/ddl';
import { stageRunIds } from '../../lib/process-job/anomaly-store';
import type { OpenSource } from '../../lib/pipeline/source';
import { sqsEvent, sqsRecord } from '../../lib/queue/records';
import { setLogLevel } from '../../lib/shared/logger';
import {
  type DetectionViewOptions,
  loadedDetectionView,
  storedAnomalies,
} from '../support/detection-fixture';
import { type FakeLlm, startFakeLlm, chatSettings } from '../support/fake-llm';
import { createTestSource, type TestSource } from '../support/pipeline-source';
import { localHarness, WORKERS } from '../support/queue';
import { ADMIN, startTestService, type TestService } from '../support/service';

// Shard `fault.shard` of a fanned-out process job fails every time it runs; the others work.
const fault = vi.hoisted(() => ({ shard: -1, runs: new Map<number, number>() }));
vi.mock('../../lib/process-job/fan-out', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../lib/process-job/fan-out')>();
  return {
    ...m,
    runFanOutShard: (...args: Parameters<typeof m.runFanOutShard>) => {
      const shard = args[2];
      fault.runs.set(shard.index, (fault.runs.get(shard.index) ?? 0) + 1);
      return shard.index === fault.shard
        ? Promise.reject(new Error(`shard ${shard.index} crashed`))
        : m.runFanOutShard(...args);
    },
  };
});

const DAYS = 28;
const view = (name: string): DetectionViewOptions => ({
  name,
  categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
  detectors: [
    { type: 'dod', params: { percentualChange: 30, mode: 'both', useSpecialDates: false, minVolume: 0 } },
  ],
  series: [
    ['CZ', 'Prague', 100, 19],
    ['CZ', 'Brno', 80, 12],
    ['DE', 'Berlin', 120, 9],
    ['DE', 'Munich', 90, 22],
  ].map(([country, city, base, spikeAt]) => ({
    categories: { country: country as string, city: city as string },
    values: Array.from({ length: DAYS }, (_, t) =>
      t === spikeAt ? (base as number) * 3 : (base as number) + (t % 7),
    ),
  })),
});

describe('the fault suite', () => {
  const harness = localHarness();
  let s: TestService;
  let source: TestSource;
  let fake: FakeLlm;
  const admin = () => ({ auth: s.adminToken });
  const job = async (id: number) => (await s.call('GET', `/api/v1/jobs/${id}`, admin())).body;
  const run = async (path: string) => {
    const r = await s.call('POST', path, admin());
    expect(r.status, r.text).toBe(202);
    await harness.idle();
    return job(r.body.id);
  };
  /** What a failure must leave as it was: the loaded rows, the series and the anomalies. */
  const snapshot = async (id: number) => {
    const schema = schemaNameFor(id);
    const count = async (table: string) =>
      Number(
        (
          await s.container.db.rows<{ n: number }>(
            sql.raw(`SELECT count(*)::int AS n FROM ${schema}.${table}`),
          )
        )[0].n,
      );
    return {
      int: await count('"int"'),
      data: await count('data'),
      anomalies: await storedAnomalies(s.container.db, id, ['country', 'city']),
    };
  };

  beforeAll(async () => {
    s = await startTestService({
      DETECTION_SHARD_SIZE: '1',
      JOB_MAX_ATTEMPTS: '2',
      JOB_RETRY_DELAY_SECONDS: '0',
    });
    setLogLevel('silent');
    await harness.install(s.container);
    source = await createTestSource();
    s.container.sources = source.open;
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await harness.stop();
    await s?.stop();
    await source?.stop();
    await fake?.close();
  });

  it('an empty full load fails clearly and leaves the previous data and anomalies intact', async () => {
    const id = await loadedDetectionView(s.container.db, source, view('emptied'));
    expect((await run(`/api/v1/dataviews/${id}/jobs/process`)).status).toBe('finished');
    const before = await snapshot(id);
    expect(before.int).toBeGreaterThan(0);
    expect(before.anomalies.length).toBeGreaterThan(0);
    await source.exec('TRUNCATE emptied');
    const failed = await run(`/api/v1/dataviews/${id}/jobs/load`);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/returned no rows; the previous data and anomalies are kept/);
    expect(await snapshot(id)).toEqual(before);
  });

  it('a duplicate delivery while a job runs starts no second run', async () => {
    const id = await loadedDetectionView(s.container.db, source, view('duplicated'));
    let opens = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let streaming: () => void = () => {};
    const started = new Promise<void>((r) => {
      streaming = r;
    });
    const slow: OpenSource = async (name) => {
      opens++;
      const real = await source.open(name);
      return {
        ...real,
        async *stream(text, opts) {
          for await (const batch of real.stream(text, opts)) {
            streaming();
            await gate;
            yield batch;
          }
        },
        async *streamColumns(text, opts) {
          for await (const batch of real.streamColumns!(text, opts)) {
            streaming();
            await gate;
            yield batch;
          }
        },
      };
    };
    harness.pause();
    const queued = await s.call('POST', `/api/v1/dataviews/${id}/jobs/load`, admin());
    expect(queued.status).toBe(202);
    s.container.sources = slow;
    try {
      const message = { jobId: queued.body.id, dataViewId: id, kind: 'Load' as const };
      const first = WORKERS.load(
        sqsEvent([sqsRecord('load', message, 1, '00000000-0000-4000-8000-000000000001')]),
        {},
      );
      await started;
      // The same message again (SQS at-least-once delivery) while the first attempt streams.
      const second = await WORKERS.load(
        sqsEvent([sqsRecord('load', message, 1, '00000000-0000-4000-8000-000000000001')]),
        {},
      );
      expect(second).toEqual({ batchItemFailures: [] });
      expect((await job(queued.body.id)).status).toBe('running');
      release();
      expect(await first).toEqual({ batchItemFailures: [] });
    } finally {
      s.container.sources = source.open;
      harness.resume();
    }
    await harness.idle(); // the queued original is delivered too: dropped, the job is done
    expect(opens).toBe(1);
    expect(await job(queued.body.id)).toMatchObject({ status: 'finished', attempts: 1 });
  });

  it('one detection shard failing is retried, then fails the job; the previous anomalies stay and no staging table is left', async () => {
    const id = await loadedDetectionView(s.container.db, source, view('sharded'));
    s.container.config.detection.fanOut = true;
    try {
      const ok = await run(`/api/v1/dataviews/${id}/jobs/process`);
      expect(ok).toMatchObject({ status: 'finished' });
      expect(ok.detail.shards).toBeGreaterThan(2);
      const before = await snapshot(id);
      fault.shard = 1;
      fault.runs.clear();
      const failed = await run(`/api/v1/dataviews/${id}/jobs/process`);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/^shard 2 of \d+ failed: shard 1 crashed/);
      expect(fault.runs.get(1)).toBe(2); // retried once (JOB_MAX_ATTEMPTS 2)
      expect(await snapshot(id)).toEqual(before);
      expect(await stageRunIds(s.container.db, schemaNameFor(id))).toEqual([]);
    } finally {
      fault.shard = -1;
      s.container.config.detection.fanOut = false;
    }
  });

  it('a language-model endpoint that hangs: the process job finishes, summaries keep their previous text', async () => {
    const id = await loadedDetectionView(s.container.db, source, view('summarised'));
    const settings = await s.call('PUT', '/api/v1/settings/summarization', {
      ...admin(),
      body: {
        ...chatSettings(fake),
        timeoutMs: 1000,
      },
    });
    expect(settings.status).toBe(200);
    const filter = await s.call('POST', '/api/v1/anomaly-filters', {
      ...admin(),
      body: { name: 'Watch', dataViews: 'retail / summarised', isSummarized: true },
    });
    expect(filter.status, filter.text).toBe(201);
    fake.mode = 'ok';
    fake.reply = 'The previous summary.';
    const path = `/api/v1/anomaly-filters/${filter.body.id}/summarization`;
    expect((await s.call('POST', `${path}/refresh`, admin())).status).toBe(200);
    fake.mode = 'slow'; // answers after 3 s, beyond the 1 s time limit
    try {
      const processed = await run(`/api/v1/dataviews/${id}/jobs/process`);
      expect(processed.status).toBe('finished');
    } finally {
      fake.mode = 'ok';
    }
    const summary = (await s.call('GET', path, admin())).body;
    expect(summary.text).toBe('The previous summary.');
    expect(summary.lastError).toMatch(/did not answer within 1000 ms/);
  });

  it('20 wrong passwords end in 429 with Retry-After', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 20; i++) {
      const r = await s.call('POST', '/api/v1/auth/token', {
        body: { email: ADMIN.email, password: `nope-${i}` },
      });
      statuses.push(r.status);
      retryAfter = r.headers.get('retry-after');
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
