import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { startTestService, type TestService, USER } from '../../support/service';
import { insertDataView } from '../../integration/comments/fixtures';

const API = '/api/v1/comments';

describe(`comments REST API over HTTP on ${backendName}`, () => {
  let s: TestService;
  let assigned: number;
  let unassigned: number;
  const comment = (dataViewId: number, extra: Record<string, unknown> = {}) => ({
    text: 'Promotion week',
    email: 'admin@example.com',
    dataViewId,
    dateFrom: '2024-03-01',
    dateTo: '2024-03-07',
    ...extra,
  });
  const post = (b: unknown, auth?: string) => s.call('POST', API, { auth: auth ?? s.adminToken, body: b });
  const get = (path: string, auth?: string) => s.call('GET', `${API}${path}`, { auth: auth ?? s.userToken });
  const paths = (r: { body: { errors?: Array<{ path: string }> } }) =>
    (r.body.errors ?? []).map((e) => e.path);

  beforeAll(async () => {
    s = await startTestService();
    assigned = await insertDataView(s.container.db, ['Country', 'Product']);
    unassigned = await insertDataView(s.container.db, ['Country']);
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    const user = users.body.find((u: { email: string }) => u.email === USER.email);
    const put = await s.call('PUT', `/api/v1/users/${user.id}`, {
      auth: s.adminToken,
      body: { dataViewIds: [assigned] },
    });
    expect(put.status).toBe(200);
  });
  afterAll(() => s.stop());

  describe('POST /', () => {
    it('lets an admin create a comment and answers 201 with the record', async () => {
      const r = await post(comment(assigned, { categories: { country: 'DE', Product: null } }));
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(Number),
        text: 'Promotion week',
        email: 'admin@example.com',
        dataViewId: assigned,
        dateFrom: '2024-03-01',
        dateTo: '2024-03-07',
        categories: { Country: 'DE' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    });

    it('refuses a data user with 403', async () => {
      const r = await post(comment(assigned, { email: USER.email }), s.userToken);
      expect(r.status).toBe(403);
    });

    it('requires the e-mail', async () => {
      const r = await post(comment(assigned, { email: undefined }));
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['email']);
    });

    it('accepts 2000 characters of text and refuses 2001', async () => {
      expect((await post(comment(assigned, { text: 'x'.repeat(2000) }))).status).toBe(201);
      const r = await post(comment(assigned, { text: 'x'.repeat(2001) }));
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['text']);
    });

    it('refuses dateFrom after dateTo, at dateTo', async () => {
      const r = await post(comment(assigned, { dateFrom: '2024-03-08' }));
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['dateTo']);
    });

    it('refuses a category that is not one of the data view, at categories.<name>', async () => {
      const r = await post(comment(unassigned, { categories: { Product: 'Tea' } }));
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['categories.Product']);
      expect(r.body.detail).toContain('Product');
    });

    it('answers 404 for an unknown data view', async () => {
      const r = await post(comment(999_999));
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe('Data view 999999 was not found.');
    });
  });

  describe('GET', () => {
    let visible: number;
    let hidden: number;
    beforeAll(async () => {
      visible = (
        await post(comment(assigned, { dateFrom: '2024-06-10', dateTo: '2024-06-12', email: USER.email }))
      ).body.id;
      hidden = (
        await post(comment(unassigned, { dateFrom: '2024-06-10', dateTo: '2024-06-12', email: USER.email }))
      ).body.id;
    });

    it('/{id} returns a comment of an assigned data view and 404 for any other', async () => {
      expect((await get(`/${visible}`)).body.id).toBe(visible);
      const r = await get(`/${hidden}`);
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe(`Comment ${hidden} was not found.`);
      expect((await get(`/${hidden}`, s.adminToken)).status).toBe(200);
    });

    it('/{id} answers 400 naming id when it is not a number', async () => {
      const r = await get('/abc');
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['id']);
    });

    it('/by-dataview/{dataViewId} lists the comments of an assigned view and answers 404 for another', async () => {
      const r = await get(`/by-dataview/${assigned}`);
      expect(r.status).toBe(200);
      expect(r.body.length).toBeGreaterThan(0);
      expect(r.body.every((c: { dataViewId: number }) => c.dataViewId === assigned)).toBe(true);
      expect((await get(`/by-dataview/${unassigned}`)).status).toBe(404);
    });

    it('/by-dataview/{dataViewId}/daterange returns overlapping windows and needs both dates', async () => {
      const r = await get(`/by-dataview/${assigned}/daterange?dateFrom=2024-06-12&dateTo=2024-06-30`);
      expect(r.status).toBe(200);
      expect(r.body.map((c: { id: number }) => c.id)).toEqual([visible]);
      const missing = await get(`/by-dataview/${assigned}/daterange?dateFrom=2024-06-12`);
      expect(missing.status).toBe(400);
      expect(paths(missing)).toEqual(['dateTo']);
      const bad = await get(`/by-dataview/${assigned}/daterange?dateFrom=12.06.2024&dateTo=2024-06-30`);
      expect(bad.status).toBe(400);
      expect(paths(bad)).toEqual(['dateFrom']);
      const reversed = await get(`/by-dataview/${assigned}/daterange?dateFrom=2024-06-30&dateTo=2024-06-12`);
      expect(reversed.status).toBe(400);
    });

    it('/?… refuses a query without dataViewId and dates with a clear message', async () => {
      const r = await get('');
      expect(r.status).toBe(400);
      expect(r.body.detail).toBe('Give dataViewId and/or dateFrom/dateTo to query comments.');
    });

    it("/?dateFrom=&dateTo= returns overlapping comments of the caller's data views only", async () => {
      const r = await get('?dateFrom=2024-06-01&dateTo=2024-06-10');
      expect(r.status).toBe(200);
      expect(r.body.map((c: { id: number }) => c.id)).toEqual([visible]);
      const admin = await get('?dateFrom=2024-06-01&dateTo=2024-06-10', s.adminToken);
      expect(admin.body.map((c: { id: number }) => c.id)).toEqual([visible, hidden]);
      expect((await get(`?dataViewId=${unassigned}`)).body).toEqual([]);
      expect(
        (await get(`?dataViewId=${assigned}&dateFrom=2024-06-11`)).body.map((c: { id: number }) => c.id),
      ).toEqual([visible]);
    });

    it('/by-email/{email} lets a data user read their own comments and refuses another address with 403', async () => {
      const own = await get(`/by-email/${encodeURIComponent(USER.email)}`);
      expect(own.status).toBe(200);
      expect(own.body.map((c: { id: number }) => c.id)).toEqual([visible]);
      expect((await get('/by-email/admin%40example.com')).status).toBe(403);
      const admin = await get(`/by-email/${encodeURIComponent(USER.email)}`, s.adminToken);
      expect(admin.body.map((c: { id: number }) => c.id)).toEqual([visible, hidden]);
    });
  });

  describe('PUT /{id} and DELETE /{id}', () => {
    let id: number;
    beforeAll(async () => {
      id = (await post(comment(assigned))).body.id;
    });

    it('refuses a body id that differs from the route id with 400 naming id', async () => {
      const r = await s.call('PUT', `${API}/${id}`, {
        auth: s.adminToken,
        body: comment(assigned, { id: id + 1000 }),
      });
      expect(r.status).toBe(400);
      expect(paths(r)).toEqual(['id']);
    });

    it('updates with the same id in the body, or none', async () => {
      const same = await s.call('PUT', `${API}/${id}`, {
        auth: s.adminToken,
        body: comment(assigned, { id, text: 'one' }),
      });
      expect(same.status).toBe(200);
      expect(same.body.text).toBe('one');
      const none = await s.call('PUT', `${API}/${id}`, {
        auth: s.adminToken,
        body: comment(assigned, { text: 'two' }),
      });
      expect(none.body).toMatchObject({ id, text: 'two' });
    });

    it('refuses a data user with 403, whatever the id', async () => {
      expect(
        (await s.call('PUT', `${API}/${id}`, { auth: s.userToken, body: comment(assigned) })).status,
      ).toBe(403);
      expect((await s.call('DELETE', `${API}/${id}`, { auth: s.userToken })).status).toBe(403);
      expect((await s.call('DELETE', `${API}/999999`, { auth: s.userToken })).status).toBe(403);
    });

    it('deletes with 204, after which the comment is 404', async () => {
      expect((await s.call('DELETE', `${API}/${id}`, { auth: s.adminToken })).status).toBe(204);
      expect((await get(`/${id}`, s.adminToken)).status).toBe(404);
    });
  });

  it('lists every comment endpoint in the OpenAPI document', async () => {
    const doc = await s.call('GET', '/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        API,
        `${API}/{id}`,
        `${API}/by-dataview/{dataViewId}`,
        `${API}/by-dataview/{dataViewId}/daterange`,
        `${API}/by-email/{email}`,
        `${API}/ui`,
        `${API}/ui/{id}`,
      ]),
    );
  });
});
