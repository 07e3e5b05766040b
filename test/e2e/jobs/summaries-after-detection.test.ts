/** Filter semantics 9: after a successful detection cycle, summarised filters over the view get a new summary by themselves. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { type FakeLlm, startFakeLlm, chatSettings } from '../../support/fake-llm';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

const DAYS = 28;
// 2024-01-26: the noise model judges a day once it has about three weeks of history.
const spike = Array.from({ length: DAYS }, (_, t) => (t === 25 ? 200 : 100));

describe(`summaries after detection on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let fake: FakeLlm;
  let viewId: number;

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    fake = await startFakeLlm();
    viewId = await loadedDetectionView(s.testDb.db, source, {
      name: 'summed',
      categories: [{ name: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 30 } }],
      series: [
        { categories: { country: 'CZ' }, values: spike },
        { categories: { country: 'DE' }, values: spike.map(() => 100) },
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await queue.stop();
    await source.stop();
    await fake.close();
    await s.stop();
  });

  it('regenerates the summary of a summarised filter when the process job finishes, and leaves others alone', async () => {
    const view = (await s.call('GET', `/api/v1/dataviews/${viewId}`, { auth: s.adminToken })).body;
    await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: {
        ...chatSettings(fake),
        timeoutMs: 2000,
      },
    });
    const common = {
      comment: 'January',
      timeRange: 'Custom',
      dateFrom: '2024-01-01',
      dateTo: '2024-01-31',
      dataViews: `${view.metadata.domain} / ${view.metadata.name}`,
      sortBy: 'SIN',
      limit: 10,
      instructions: 'One sentence.',
    };
    const summarised = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { ...common, name: 'With summary', isSummarized: true },
    });
    const plain = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { ...common, name: 'Without summary', isSummarized: false },
    });
    fake.reply = 'CZ doubled on 20 January.';
    const job = await s.call('POST', `/api/v1/dataviews/${viewId}/jobs/process`, { auth: s.adminToken });
    expect(job.status).toBe(202);
    await queue.idle();
    const done = await s.call('GET', `/api/v1/jobs/${job.body.id}`, { auth: s.adminToken });
    expect(done.body.status).toBe('finished');
    const summary = await s.call('GET', `/api/v1/anomaly-filters/${summarised.body.id}/summarization`, {
      auth: s.adminToken,
    });
    expect(summary.body.text).toBe('CZ doubled on 20 January.');
    expect(summary.body.meta.anomalies).toBeGreaterThan(0);
    expect(fake.requests.at(-1)!.body.messages[1].content).toContain('country=CZ');
    const none = await s.call('GET', `/api/v1/anomaly-filters/${plain.body.id}/summarization`, {
      auth: s.adminToken,
    });
    expect(none.body.text).toBeNull();
    expect(fake.requests).toHaveLength(1);
  });
});
