/** Limits per user: summarised filters and alert subscriptions, each refused past its limit with a 409 naming it. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_USER } from '../../../lib/alerts/service';
import { insertFilter } from '../../../lib/filters/repository';
import { MAX_SUMMARIZED_FILTERS_PER_USER } from '../../../lib/filters/service';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

describe(`limits per user on ${backendName}`, () => {
  let s: TestService;
  let userId: number;

  beforeAll(async () => {
    s = await startTestService();
    userId = (await s.call('GET', '/api/v1/auth/me', { auth: s.userToken })).body.userId;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('refuses a summarised filter past the limit, on create and on update', async () => {
    for (let i = 1; i < MAX_SUMMARIZED_FILTERS_PER_USER; i++)
      await insertFilter(s.container.db, userId, `summarised ${i}`, {
        name: `summarised ${i}`,
        isSummarized: true,
      });
    const last = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.userToken,
      body: { name: 'the last one', isSummarized: true },
    });
    expect(last.status, last.text).toBe(201);
    const over = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.userToken,
      body: { name: 'one too many', isSummarized: true },
    });
    expect(over.status).toBe(409);
    expect(over.body.detail).toBe(
      `Limit reached: at most ${MAX_SUMMARIZED_FILTERS_PER_USER} summarised filters per user (isSummarized).`,
    );
    const plain = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.userToken,
      body: { name: 'plain' },
    });
    expect(plain.status).toBe(201);
    const turned = await s.call('PUT', '/api/v1/anomaly-filters', {
      auth: s.userToken,
      body: { id: plain.body.id, name: 'plain', isSummarized: true },
    });
    expect(turned.status).toBe(409);
    // A summarised filter saved again is not counted against itself.
    const again = await s.call('PUT', '/api/v1/anomaly-filters', {
      auth: s.userToken,
      body: { id: last.body.id, name: 'the last one, renamed', isSummarized: true },
    });
    expect(again.status, again.text).toBe(200);
  });

  it('refuses an alert subscription past the limit', async () => {
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.userToken,
      body: { name: 'alerts' },
    });
    await s.container.db.rows(sql`
      INSERT INTO alert_subscriptions (name, filter_id, user_id, channel, target)
      SELECT 'email-seeded-' || g, ${f.body.id}, ${userId}, 'email', 'user@example.com'
      FROM generate_series(2, ${MAX_SUBSCRIPTIONS_PER_USER}) g`);
    const last = await s.call('POST', `/api/v1/anomaly-filters/${f.body.id}/alerts`, {
      auth: s.userToken,
      body: { channel: 'email' },
    });
    expect(last.status, last.text).toBe(201);
    const over = await s.call('POST', `/api/v1/anomaly-filters/${f.body.id}/alerts`, {
      auth: s.userToken,
      body: { channel: 'email' },
    });
    expect(over.status).toBe(409);
    expect(over.body.detail).toBe(
      `Limit reached: at most ${MAX_SUBSCRIPTIONS_PER_USER} alert subscriptions per user.`,
    );
  });
});
