/**
 * API keys write only with the write permission (a `read` key reads, and is refused every write of a user's
 * things), and summary refreshes are rate-limited per user, over HTTP through the real handlers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFunctions } from '../../../functions/http/registry';
import * as system from '../../../functions/http/system';
import { addAnomalies, createView, type TestView } from '../../integration/filters/fixtures';
import { backendName } from '../../support/db';
import { type FakeLlm, startFakeLlm } from '../../support/fake-llm';
import { startTestService, type TestService } from '../../support/service';

/** Routes that change nothing although they are not GETs (a query with a body). */
const READS_BY_POST = new Set(['POST /api/v1/anomalies/query']);

describe('route access', () => {
  it('marks every route that changes a user’s things as a write, never a read', () => {
    const routes = [...httpFunctions.flatMap((f) => f.routes), ...system.routes];
    const readWrites = routes
      .filter((r) => r.access === 'read' && r.method !== 'GET')
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => !READS_BY_POST.has(r));
    expect(readWrites).toEqual([]);
    const writes = routes.filter((r) => r.access === 'write').map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual(
      expect.arrayContaining([
        'POST /api/v1/anomaly-filters',
        'PUT /api/v1/anomalies/feedback',
        'POST /api/v1/anomaly-filters/{id}/alerts',
        'POST /api/v1/anomaly-filters/{id}/summarization/refresh',
      ]),
    );
  });
});

describe(`API key permissions and refresh limits on ${backendName}`, () => {
  let s: TestService;
  let fake: FakeLlm;
  let view: TestView;
  let filterId: number;
  let readKey: string;
  let writeKey: string;

  const filterBody = (name: string) => ({
    name,
    timeRange: 'This Week',
    dataViews: 'retail / sales',
    sortBy: 'SIN',
    limit: 10,
    isSummarized: true,
  });

  beforeAll(async () => {
    s = await startTestService({ SUMMARY_REFRESHES_PER_HOUR: '2' });
    fake = await startFakeLlm();
    view = await createView(s.container.db, { domain: 'retail', name: 'sales', categories: ['country'] });
    const today = new Date().toISOString().slice(0, 10);
    await addAnomalies(s.container.db, view, [
      { startDate: today, type: 'DOD', result: 'Negative', categories: { country: 'CZ' }, sin: 3 },
    ]);
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: filterBody('Daily watch'),
    });
    expect(f.status).toBe(201);
    filterId = f.body.id;
    const key = async (name: string, permissions: string[]) => {
      const r = await s.call('POST', '/api/v1/api-keys', { auth: s.adminToken, body: { name, permissions } });
      expect(r.status).toBe(201);
      return r.body.key as string;
    };
    readKey = await key('reader', ['read']);
    writeKey = await key('writer', ['read', 'write']);
    const settings = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: {
        url: fake.url,
        bodyTemplate:
          '{"messages":[{"role":"system","content":"{{instructions}}"},{"role":"user","content":"{{prompt}}"}]}',
        responsePath: 'choices[0].message.content',
        timeoutMs: 5000,
      },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
    await fake?.close();
  });

  it('lets a read key read but not write filters, shares, pins, feedback, alerts, comments or refreshes', async () => {
    const auth = { apiKey: readKey };
    expect((await s.call('GET', '/api/v1/anomaly-filters', { auth })).status).toBe(200);
    expect((await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization`, { auth })).status).toBe(
      200,
    );
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/anomaly-filters', filterBody('By a read key')],
      ['PUT', '/api/v1/anomaly-filters', { ...filterBody('Renamed'), id: filterId }],
      ['DELETE', `/api/v1/anomaly-filters/${filterId}`, undefined],
      ['POST', `/api/v1/anomaly-filters/${filterId}/share`, { userIds: [2] }],
      ['PUT', `/api/v1/anomaly-filters/${filterId}/pin`, { pinned: true }],
      ['PUT', '/api/v1/anomalies/feedback', {}],
      ['DELETE', '/api/v1/anomalies/feedback/1', undefined],
      ['POST', `/api/v1/anomaly-filters/${filterId}/alerts`, { channel: 'webhook' }],
      ['POST', `/api/v1/anomaly-filters/${filterId}/summarization/refresh`, {}],
      ['POST', '/api/v1/comments/ui', {}],
    ];
    for (const [method, path, body] of writes) {
      const r = await s.call(method, path, { auth, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.detail).toMatch(/write permission/);
    }
    const still = await s.call('GET', `/api/v1/anomaly-filters/${filterId}`, { auth: s.adminToken });
    expect(still.body.name).toBe('Daily watch');
    expect(fake.requests).toHaveLength(0);
  });

  it('lets a key with the write permission write', async () => {
    const r = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: { apiKey: writeKey },
      body: filterBody('By a write key'),
    });
    expect(r.status).toBe(201);
  });

  it('rate-limits summary refreshes per user with 429 and Retry-After, keeping the stored summary', async () => {
    const refresh = () =>
      s.call('POST', `/api/v1/anomaly-filters/${filterId}/summarization/refresh`, { auth: s.adminToken });
    expect((await refresh()).status).toBe(200);
    fake.reply = 'Second text.';
    expect((await refresh()).status).toBe(200);
    fake.reply = 'Third text, never asked for.';
    const third = await refresh();
    expect(third.status).toBe(429);
    expect(third.body.detail).toMatch(/At most 2 summary refreshes per 60 minutes/);
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(fake.requests).toHaveLength(2);
    const stored = await s.call('GET', `/api/v1/anomaly-filters/${filterId}/summarization`, {
      auth: s.adminToken,
    });
    expect(stored.body.text).toBe('Second text.');
    expect(stored.body.lastError).toBeNull();
    // Per user: another user's refresh is counted on their own.
    const other = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/summarization/refresh`, {
      auth: s.userToken,
    });
    expect(other.status).not.toBe(429);
  });
});
