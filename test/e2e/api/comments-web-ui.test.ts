import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { startTestService, type TestService, USER } from '../../support/service';
import { insertDataView } from '../../integration/comments/fixtures';

const UI = '/api/v1/comments/ui';

describe(`comments from the web UI and data scoping over HTTP on ${backendName}`, () => {
  let s: TestService;
  let assigned: number;
  let unassigned: number;
  let userId: number;
  const comment = (dataViewId: number, extra: Record<string, unknown> = {}) => ({
    text: 'Store closed for renovation',
    dataViewId,
    dateFrom: '2024-03-01',
    dateTo: '2024-03-07',
    ...extra,
  });

  beforeAll(async () => {
    s = await startTestService();
    assigned = await insertDataView(s.container.db, ['Country']);
    unassigned = await insertDataView(s.container.db, ['Country']);
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    userId = users.body.find((u: { email: string }) => u.email === USER.email).id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [assigned] } });
  });
  afterAll(() => s.stop());

  it('lets a signed-in data user comment on an assigned data view, the author taken from the session', async () => {
    const r = await s.call('POST', UI, {
      auth: s.userToken,
      body: comment(assigned, { email: 'boss@example.com' }),
    });
    expect(r.status).toBe(201);
    expect(r.body.email).toBe(USER.email);
  });

  it('answers 404 when the data view is not assigned to the data user', async () => {
    const r = await s.call('POST', UI, { auth: s.userToken, body: comment(unassigned) });
    expect(r.status).toBe(404);
  });

  it('applies the same rules as the REST API', async () => {
    const long = await s.call('POST', UI, {
      auth: s.userToken,
      body: comment(assigned, { text: 'x'.repeat(2001) }),
    });
    expect(long.status).toBe(400);
    const cats = await s.call('POST', UI, {
      auth: s.userToken,
      body: comment(assigned, { categories: { Region: 'N' } }),
    });
    expect(cats.status).toBe(400);
    expect(cats.body.errors.map((e: { path: string }) => e.path)).toEqual(['categories.Region']);
  });

  it("lets a data user edit and delete their own comment, but not an admin's", async () => {
    const own = (await s.call('POST', UI, { auth: s.userToken, body: comment(assigned) })).body;
    const edited = await s.call('PUT', `${UI}/${own.id}`, {
      auth: s.userToken,
      body: comment(assigned, { id: own.id, text: 'Reopened' }),
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ text: 'Reopened', email: USER.email });
    const wrongId = await s.call('PUT', `${UI}/${own.id}`, {
      auth: s.userToken,
      body: comment(assigned, { id: own.id + 1 }),
    });
    expect(wrongId.status).toBe(400);

    const admins = (await s.call('POST', UI, { auth: s.adminToken, body: comment(assigned) })).body;
    expect(admins.email).toBe('admin@example.com');
    expect(
      (await s.call('PUT', `${UI}/${admins.id}`, { auth: s.userToken, body: comment(assigned) })).status,
    ).toBe(403);
    expect((await s.call('DELETE', `${UI}/${admins.id}`, { auth: s.userToken })).status).toBe(403);

    expect((await s.call('DELETE', `${UI}/${own.id}`, { auth: s.userToken })).status).toBe(204);
    expect((await s.call('GET', `/api/v1/comments/${own.id}`, { auth: s.userToken })).status).toBe(404);
  });

  it("refuses the web UI endpoints to a data user's API key (REST writes need admin)", async () => {
    const key = await s.call('POST', '/api/v1/api-keys', {
      auth: s.adminToken,
      body: { name: 'user-key', permissions: ['read'], userId },
    });
    const r = await s.call('POST', UI, { auth: { apiKey: key.body.key }, body: comment(assigned) });
    expect(r.status).toBe(403);
    expect(
      (await s.call('GET', `/api/v1/comments/by-dataview/${assigned}`, { auth: { apiKey: key.body.key } }))
        .status,
    ).toBe(200);
  });

  it('gives a user with no data views empty lists, never another view’s comment', async () => {
    await s.call('POST', '/api/v1/comments', {
      auth: s.adminToken,
      body: { ...comment(assigned), email: 'dora@example.com' },
    });
    const created = await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'dora@example.com', role: 'data-user', password: 'dora-password' },
    });
    expect(created.body.dataViewIds).toEqual([]);
    const token = (
      await s.call('POST', '/api/v1/auth/token', {
        body: { email: 'dora@example.com', password: 'dora-password' },
      })
    ).body.accessToken;
    const window = await s.call('GET', '/api/v1/comments?dateFrom=2000-01-01&dateTo=2100-12-31', {
      auth: token,
    });
    expect(window.status).toBe(200);
    expect(window.body).toEqual([]);
    expect((await s.call('GET', `/api/v1/comments?dataViewId=${assigned}`, { auth: token })).body).toEqual(
      [],
    );
    const mine = await s.call('GET', '/api/v1/comments/by-email/dora@example.com', { auth: token });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([]);
    expect((await s.call('GET', `/api/v1/comments/by-dataview/${assigned}`, { auth: token })).status).toBe(
      404,
    );
  });
});
