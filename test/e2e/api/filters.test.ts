import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { startTestService, type TestService, USER } from '../../support/service';
import { createView } from '../../integration/filters/fixtures';

const BASE = '/api/v1/anomaly-filters';

describe(`saved filters, sharing and pins over HTTP on ${backendName}`, () => {
  let s: TestService;
  /** The seeded data user, a second data user (carol) and one nobody shares with (dave). */
  const users = { user: { id: 0, token: '' }, carol: { id: 0, token: '' }, dave: { id: 0, token: '' } };
  let adminId: number;

  async function addUser(email: string): Promise<{ id: number; token: string }> {
    const created = await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email, role: 'data-user', password: `${email}-password` },
    });
    const token = await s.call('POST', '/api/v1/auth/token', {
      body: { email, password: `${email}-password` },
    });
    return { id: created.body.id, token: token.body.accessToken };
  }

  const create = (token: string, body: Record<string, unknown>) =>
    s.call('POST', BASE, { auth: token, body });

  beforeAll(async () => {
    s = await startTestService();
    const orders = await createView(s.testDb.db, {
      domain: 'sales',
      name: 'orders',
      categories: ['Country'],
    });
    await createView(s.testDb.db, { domain: 'sales', name: 'returns', categories: ['Country'] });
    const list = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    adminId = list.find((u) => u.email === 'admin@example.com')!.id;
    users.user = { id: list.find((u) => u.email === USER.email)!.id, token: s.userToken };
    await s.call('PUT', `/api/v1/users/${users.user.id}`, {
      auth: s.adminToken,
      body: { dataViewIds: [orders.id] },
    });
    users.carol = await addUser('carol@example.com');
    users.dave = await addUser('dave@example.com');
  });
  afterAll(() => s.stop());

  it('creates a filter owned by the caller, with defaults and the read-only fields', async () => {
    const r = await create(s.adminToken, {
      name: 'Big drops',
      comment: 'For the morning call',
      dataViews: 'sales / orders',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'Big drops',
      comment: 'For the morning call',
      dataViews: 'sales / orders',
      timeRange: 'Last 7 Days',
      sortBy: 'SIN',
      limit: 100,
      anomalyResult: 'Positive;Negative',
      ownerId: adminId,
      ownerEmail: 'admin@example.com',
      isOwner: true,
      pinned: false,
      sharedWith: [],
      summary: null,
    });
    const again = await s.call('GET', `${BASE}/${r.body.id}`, { auth: s.adminToken });
    expect(again.body).toEqual(r.body);
  });

  it('refuses bad settings with a 400 naming the field, and saves nothing', async () => {
    const before = (await s.call('GET', BASE, { auth: s.adminToken })).body.length;
    const bad = await create(s.adminToken, { name: 'x', categoriesFilter: 'Country' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'categoriesFilter', message: "entry 'Country' lacks '='" }]);
    const unknownView = await create(s.adminToken, { name: 'x', dataViews: 'sales / nothing' });
    expect(unknownView.status).toBe(400);
    expect(unknownView.body.errors[0].path).toBe('dataViews');
    // A data user cannot save a filter over a data view that is not assigned to them.
    const invisible = await create(s.userToken, { name: 'x', dataViews: 'sales / returns' });
    expect(invisible.status).toBe(400);
    expect(invisible.body.errors[0]).toEqual({
      path: 'dataViews',
      message: "data view 'sales / returns' is unknown or not accessible",
    });
    expect((await s.call('GET', BASE, { auth: s.adminToken })).body.length).toBe(before);
  });

  it('lets a data user create filters of their own, invisible to others until shared', async () => {
    const mine = await create(s.userToken, { name: 'My view', dataViews: 'sales / orders' });
    expect(mine.status).toBe(201);
    expect(mine.body.ownerEmail).toBe(USER.email);
    expect((await s.call('GET', `${BASE}/${mine.body.id}`, { auth: s.adminToken })).status).toBe(404);
    expect((await s.call('GET', `${BASE}/${mine.body.id}`, { auth: users.carol.token })).status).toBe(404);
  });

  it('lists enabled users other than the caller as shareable', async () => {
    await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'gone@example.com', role: 'data-user', enabled: false },
    });
    const r = await s.call('GET', `${BASE}/shareable-users`, { auth: s.adminToken });
    expect(r.status).toBe(200);
    const emails = r.body.map((u: { email: string }) => u.email);
    expect(emails).toEqual(['carol@example.com', 'dave@example.com', USER.email]);
    expect(r.body[0]).toEqual({ id: users.carol.id, email: 'carol@example.com' });
  });

  describe('a filter the admin shares with the data user and carol', () => {
    let id: number;
    beforeAll(async () => {
      id = (
        await create(s.adminToken, { name: 'Shared', comment: 'Weekly review', dataViews: 'sales / orders' })
      ).body.id;
      const shared = await s.call('POST', `${BASE}/${id}/share`, {
        auth: s.adminToken,
        body: { targetUserIds: [users.carol.id, users.user.id, users.carol.id] },
      });
      expect(shared.status).toBe(200);
      expect(shared.body).toEqual([users.user.id, users.carol.id].sort((a, b) => a - b));
    });

    it('is visible to the recipients, marked as not theirs, and 404 to a stranger', async () => {
      const got = await s.call('GET', `${BASE}/${id}`, { auth: s.userToken });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id, isOwner: false, ownerId: adminId, pinned: false });
      expect(got.body.sharedWith).toEqual([users.user.id, users.carol.id].sort((a, b) => a - b));
      const list = await s.call('GET', BASE, { auth: s.userToken });
      expect(list.body.map((f: { id: number }) => f.id)).toContain(id);
      const little = await s.call('GET', `${BASE}/little`, { auth: s.userToken });
      expect(little.body).toContainEqual({ id, name: 'Shared', description: 'Weekly review' });
      expect((await s.call('GET', `${BASE}/${id}/shares`, { auth: users.carol.token })).body).toHaveLength(2);
      for (const path of [`${BASE}/${id}`, `${BASE}/${id}/shares`]) {
        expect((await s.call('GET', path, { auth: users.dave.token })).status).toBe(404);
      }
      expect((await s.call('GET', BASE, { auth: users.dave.token })).body).toEqual([]);
    });

    it('refuses saving, deleting and sharing by a recipient with 403, and by a stranger with 404', async () => {
      const current = (await s.call('GET', `${BASE}/${id}`, { auth: s.userToken })).body;
      const changed = { ...current, sortBy: 'Change' };
      expect((await s.call('PUT', BASE, { auth: s.userToken, body: changed })).status).toBe(403);
      expect((await s.call('DELETE', `${BASE}/${id}`, { auth: s.userToken })).status).toBe(403);
      const share = await s.call('POST', `${BASE}/${id}/share`, {
        auth: s.userToken,
        body: { targetUserIds: [] },
      });
      expect(share.status).toBe(403);
      expect(share.body.detail).toBe(`Only the owner of filter ${id} can share it.`);
      expect((await s.call('PUT', BASE, { auth: users.dave.token, body: changed })).status).toBe(404);
      expect((await s.call('DELETE', `${BASE}/${id}`, { auth: users.dave.token })).status).toBe(404);
      const after = (await s.call('GET', `${BASE}/${id}`, { auth: s.adminToken })).body;
      expect(after.sortBy).toBe('SIN');
    });

    it('lets the owner update it; the GET record sent back is accepted and recipients see the change', async () => {
      const current = (await s.call('GET', `${BASE}/${id}`, { auth: s.adminToken })).body;
      const r = await s.call('PUT', BASE, {
        auth: s.adminToken,
        body: { ...current, name: 'Shared (renamed)', limit: 5 },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        id,
        name: 'Shared (renamed)',
        limit: 5,
        sharedWith: current.sharedWith,
      });
      expect((await s.call('GET', `${BASE}/${id}`, { auth: s.userToken })).body.name).toBe(
        'Shared (renamed)',
      );
      const noId = await s.call('PUT', BASE, { auth: s.adminToken, body: { name: 'x' } });
      expect(noId.status).toBe(400);
      expect(noId.body.errors[0].path).toBe('id');
      expect((await s.call('PUT', BASE, { auth: s.adminToken, body: { id: 99999, name: 'x' } })).status).toBe(
        404,
      );
    });

    it('keeps pins per user', async () => {
      const pin = await s.call('PUT', `${BASE}/${id}/pin`, { auth: s.userToken, body: { pinned: true } });
      expect(pin.status).toBe(200);
      expect(pin.body.pinned).toBe(true);
      expect((await s.call('GET', `${BASE}/${id}`, { auth: s.adminToken })).body.pinned).toBe(false);
      const pinned = await s.call('GET', `${BASE}/pinned`, { auth: s.userToken });
      expect(pinned.body.map((f: { id: number }) => f.id)).toEqual([id]);
      expect((await s.call('GET', `${BASE}/pinned`, { auth: s.adminToken })).body).toEqual([]);
      expect(
        (await s.call('PUT', `${BASE}/${id}/pin`, { auth: users.dave.token, body: { pinned: true } })).status,
      ).toBe(404);
      const bad = await s.call('PUT', `${BASE}/${id}/pin`, { auth: s.userToken, body: { pinned: 'yes' } });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('pinned');
    });

    it('refuses unknown recipients with a 400 naming targetUserIds and keeps the list', async () => {
      const r = await s.call('POST', `${BASE}/${id}/share`, {
        auth: s.adminToken,
        body: { targetUserIds: [users.carol.id, 99999] },
      });
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([{ path: 'targetUserIds', message: 'unknown user id(s): 99999' }]);
      expect((await s.call('GET', `${BASE}/${id}/shares`, { auth: s.adminToken })).body).toHaveLength(2);
    });

    it('lets a recipient leave: their share and pin go, the filter stays with the owner and carol', async () => {
      expect((await s.call('DELETE', `${BASE}/${id}/share`, { auth: s.userToken })).status).toBe(204);
      expect((await s.call('GET', `${BASE}/${id}`, { auth: s.userToken })).status).toBe(404);
      expect((await s.call('GET', `${BASE}/pinned`, { auth: s.userToken })).body).toEqual([]);
      expect((await s.call('GET', `${BASE}/${id}/shares`, { auth: s.adminToken })).body).toEqual([
        users.carol.id,
      ]);
      expect((await s.call('GET', `${BASE}/${id}`, { auth: users.carol.token })).status).toBe(200);
      const pins = await s.testDb.db.rows(
        sql`SELECT 1 FROM filter_pins WHERE filter_id = ${id} AND user_id = ${users.user.id}`,
      );
      expect(pins).toHaveLength(0);
    });

    it('answers 409 when the owner tries to leave their own filter', async () => {
      const r = await s.call('DELETE', `${BASE}/${id}/share`, { auth: s.adminToken });
      expect(r.status).toBe(409);
      expect(r.body.detail).toMatch(/delete it instead/);
    });

    it('drops the pin of a recipient the owner removes from the list', async () => {
      await s.call('PUT', `${BASE}/${id}/pin`, { auth: users.carol.token, body: { pinned: true } });
      const r = await s.call('POST', `${BASE}/${id}/share`, {
        auth: s.adminToken,
        body: { targetUserIds: [] },
      });
      expect(r.body).toEqual([]);
      expect((await s.call('GET', `${BASE}/${id}`, { auth: users.carol.token })).status).toBe(404);
      // Shared again, carol finds it unpinned.
      await s.call('POST', `${BASE}/${id}/share`, {
        auth: s.adminToken,
        body: { targetUserIds: [users.carol.id] },
      });
      expect((await s.call('GET', `${BASE}/${id}`, { auth: users.carol.token })).body.pinned).toBe(false);
    });
  });

  it('deletes a filter for everyone, with its shares and pins', async () => {
    const id = (await create(s.adminToken, { name: 'Short-lived' })).body.id;
    await s.call('POST', `${BASE}/${id}/share`, {
      auth: s.adminToken,
      body: { targetUserIds: [users.user.id] },
    });
    await s.call('PUT', `${BASE}/${id}/pin`, { auth: s.userToken, body: { pinned: true } });
    expect((await s.call('DELETE', `${BASE}/${id}`, { auth: s.adminToken })).status).toBe(204);
    expect((await s.call('GET', `${BASE}/${id}`, { auth: s.adminToken })).status).toBe(404);
    expect((await s.call('GET', `${BASE}/${id}`, { auth: s.userToken })).status).toBe(404);
    const left = await s.testDb.db.rows(
      sql`SELECT (SELECT count(*) FROM filter_shares WHERE filter_id = ${id})::int + (SELECT count(*) FROM filter_pins WHERE filter_id = ${id})::int AS n`,
    );
    expect(left[0]).toEqual({ n: 0 });
  });

  it('answers 401 without credentials and 400 to a malformed id', async () => {
    expect((await s.call('GET', BASE)).status).toBe(401);
    const r = await s.call('GET', `${BASE}/abc`, { auth: s.adminToken });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].path).toBe('id');
  });
});
