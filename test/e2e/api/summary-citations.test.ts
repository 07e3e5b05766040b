/**
 * Summaries speak of incidents: after a real load and detection cycle (processCycle, as the process worker runs
 * it: incidents, then summaries), the prompt holds each incident with its root cause and citation, and the stored
 * summary keeps the citations of incidents the prompt held and loses those of anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processCycle } from '../../../lib/app/workers';
import type { JobRow } from '../../../lib/jobs/repository';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { makeNormal, makeRng } from '../../../scripts/synthetic/rng';
import { chatSettings, type FakeLlm, startFakeLlm } from '../../support/fake-llm';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { startTestService, type TestService } from '../../support/service';

const DAYS = 84;
const JUMP = 70;
const normal = makeNormal(makeRng(11));
/** A day's orders around `level` with the noise of counts. */
const noisy = (level: number) =>
  Array.from({ length: DAYS }, () => Math.max(0, Math.round(level + Math.sqrt(level) * normal())));

describe(`summaries cite incidents on ${backendName}`, () => {
  let s: TestService;
  let fake: FakeLlm;
  let source: TestSource;
  let viewId: number;
  let filterId: number;
  let prompts: string[] = [];

  beforeAll(async () => {
    s = await startTestService();
    fake = await startFakeLlm();
    source = await createTestSource();
    // Brno's orders jump sixfold on 2024-03-11: Brno, its country and the total move; Brno is the cause.
    viewId = await loadedDetectionView(s.container.db, source, {
      name: 'orders',
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      detectors: [{ type: 'dod' }, { type: 'spike' }],
      series: [
        {
          categories: { country: 'CZ', city: 'Brno' },
          values: noisy(100).map((v, t) => (t === JUMP ? 600 : v)),
        },
        { categories: { country: 'CZ', city: 'Praha' }, values: noisy(300) },
        { categories: { country: 'DE', city: 'Berlin' }, values: noisy(400) },
      ],
    });
    const put = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: { ...chatSettings(fake), timeoutMs: 5000 },
    });
    expect(put.status, put.text).toBe(200);
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: {
        name: 'Orders',
        timeRange: 'Custom',
        dateFrom: '2024-01-01',
        dateTo: '2024-03-31',
        isSummarized: true,
        instructions: 'One sentence per event.',
      },
    });
    expect(f.status, f.text).toBe(201);
    filterId = f.body.id;
    // The model cites the first incident of its prompt, one that does not exist, and a record it never saw.
    fake.reply = (body: { messages: Array<{ content: string }> }) => {
      const prompt = body.messages[1].content;
      prompts.push(prompt);
      const cited = /^- (\[incident \d+:\d+\])/m.exec(prompt)?.[1] ?? '';
      return `Brno's orders jumped sixfold ${cited}. Something else happened [incident ${viewId}:9999], see [anomaly 123456].`;
    };
    prompts = [];
    const job = { id: 501, dataViewId: viewId, kind: 'Process', status: 'running' } as unknown as JobRow;
    const detail = (await processCycle(s.container, job, new AbortController().signal)) as Record<
      string,
      any
    >;
    expect(detail.incidents.incidents).toBeGreaterThan(0);
    expect(detail.summaries).toEqual([{ filterId, ok: true }]);
  }, 120_000);

  afterAll(async () => {
    await s?.stop();
    await source?.stop();
    await fake?.close();
  });

  it('gives the model each incident once, with its citation, root cause and broad series', async () => {
    const incidents = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-03-31', incidents: true },
    });
    expect(incidents.status, incidents.text).toBe(200);
    const jump = incidents.body.anomalies.find(
      (a: any) => a.startDate === '2024-03-11' && a.result === 'Positive',
    );
    expect(jump.incident.rootCauses[0].categories).toEqual({ country: 'CZ', city: 'Brno' });
    expect(prompts).toHaveLength(1);
    const line = prompts[0]
      .split('\n')
      .find((l) => l.startsWith(`- [incident ${viewId}:${jump.incident.id}]`));
    expect(line).toBeDefined();
    expect(line).toMatch(
      /root cause: (country=CZ, city=Brno|city=Brno, country=CZ) \(actual [\d.]+ vs expected [\d.]+, change [\d.]+, \+[\d.]+ %, explains \d+ %/,
    );
    expect(line).toContain('broad series (context): all (total)');
    // Its records follow it, each with its own citation.
    expect(prompts[0]).toMatch(
      new RegExp(`\\[incident ${viewId}:${jump.incident.id}\\][^\\n]*\\n {2}- \\[anomaly \\d+\\]`),
    );
  });

  it('stores the citations of incidents the prompt held and removes the others from the text', async () => {
    const r = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization`, {
      auth: s.adminToken,
    });
    expect(r.status).toBe(200);
    const cited = [...r.body.text.matchAll(/\[incident (\d+):(\d+)\]/g)].map((m) => ({
      dataViewId: Number(m[1]),
      incidentId: Number(m[2]),
    }));
    expect(cited).toHaveLength(1);
    expect(cited[0].dataViewId).toBe(viewId);
    expect(r.body.text).toBe(
      `Brno's orders jumped sixfold [incident ${viewId}:${cited[0].incidentId}]. Something else happened, see.`,
    );
    expect(r.body.citations).toEqual({
      incidents: cited,
      anomalies: [],
      removed: [`[incident ${viewId}:9999]`, '[anomaly 123456]'],
    });
    // The filter's own answer shows the same checked text.
    const filter = await s.call('GET', `/api/v1/anomaly-filters/${filterId}`, { auth: s.adminToken });
    expect(filter.body.summary.text).toBe(r.body.text);
  });

  it('answers the prompt with what a summary of it may cite', async () => {
    const r = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization/prompt`, {
      auth: s.adminToken,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.incidentsIncluded).toBeGreaterThan(0);
    expect(r.body.citable.incidents).toHaveLength(r.body.incidentsIncluded);
    for (const c of r.body.citable.incidents)
      expect(r.body.prompt).toContain(`[incident ${c.dataViewId}:${c.incidentId}]`);
  });
});
