import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { type FakeLlm, startFakeLlm } from '../../support/fake-llm';
import { startTestService, type TestService } from '../../support/service';

describe(`summarization settings on ${backendName}`, () => {
  let s: TestService;
  let fake: FakeLlm;
  beforeAll(async () => {
    s = await startTestService();
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await s.stop();
    await fake.close();
  });

  const settings = () => ({
    url: fake.url,
    headers: { Authorization: 'Bearer sk-very-secret-key', 'Content-Type': 'application/json' },
    bodyTemplate:
      '{"model":"m","messages":[{"role":"system","content":"{{instructions}}"},{"role":"user","content":"{{prompt}}"}]}',
    responsePath: 'choices[0].message.content',
    timeoutMs: 1000,
  });

  it('is admin only', async () => {
    expect((await s.call('GET', '/api/v1/settings/summarization', { auth: s.userToken })).status).toBe(403);
  });

  it('reports that nothing is configured, and a test call then fails clearly', async () => {
    const r = await s.call('GET', '/api/v1/settings/summarization', { auth: s.adminToken });
    expect(r.body.configured).toBe(false);
    const t = await s.call('POST', '/api/v1/settings/summarization/test', { auth: s.adminToken });
    expect(t.status).toBe(409);
    expect(t.body.detail).toMatch(/No language-model endpoint is configured/);
  });

  it('stores the endpoint with its header values encrypted and masked', async () => {
    const put = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: settings(),
    });
    expect(put.status).toBe(200);
    expect(put.body.headers).toEqual({ Authorization: '*****', 'Content-Type': 'application/json' });
    const get = await s.call('GET', '/api/v1/settings/summarization', { auth: s.adminToken });
    expect(get.text).not.toContain('sk-very-secret-key');
    const rows = await s.container.db.rows<{ line: string }>(sql`SELECT s::text AS line FROM settings s`);
    expect(rows.map((r) => r.line).join('\n')).not.toContain('sk-very-secret-key');
  });

  it('keeps a masked header value on update and uses it in the test call', async () => {
    const body = { ...settings(), headers: { Authorization: '*****' } };
    expect((await s.call('PUT', '/api/v1/settings/summarization', { auth: s.adminToken, body })).status).toBe(
      200,
    );
    fake.mode = 'ok';
    const t = await s.call('POST', '/api/v1/settings/summarization/test', { auth: s.adminToken });
    expect(t.status).toBe(200);
    expect(t.body.text).toBe(fake.reply);
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-very-secret-key');
  });

  it('answers a failing endpoint with a readable 502', async () => {
    fake.mode = 'error500';
    const t = await s.call('POST', '/api/v1/settings/summarization/test', { auth: s.adminToken });
    expect(t.status).toBe(502);
    expect(t.body.detail).toMatch(/HTTP 500/);
    // The administrator testing the endpoint sees what it answered.
    expect(t.body.detail).toMatch(/model overloaded/);
    fake.mode = 'ok';
  });

  it('asks for the secret headers again when the URL changes', async () => {
    const saved = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: settings(),
    });
    expect(saved.status).toBe(200);
    const masked = { Authorization: '*****', 'Content-Type': 'application/json' };
    // Same URL: the stored value is kept.
    const same = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: { ...settings(), headers: masked },
    });
    expect(same.status).toBe(200);
    const moved = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: { ...settings(), url: fake.url.replace('/v1/', '/v2/'), headers: masked },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.errors[0]).toEqual({
      path: 'headers.Authorization',
      message: 'the URL changed, so the stored value is not kept: send the value again',
    });
    const kept = await s.call('GET', '/api/v1/settings/summarization', { auth: s.adminToken });
    expect(kept.body.url).toBe(fake.url);
    // With the value sent again, the new URL is taken.
    const resent = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: { ...settings(), url: fake.url.replace('/v1/', '/v2/') },
    });
    expect(resent.status).toBe(200);
  });

  it('refuses link-local and metadata addresses, and private ranges unless allowed; loopback is fine', async () => {
    for (const url of [
      'http://169.254.169.254/latest/api/token',
      'http://[fe80::1]:8080/v1',
      'http://metadata.google.internal/',
    ]) {
      const r = await s.call('PUT', '/api/v1/settings/summarization', {
        auth: s.adminToken,
        body: { ...settings(), url, allowPrivateNetwork: true },
      });
      expect(r.status, url).toBe(400);
      expect(r.body.errors[0].path).toBe('url');
    }
    const priv = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: { ...settings(), url: 'http://10.20.30.40:8000/v1/chat/completions' },
    });
    expect(priv.status).toBe(400);
    expect(priv.body.errors[0].message).toMatch(
      /private network address \(10\.20\.30\.40\); set allowPrivateNetwork/,
    );
    const allowed = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: { ...settings(), url: 'http://10.20.30.40:8000/v1/chat/completions', allowPrivateNetwork: true },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.allowPrivateNetwork).toBe(true);
    const loop = await s.call('PUT', '/api/v1/settings/summarization', {
      auth: s.adminToken,
      body: settings(),
    });
    expect(loop.status).toBe(200);
  });

  it('refuses a template without {{instructions}}, invalid JSON, or a bad response path, naming the field', async () => {
    for (const [patch, path] of [
      [{ bodyTemplate: '{"prompt":"{{prompt}}"}' }, 'bodyTemplate'],
      [{ bodyTemplate: '{"x": {{instructions}}}' }, 'bodyTemplate'],
      [{ responsePath: 'choices[0]..content' }, 'responsePath'],
      [{ url: 'ftp://x' }, 'url'],
    ] as const) {
      const r = await s.call('PUT', '/api/v1/settings/summarization', {
        auth: s.adminToken,
        body: { ...settings(), ...patch },
      });
      expect(r.status, JSON.stringify(patch)).toBe(400);
      expect(r.body.errors[0].path).toBe(path);
    }
  });
});
