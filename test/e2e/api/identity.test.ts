import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { ADMIN, startTestService, TEST_JWT_SECRET, type TestService, USER } from '../../support/service';

describe(`identity over HTTP on ${backendName}`, () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService();
  });
  afterAll(() => s.stop());

  it('answers health without credentials', async () => {
    const r = await s.call('GET', '/api/v1/health');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
  });

  it("lets the seeded admin's token use an admin-only endpoint", async () => {
    const r = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining([ADMIN.email, USER.email]),
    );
  });

  it("refuses the data user's token on an admin-only endpoint with 403", async () => {
    const r = await s.call('GET', '/api/v1/users', { auth: s.userToken });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.requestId).toBeTruthy();
  });

  it('answers 401 to no credentials, a wrong password, a forged token and an expired token', async () => {
    expect((await s.call('GET', '/api/v1/users')).status).toBe(401);
    const wrong = await s.call('POST', '/api/v1/auth/token', {
      body: { email: ADMIN.email, password: 'nope' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toBe('Wrong e-mail or password.');
    const forged = await new SignJWT({ email: ADMIN.email, role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('1')
      .setIssuer('anomaly-monitor')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('some-other-secret-of-enough-length'));
    expect((await s.call('GET', '/api/v1/users', { auth: forged })).status).toBe(401);
    // Signed with the service's own secret but with no end: good forever once leaked, so refused.
    const ownToken = (exp?: string) => {
      const jwt = new SignJWT({ email: ADMIN.email, role: 'admin', ver: 0 })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('1')
        .setIssuer('anomaly-monitor')
        .setIssuedAt();
      return (exp ? jwt.setExpirationTime(exp) : jwt).sign(new TextEncoder().encode(TEST_JWT_SECRET));
    };
    expect((await s.call('GET', '/api/v1/users', { auth: await ownToken('1h') })).status).toBe(200);
    const endless = await ownToken();
    const noExp = await s.call('GET', '/api/v1/users', { auth: endless });
    expect(noExp.status).toBe(401);
    expect(noExp.body.detail).toBe('The access token is not valid.');
    const expired = await s.container.tokens.issue(
      { id: 1, email: ADMIN.email, role: 'admin' },
      new Date(Date.now() - 48 * 3600e3),
    );
    const r = await s.call('GET', '/api/v1/users', { auth: expired });
    expect(r.status).toBe(401);
    expect(r.body.detail).toMatch(/expired/);
  });

  it('lets an admin create a user, and a disabled user gets no token', async () => {
    const create = await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'carol@example.com', role: 'data-user', password: 'carol-password' },
    });
    expect(create.status).toBe(201);
    expect(create.body).toMatchObject({
      email: 'carol@example.com',
      role: 'data-user',
      enabled: true,
      dataViewIds: [],
    });
    expect(create.body.password).toBeUndefined();
    const ok = await s.call('POST', '/api/v1/auth/token', {
      body: { email: 'carol@example.com', password: 'carol-password' },
    });
    expect(ok.status).toBe(200);
    const disable = await s.call('PUT', `/api/v1/users/${create.body.id}`, {
      auth: s.adminToken,
      body: { enabled: false },
    });
    expect(disable.status).toBe(200);
    const refused = await s.call('POST', '/api/v1/auth/token', {
      body: { email: 'carol@example.com', password: 'carol-password' },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/disabled/);
    // Her earlier token stops working too.
    expect((await s.call('GET', '/api/v1/auth/me', { auth: ok.body.accessToken })).status).toBe(401);
  });

  it('refuses a duplicate e-mail with 409 and a bad body with 400 naming the field', async () => {
    const dup = await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: USER.email, role: 'data-user' },
    });
    expect(dup.status).toBe(409);
    const bad = await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'x@example.com', role: 'boss' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toContainEqual(expect.objectContaining({ path: 'role' }));
    const malformed = await s.call('POST', '/api/v1/users', { auth: s.adminToken, body: '{"email":' });
    expect(malformed.status).toBe(400);
  });

  it('refuses an assignment to a data view that does not exist with 400 naming the field, and writes nothing', async () => {
    const email = 'ghost-views@example.com';
    const created = await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email, role: 'data-user', password: 'a-long-password-1', dataViewIds: [987654] },
    });
    expect(created.status, created.text).toBe(400);
    expect(created.body.errors).toContainEqual({
      path: 'dataViewIds',
      message: 'unknown data view id 987654',
    });
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    expect(users.body.map((u: { email: string }) => u.email)).not.toContain(email);

    const me = users.body.find((u: { email: string }) => u.email === USER.email);
    const updated = await s.call('PUT', `/api/v1/users/${me.id}`, {
      auth: s.adminToken,
      body: { role: 'admin', dataViewIds: [987654] },
    });
    expect(updated.status, updated.text).toBe(400);
    const after = await s.call('GET', `/api/v1/users/${me.id}`, { auth: s.adminToken });
    expect(after.body).toMatchObject({ role: me.role, dataViewIds: me.dataViewIds });
  });

  it('creates an API key shown once, accepts it, and answers 401 once it is revoked', async () => {
    const created = await s.call('POST', '/api/v1/api-keys', {
      auth: s.adminToken,
      body: { name: 'ci', permissions: ['read', 'admin'] },
    });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(/^amk_/);
    const listed = await s.call('GET', '/api/v1/api-keys', { auth: s.adminToken });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect((await s.call('GET', '/api/v1/users', { auth: { apiKey: key } })).status).toBe(200);
    expect(
      (await s.call('DELETE', `/api/v1/api-keys/${created.body.id}`, { auth: s.adminToken })).status,
    ).toBe(204);
    expect((await s.call('GET', '/api/v1/users', { auth: { apiKey: key } })).status).toBe(401);
  });

  it('gives a read-only key no admin rights', async () => {
    const created = await s.call('POST', '/api/v1/api-keys', {
      auth: s.adminToken,
      body: { name: 'ro', permissions: ['read'] },
    });
    const r = await s.call('GET', '/api/v1/users', { auth: { apiKey: created.body.key } });
    expect(r.status).toBe(403);
  });

  it('serves the OpenAPI document listing every endpoint, and its page', async () => {
    const doc = await s.call('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/auth/token',
        '/api/v1/users/{id}',
        '/api/v1/api-keys',
        '/api/v1/health',
      ]),
    );
    const page = await s.call('GET', '/api/v1/docs');
    expect(page.headers.get('content-type')).toContain('text/html');
    // Swagger UI served by the service itself; its init script reads the document.
    expect(page.text).toContain('/api/v1/docs/assets/swagger-ui-bundle.js');
    const init = await s.call('GET', '/api/v1/docs/assets/init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/api/v1/openapi.json');
  });

  it('answers unknown routes with 404 and wrong methods with 405, as problems', async () => {
    expect((await s.call('GET', '/api/v1/users/1/nothing', { auth: s.adminToken })).status).toBe(404);
    const r = await s.call('PATCH', '/api/v1/api-keys', { auth: s.adminToken });
    expect(r.status).toBe(405);
    expect(r.body.status).toBe(405);
  });
});
