/**
 * Where alert targets may point and what their answers can do, with real servers on 127.0.0.1: loopback and
 * private targets in any IPv6 spelling are refused unless the administrator allows private networks, a target's
 * answer body never reaches the subscriber, an endless answer is not read past a small limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createView } from '../../integration/filters/fixtures';
import { startTestService, type TestService, USER } from '../../support/service';

describe('alert targets', () => {
  let s: TestService;
  let srv: Server;
  let port = 0;
  let filterId = 0;
  const hits: string[] = [];
  const endless = { bytes: 0, closed: false };

  beforeAll(async () => {
    srv = createServer((req, res) => {
      req.resume();
      hits.push(req.url ?? '');
      if (req.url === '/secret500') return void res.writeHead(500).end('internal-token-7f3a');
      if (req.url === '/endless') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'y');
        const pump = () => {
          while (!res.destroyed && endless.bytes < 2 * 1024 ** 3) {
            endless.bytes += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        res.on('close', () => {
          endless.closed = true;
        });
        return pump();
      }
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    port = (srv.address() as AddressInfo).port;
    s = await startTestService();
    const view = await createView(s.container.db, {
      domain: 'retail',
      name: 'targets',
      categories: ['country'],
    });
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    const userId = users.body.find((u: { email: string }) => u.email === USER.email).id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [view.id] } });
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'Targets', dataViews: 'retail / targets' },
    });
    filterId = f.body.id;
    await s.call('POST', `/api/v1/anomaly-filters/${filterId}/share`, {
      auth: s.adminToken,
      body: { targetUserIds: [userId] },
    });
  });
  afterAll(async () => {
    await s?.stop();
    srv?.closeAllConnections();
    await new Promise<void>((r) => (srv ? srv.close(() => r()) : r()));
  });

  const subscribe = (auth: string, body: Record<string, unknown>) =>
    s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, { auth, body });

  it('refuses a loopback or metadata target in every IPv6 spelling, and no request reaches the server', async () => {
    for (const host of [
      '[::ffff:7f00:1]',
      '[::ffff:127.0.0.1]',
      '[::7f00:1]',
      '[2002:7f00:1::]',
      '127.0.0.1',
      '[::1]',
    ]) {
      const r = await subscribe(s.userToken, { channel: 'webhook', url: `http://${host}:${port}/hook` });
      expect(r.status, host).toBe(400);
      expect(r.body.errors[0].path).toBe('url');
      expect(r.body.errors[0].message).toMatch(/loopback address .*alert targets must be public addresses$/);
    }
    for (const host of [
      '[::ffff:a9fe:a9fe]',
      '[64:ff9b::a9fe:a9fe]',
      '[2002:a9fe:a9fe::]',
      '[::ffff:0:a9fe:a9fe]',
    ]) {
      const r = await subscribe(s.userToken, { channel: 'slack', url: `http://${host}/services/x` });
      expect(r.status, host).toBe(400);
      expect(r.body.errors[0].message).toMatch(/cloud metadata address/);
    }
    expect(hits).toEqual([]);
  });

  it('tells a data user that targets must be public, and an administrator which setting allows private ones', async () => {
    const user = await subscribe(s.userToken, { channel: 'webhook', url: 'http://10.1.2.3/hook' });
    expect(user.status).toBe(400);
    expect(user.body.errors[0].message).not.toMatch(/allowPrivateNetwork|settings/);
    const admin = await subscribe(s.adminToken, { channel: 'webhook', url: 'http://10.1.2.3/hook' });
    expect(admin.status).toBe(400);
    expect(admin.body.errors[0].message).toMatch(/allowPrivateNetwork in the alert settings/);
  });

  it('says at once that e-mail cannot go out while no SMTP server is configured', async () => {
    const r = await subscribe(s.userToken, { channel: 'email' });
    expect(r.status).toBe(201);
    expect(r.body.lastError).toMatch(/no SMTP server is configured/);
    expect(r.body.lastErrorAt).toBeTruthy();
  });

  it("reports a target's status, never its answer body", async () => {
    const allow = await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: { allowPrivateNetwork: true },
    });
    expect(allow.status).toBe(200);
    const sub = await subscribe(s.userToken, {
      channel: 'webhook',
      url: `http://[::ffff:7f00:1]:${port}/secret500`,
    });
    expect(sub.status, sub.text).toBe(201);
    const test = await s.call('POST', `/api/v1/anomaly-filters/alerts/${sub.body.id}/test`, {
      auth: s.userToken,
    });
    expect(test.body).toMatchObject({ status: 'failed', error: 'the endpoint answered HTTP 500' });
    const again = await s.call('GET', `/api/v1/anomaly-filters/alerts/${sub.body.id}`, { auth: s.userToken });
    expect(again.body.lastError).toBe('the endpoint answered HTTP 500');
    expect(hits).toEqual(['/secret500']);
  });

  it('reads no more than a small part of an endless answer: the message counts as sent', async () => {
    const sub = await subscribe(s.userToken, { channel: 'webhook', url: `http://127.0.0.1:${port}/endless` });
    expect(sub.status, sub.text).toBe(201);
    const test = await s.call('POST', `/api/v1/anomaly-filters/alerts/${sub.body.id}/test`, {
      auth: s.userToken,
    });
    expect(test.body).toMatchObject({ status: 'sent' });
    await expect.poll(() => endless.closed).toBe(true);
    expect(endless.bytes).toBeLessThan(64 * 1024 ** 2);
  });

  it('keeps the stored SMTP password only while host, port and TLS settings stay the same', async () => {
    const smtp = { host: '127.0.0.1', port: 2525, startTls: true, from: 'alerts@example.com' };
    const put = (body: Record<string, unknown>) =>
      s.call('PUT', '/api/v1/settings/alerts', {
        auth: s.adminToken,
        body: { allowPrivateNetwork: true, smtp: body },
      });
    expect((await put({ ...smtp, password: 'smtp-secret' })).status).toBe(200);
    expect((await put({ ...smtp, password: '*****' })).status).toBe(200);
    for (const change of [{ port: 2526 }, { startTls: false }, { secure: true }]) {
      const r = await put({ ...smtp, ...change, password: '*****' });
      expect(r.status, JSON.stringify(change)).toBe(400);
      expect(r.body.errors[0]).toMatchObject({ path: 'smtp.password' });
    }
  });
});
