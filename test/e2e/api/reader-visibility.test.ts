/**
 * What a data user is shown of others' things: the users they may share with (not every account's e-mail),
 * data views without how they load (connector, load SQL), and a shared filter's category settings only for
 * categories of the views they can read.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createView, type TestView } from '../../integration/filters/fixtures';
import { backendName } from '../../support/db';
import { ADMIN, startTestService, type TestService, USER } from '../../support/service';

describe(`what readers see on ${backendName}`, () => {
  let s: TestService;
  let open: TestView;
  let secret: TestView;
  let userId: number;
  const BASE = '/api/v1/anomaly-filters';
  const LOAD_SQL = 'SELECT day, country, amount FROM finance.private_ledger';

  beforeAll(async () => {
    s = await startTestService();
    open = await createView(s.container.db, { domain: 'retail', name: 'sales', categories: ['country'] });
    secret = await createView(s.container.db, {
      domain: 'hr',
      name: 'salaries',
      categories: ['country', 'department'],
    });
    const source = {
      connector: 'finance_warehouse',
      dateColumn: 'day',
      valueColumn: 'amount',
      loadMode: 'full',
      trigger: 'api',
      loadQuery: LOAD_SQL,
    };
    await s.container.db.rows(sql`UPDATE data_views SET definition = definition
      || jsonb_build_object('source', ${JSON.stringify(source)}::jsonb)
      || jsonb_build_object('metadata', definition->'metadata' || '{"dataSource":"finance ledger db"}'::jsonb)`);
    const users = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    userId = users.find((u) => u.email === USER.email)!.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [open.id] } });
    for (const [email, views] of [
      ['colleague@example.com', [open.id]],
      ['stranger@example.com', [secret.id]],
      ['nobody@example.com', []],
    ] as const) {
      const r = await s.call('POST', '/api/v1/users', {
        auth: s.adminToken,
        body: { email, role: 'data-user', password: `${email}-password`, dataViewIds: views },
      });
      expect(r.status).toBe(201);
    }
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('lists to a data user only the admins and the users assigned one of their views, to an admin everyone', async () => {
    const mine = await s.call('GET', `${BASE}/shareable-users`, { auth: s.userToken });
    expect(mine.status).toBe(200);
    const emails = mine.body.map((u: { email: string }) => u.email).sort();
    expect(emails).toEqual([ADMIN.email, 'colleague@example.com'].sort());
    expect(mine.text).not.toContain('stranger@example.com');
    const all = await s.call('GET', `${BASE}/shareable-users`, { auth: s.adminToken });
    expect(all.body.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining([
        'colleague@example.com',
        'stranger@example.com',
        'nobody@example.com',
        USER.email,
      ]),
    );
  });

  it('gives a data user a view without its connector, load SQL and data source; an admin all of it', async () => {
    const doc = await s.call('GET', `/api/v1/dataviews/${open.id}`, { auth: s.userToken });
    expect(doc.status).toBe(200);
    expect(doc.body.categories.map((c: { name: string }) => c.name)).toEqual(['country']);
    expect(doc.body.source.dateColumn).toBe('day');
    expect(doc.text).not.toContain('private_ledger');
    expect(doc.text).not.toContain('finance_warehouse');
    expect(doc.text).not.toContain('finance ledger db');
    const yaml = await s.call('GET', `/api/v1/dataviews/${open.id}`, {
      auth: s.userToken,
      headers: { accept: 'application/yaml' },
    });
    expect(yaml.text).not.toContain('private_ledger');
    const list = await s.call('GET', '/api/v1/dataviews', { auth: s.userToken });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('demo');
    expect(list.body[0].connector).toBeUndefined();
    const admin = await s.call('GET', `/api/v1/dataviews/${open.id}`, { auth: s.adminToken });
    expect(admin.body.source.loadQuery).toBe(LOAD_SQL);
    expect(admin.body.source.connector).toBe('finance_warehouse');
    const adminList = await s.call('GET', '/api/v1/dataviews', { auth: s.adminToken });
    expect(adminList.body[0].connector).toBe('demo');
  });

  it("shows a recipient the owner's category settings only for categories of views they can read", async () => {
    const f = await s.call('POST', BASE, {
      auth: s.adminToken,
      body: {
        name: 'Top watch',
        timeRange: 'This Week',
        dataViews: 'retail / sales; hr / salaries',
        categoriesFilter: 'department=Board; country=CZ',
        graphWeights: 'department=2; country=1',
      },
    });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
    const share = await s.call('POST', `${BASE}/${f.body.id}/share`, {
      auth: s.adminToken,
      body: { targetUserIds: [userId] },
    });
    expect(share.status).toBeLessThan(300);
    const record = (await s.call('GET', `${BASE}/${f.body.id}`, { auth: s.userToken })).body;
    expect(record.hiddenDataViews).toBe(1);
    expect(record.categoriesFilter).toBe('country=CZ');
    expect(record.graphWeights).toBe('country=1');
    const listed = await s.call('GET', BASE, { auth: s.userToken });
    expect(listed.text).not.toContain('Board');
    const own = (await s.call('GET', `${BASE}/${f.body.id}`, { auth: s.adminToken })).body;
    expect(own.categoriesFilter).toBe('department=Board; country=CZ');
  });
});
