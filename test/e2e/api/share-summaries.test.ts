/** Shares never leak: recipients see summaries built only from the data views they can read, and their refresh is their own. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regenerateSummariesForView } from '../../../lib/summaries/service';
import { WITHHELD_NOTE } from '../../../lib/filters/summary-store';
import { addAnomalies, createView, type TestView } from '../../integration/filters/fixtures';
import { type FakeLlm, startFakeLlm, chatSettings } from '../../support/fake-llm';
import { startTestService, type TestService, USER } from '../../support/service';

describe('summaries and records of shared filters', () => {
  let s: TestService;
  let fake: FakeLlm;
  let open: TestView;
  let secret: TestView;
  let filterId: number;
  const BASE = '/api/v1/anomaly-filters';
  const lastPrompt = () => JSON.stringify(fake.requests.at(-1)!.body);

  beforeAll(async () => {
    s = await startTestService();
    fake = await startFakeLlm();
    open = await createView(s.container.db, { domain: 'retail', name: 'sales', categories: ['country'] });
    secret = await createView(s.container.db, { domain: 'hr', name: 'salaries', categories: ['country'] });
    const today = new Date().toISOString().slice(0, 10);
    await addAnomalies(s.container.db, open, [
      { startDate: today, type: 'DOD', result: 'Negative', categories: { country: 'CZ' }, sin: 3 },
    ]);
    await addAnomalies(s.container.db, secret, [
      { startDate: today, type: 'Spike', result: 'Positive', categories: { country: 'Zanzibar' }, sin: 5 },
    ]);
    const users = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [open.id] } });
    await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: {
        ...chatSettings(fake),
        timeoutMs: 2000,
      },
    });
    const f = await s.call('POST', BASE, {
      auth: s.adminToken,
      body: {
        name: 'Everything',
        timeRange: 'This Week',
        dataViews: 'retail / sales; hr / salaries',
        isSummarized: true,
        instructions: 'Owner instructions.',
      },
    });
    expect(f.status).toBe(201);
    filterId = f.body.id;
    expect(
      (
        await s.call('POST', `${BASE}/${filterId}/share`, {
          auth: s.adminToken,
          body: { targetUserIds: [userId] },
        })
      ).status,
    ).toBeLessThan(300);
    fake.reply = 'Owner summary: Zanzibar salaries spiked.';
    const r = await s.call('POST', `${BASE}/${filterId}/summarization/refresh`, { auth: s.adminToken });
    expect(r.status).toBe(200);
    expect(lastPrompt()).toContain('Zanzibar');
  });
  afterAll(async () => {
    await s?.stop();
    await fake?.close();
  });

  it("withholds the owner's summary from a recipient who cannot read all its data views, with a note", async () => {
    const r = await s.call('GET', `${BASE}/${filterId}/summarization`, { auth: s.userToken });
    expect(r.status).toBe(200);
    expect(r.body.text).toBeNull();
    expect(r.body.withheld).toBe(WITHHELD_NOTE);
    expect(r.text).not.toContain('Zanzibar');
    const owner = await s.call('GET', `${BASE}/${filterId}/summarization`, { auth: s.adminToken });
    expect(owner.body.text).toBe('Owner summary: Zanzibar salaries spiked.');
  });

  it('shows a recipient only the data views they can read in the filter record, and no foreign summary', async () => {
    for (const path of [`${BASE}/${filterId}`, BASE, `${BASE}/pinned`]) {
      const r = await s.call('GET', path, { auth: s.userToken });
      expect(r.status, path).toBe(200);
      expect(r.text, path).not.toContain('salaries');
      expect(r.text, path).not.toContain('Zanzibar');
    }
    const record = (await s.call('GET', `${BASE}/${filterId}`, { auth: s.userToken })).body;
    expect(record.dataViews).toBe('retail / sales');
    expect(record.hiddenDataViews).toBe(1);
    expect(record.summary).toBeNull();
    const own = (await s.call('GET', `${BASE}/${filterId}`, { auth: s.adminToken })).body;
    expect(own.dataViews).toBe('retail / sales; hr / salaries');
    expect(own.summary.text).toMatch(/Zanzibar/);
  });

  it("a recipient's refresh is built from their views and never changes what the owner sees", async () => {
    fake.reply = 'Recipient summary: CZ sales dropped.';
    const r = await s.call('POST', `${BASE}/${filterId}/summarization/refresh`, {
      auth: s.userToken,
      body: { instructions: 'My own instructions.' },
    });
    expect(r.status).toBe(200);
    expect(lastPrompt()).not.toContain('Zanzibar');
    expect(lastPrompt()).not.toContain('salaries');
    expect(r.body.text).toBe('Recipient summary: CZ sales dropped.');
    const owner = await s.call('GET', `${BASE}/${filterId}/summarization`, { auth: s.adminToken });
    expect(owner.body.text).toBe('Owner summary: Zanzibar salaries spiked.');
    expect(owner.body.meta.instructionsOverridden).toBe(false);
    const mine = await s.call('GET', `${BASE}/${filterId}/summarization`, { auth: s.userToken });
    expect(mine.body.text).toBe('Recipient summary: CZ sales dropped.');
  });

  it('regenerates, after a detection cycle, a summary per visibility for recipients who cannot read the owner’s', async () => {
    fake.reply = 'Regenerated.';
    const before = fake.requests.length;
    await regenerateSummariesForView(
      { db: s.container.db, secrets: s.container.secrets, clock: s.container.clock, timeZone: 'UTC' },
      { id: open.id, domain: 'retail', name: 'sales' },
    );
    const prompts = fake.requests.slice(before).map((q) => JSON.stringify(q.body));
    expect(prompts).toHaveLength(2); // the owner's and one for the recipient's visibility
    expect(prompts.filter((p) => p.includes('Zanzibar'))).toHaveLength(1);
    const mine = await s.call('GET', `${BASE}/${filterId}/summarization`, { auth: s.userToken });
    expect(mine.body.text).toBe('Regenerated.');
    expect(mine.body.meta.dataViewIds).toEqual([open.id]);
  });

  it("withholds an owner's own summary built from a data view unassigned from them since", async () => {
    fake.reply = 'Mine: CZ sales dropped.';
    const f = await s.call('POST', BASE, {
      auth: s.userToken,
      body: { name: 'My sales', timeRange: 'This Week', dataViews: 'retail / sales', isSummarized: true },
    });
    expect(f.status, f.text).toBe(201);
    const refreshed = await s.call('POST', `${BASE}/${f.body.id}/summarization/refresh`, {
      auth: s.userToken,
    });
    expect(refreshed.body.text).toBe('Mine: CZ sales dropped.');
    const users = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [] } });
    try {
      const r = await s.call('GET', `${BASE}/${f.body.id}/summarization`, { auth: s.userToken });
      expect(r.body.text).toBeNull();
      expect(r.body.withheld).toBe(WITHHELD_NOTE);
      expect(r.text).not.toContain('CZ sales');
      const record = await s.call('GET', `${BASE}/${f.body.id}`, { auth: s.userToken });
      expect(record.text).not.toContain('CZ sales');
    } finally {
      await s.call('PUT', `/api/v1/users/${userId}`, {
        auth: s.adminToken,
        body: { dataViewIds: [open.id] },
      });
    }
  });
});
