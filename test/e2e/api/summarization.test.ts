import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regenerateSummariesForView } from '../../../lib/summaries/service';
import { addAnomalies, createView, type TestView } from '../../integration/filters/fixtures';
import { backendName } from '../../support/db';
import { type FakeLlm, startFakeLlm } from '../../support/fake-llm';
import { startTestService, type TestService } from '../../support/service';

describe(`filter summaries on ${backendName}`, () => {
  let s: TestService;
  let fake: FakeLlm;
  let view: TestView;
  let filterId: number;

  beforeAll(async () => {
    s = await startTestService();
    fake = await startFakeLlm();
    view = await createView(s.container.db, { domain: 'retail', name: 'sales', categories: ['country'] });
    const today = new Date().toISOString().slice(0, 10);
    await addAnomalies(s.container.db, view, [
      { startDate: today, type: 'DOD', result: 'Negative', categories: { country: 'CZ' }, sin: 3 },
      { startDate: today, type: 'Spike', result: 'Positive', categories: { country: 'DE' }, sin: 2 },
    ]);
    await s.call('POST', '/api/v1/comments', {
      auth: s.adminToken,
      body: {
        text: 'Czech stores closed for the holiday',
        email: 'admin@example.com',
        dataViewId: view.id,
        dateFrom: today,
        dateTo: today,
        categories: { country: 'CZ' },
      },
    });
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: {
        name: 'Daily watch',
        comment: 'What changed today',
        timeRange: 'This Week',
        dataViews: 'retail / sales',
        sortBy: 'SIN',
        limit: 10,
        isSummarized: true,
        instructions: 'Two sentences for the sales team.',
      },
    });
    expect(f.status).toBe(201);
    filterId = f.body.id;
  });
  afterAll(async () => {
    await s.stop();
    await fake.close();
  });

  const configure = (timeoutMs = 1000) =>
    s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: {
        url: fake.url,
        headers: { Authorization: 'Bearer sk-1' },
        bodyTemplate:
          '{"messages":[{"role":"system","content":"{{instructions}}"},{"role":"user","content":"{{prompt}}"}]}',
        responsePath: 'choices[0].message.content',
        timeoutMs,
      },
    });

  it('refuses a refresh with a readable error while no endpoint is configured, storing nothing', async () => {
    const r = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/summarization/refresh`, {
      auth: s.adminToken,
    });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/No language-model endpoint is configured/);
    const stored = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization`, {
      auth: s.adminToken,
    });
    expect(stored.body.text).toBeNull();
    expect(stored.body.lastError).toMatch(/No language-model endpoint/);
  });

  it('builds the exact prompt: settings, records with ids, matched comments, instructions', async () => {
    const r = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization/prompt`, {
      auth: s.adminToken,
    });
    expect(r.status).toBe(200);
    expect(r.body.prompt).toContain('Filter: Daily watch');
    expect(r.body.prompt).toMatch(/\[anomaly \d+\].*country=CZ/);
    expect(r.body.prompt).toContain('Czech stores closed for the holiday');
    expect(r.body.instructions).toBe('Two sentences for the sales team.');
    expect(r.body.anomaliesIncluded).toBe(2);
  });

  it('refreshes: calls the model with the prompt and stores text, time and metadata', async () => {
    expect((await configure()).status).toBe(200);
    fake.mode = 'ok';
    fake.reply = 'Sales fell in CZ because of a holiday.';
    const r = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/summarization/refresh`, {
      auth: s.adminToken,
    });
    expect(r.status).toBe(200);
    expect(r.body.text).toBe('Sales fell in CZ because of a holiday.');
    expect(r.body.generatedAt).toBeTruthy();
    expect(r.body.meta.anomalies).toBe(2);
    const sent = fake.requests.at(-1)!.body;
    expect(sent.messages[0].content).toBe('Two sentences for the sales team.');
    expect(sent.messages[1].content).toContain('Daily watch');
    const filter = await s.call('GET', `/api/v1/anomaly-filters/${filterId}`, { auth: s.adminToken });
    expect(filter.body.summary.text).toBe('Sales fell in CZ because of a holiday.');
  });

  it('uses override instructions given to refresh', async () => {
    fake.reply = 'Kurz gesagt: CZ fiel.';
    const r = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/summarization/refresh`, {
      auth: s.adminToken,
      body: { instructions: 'Answer in German.' },
    });
    expect(r.status).toBe(200);
    expect(fake.requests.at(-1)!.body.messages[0].content).toBe('Answer in German.');
  });

  it.each([
    ['slow', 502, /did not answer within/],
    ['error500', 502, /HTTP 500/],
    ['no-content', 502, /no text at the response path/],
  ] as const)('keeps the previous summary when the endpoint is %s, with a readable error', async (mode, status, message) => {
    fake.mode = mode;
    const r = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/summarization/refresh`, {
      auth: s.adminToken,
    });
    expect(r.status).toBe(status);
    expect(r.body.detail).toMatch(message);
    const stored = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization`, {
      auth: s.adminToken,
    });
    expect(stored.body.text).toBe('Kurz gesagt: CZ fiel.');
    expect(stored.body.lastError).toMatch(message);
    // What the endpoint answered is never shown to readers of the summary.
    expect(r.text).not.toMatch(/overloaded/);
    expect(stored.text).not.toMatch(/overloaded/);
    fake.mode = 'ok';
  });

  it('regenerates the summaries of summarised filters over a view after its detection cycle', async () => {
    fake.reply = 'Regenerated after the load.';
    const results = await regenerateSummariesForView(
      { db: s.container.db, secrets: s.container.secrets, clock: s.container.clock, timeZone: 'UTC' },
      { id: view.id, domain: 'retail', name: 'sales' },
    );
    expect(results).toEqual([{ filterId, ok: true }]);
    const stored = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization`, {
      auth: s.adminToken,
    });
    expect(stored.body.text).toBe('Regenerated after the load.');
    const other = await regenerateSummariesForView(
      { db: s.container.db, secrets: s.container.secrets, clock: s.container.clock, timeZone: 'UTC' },
      { id: 999, domain: 'other', name: 'view' },
    );
    expect(other).toEqual([]);
  });

  it('leaves the summaries it could not start within the budget for the next cycle, without calling the model', async () => {
    const before = fake.requests.length;
    const ended = new AbortController();
    ended.abort();
    const results = await regenerateSummariesForView(
      { db: s.container.db, secrets: s.container.secrets, clock: s.container.clock, timeZone: 'UTC' },
      { id: view.id, domain: 'retail', name: 'sales' },
      { signal: ended.signal },
    );
    expect(results).toEqual([expect.objectContaining({ filterId, ok: false, skipped: true })]);
    expect(results[0].error).toMatch(/time budget/);
    expect(fake.requests.length).toBe(before);
  });

  it('hides the summary of a filter the caller cannot see', async () => {
    const r = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization`, { auth: s.userToken });
    expect(r.status).toBe(404);
  });
});
