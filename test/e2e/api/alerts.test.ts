/**
 * Alerts with real parts: a webhook receiver and a local SMTP server on 127.0.0.1, real load and detection cycles
 * (processCycle, as the process worker runs it), the every-minute schedule for digests and retries.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { alertsAfterDetection } from '../../../lib/alerts/collect';
import { alertsScheduleTick } from '../../../lib/alerts/hooks';
import { alertDeps } from '../../../lib/app/deps';
import { processCycle } from '../../../lib/app/workers';
import { ident, schemaNameFor } from '../../../lib/dataset/ddl';
import type { JobRow } from '../../../lib/jobs/repository';
import { fixedClock } from '../../../lib/shared/clock';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import {
  addAnomalies,
  createView,
  type StoredAnomaly,
  type TestView,
} from '../../integration/filters/fixtures';
import { startTestService, type TestService, USER } from '../../support/service';

interface Hit {
  body: string;
  headers: IncomingMessage['headers'];
}

/** An HTTP receiver on 127.0.0.1 that records every POST; `failNext` answers 500 that many times first. */
async function receiver(): Promise<{ url: string; hits: Hit[]; failNext: number; close(): Promise<void> }> {
  const state = { hits: [] as Hit[], failNext: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (state.failNext > 0) {
        state.failNext--;
        res.writeHead(500).end('busy');
        return;
      }
      state.hits.push({ body, headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

const DAYS = 28;
// A little day-to-day noise: the detectors scale their thresholds by it.
const flat = () => Array.from({ length: DAYS }, (_, t) => 100 + ((t * 7) % 5) - 2);
const spikes = (...at: number[]) => flat().map((v, t) => (at.includes(t) ? 2000 : v));

function viewSpec(cz: number[], de: number[]) {
  return {
    name: 'tills',
    categories: [{ name: 'country' }],
    detectors: [
      { type: 'dod', params: { percentualChange: 30, mode: 'both', useSpecialDates: false, minVolume: 0 } },
    ],
    series: [
      { categories: { country: 'CZ' }, values: spikes(...cz) },
      { categories: { country: 'DE' }, values: spikes(...de) },
    ],
  };
}

describe('alerts on saved filters', () => {
  let s: TestService;
  let source: TestSource;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let failing: Awaited<ReturnType<typeof receiver>>;
  let smtp: SMTPServer;
  const mails: string[] = [];
  let smtpPort = 0;
  let viewId: number;
  let view: TestView;
  let filterId: number;
  let userSub: { id: number; secret: string };
  let failingSubId: number;
  let mailSubId: number;
  const clock = fixedClock('2024-02-01T08:30:00Z');
  let jobSeq = 9000;

  /** The anomalies a detection run publishes: all_anomalies replaced (new ids), then the alerts' after-cycle step. */
  let published: StoredAnomaly[] = [];
  const cycle = async (anomalies: StoredAnomaly[] = published) => {
    published = anomalies;
    await s.container.db.rows(sql.raw(`DELETE FROM ${ident(schemaNameFor(viewId))}.all_anomalies`));
    await addAnomalies(s.container.db, view, anomalies);
    return alertsAfterDetection(alertDeps(s.container), { id: viewId, domain: 'retail', name: 'shop' });
  };
  const spike = (country: string | null, day: string, sin = 2): StoredAnomaly => ({
    startDate: day,
    type: 'DOD',
    categories: { country },
    sin,
  });
  const records = (hit: Hit) =>
    (
      JSON.parse(hit.body).records as Array<{
        type: string;
        startDate: string;
        categories: { country: string | null };
      }>
    ).map((r) => `${r.categories.country ?? '*'} ${r.startDate}`);

  beforeAll(async () => {
    s = await startTestService();
    (s.container as { clock: unknown }).clock = clock;
    source = await createTestSource();
    hook = await receiver();
    failing = await receiver();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, cb) {
        let raw = '';
        stream.on('data', (c: Buffer) => {
          raw += c.toString('utf8');
        });
        stream.on('end', () => {
          mails.push(raw);
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    smtpPort = (smtp.server.address() as AddressInfo).port;

    view = await createView(s.container.db, { domain: 'retail', name: 'shop', categories: ['country'] });
    viewId = view.id;
    // A view the data user cannot read, with an anomaly of its own.
    const secret = await createView(s.container.db, { domain: 'hr', name: 'pay', categories: ['country'] });
    await addAnomalies(s.container.db, secret, [
      { startDate: '2024-01-22', type: 'DOD', categories: { country: 'Zanzibar' }, sin: 9 },
    ]);
    const users = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [viewId] } });
    // The receivers listen on loopback, which targets reach only where the administrator allows private networks.
    const allow = await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: { allowPrivateNetwork: true },
    });
    expect(allow.status, allow.text).toBe(200);
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: {
        name: 'Everything in January',
        timeRange: 'Custom',
        dateFrom: '2024-01-01',
        dateTo: '2024-01-31',
      },
    });
    expect(f.status).toBe(201);
    filterId = f.body.id;
    const share = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/share`, {
      auth: s.adminToken,
      body: { targetUserIds: [userId] },
    });
    expect(share.status, share.text).toBeLessThan(300);
  });
  afterAll(async () => {
    await s?.stop();
    await source?.stop();
    await hook?.close();
    await failing?.close();
    await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
  });

  it('subscribes a filter to a webhook: the secret is shown once and never again', async () => {
    const r = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.userToken,
      body: { channel: 'webhook', url: hook.url },
    });
    expect(r.status).toBe(201);
    expect(r.body.secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    userSub = { id: r.body.id, secret: r.body.secret };
    const again = await s.call('GET', `/api/v1/anomaly-filters/alerts/${userSub.id}`, { auth: s.userToken });
    expect(again.status).toBe(200);
    expect(again.text).not.toContain(userSub.secret);
    expect(again.body.secret).toBeUndefined();
    const mine = await s.call('GET', '/api/v1/anomaly-filters/alerts', { auth: s.userToken });
    expect(mine.body.map((x: { id: number }) => x.id)).toEqual([userSub.id]);
    expect(mine.text).not.toContain(userSub.secret);
  });

  it('refuses link-local and cloud-metadata targets, naming the url field', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/x',
      'http://metadata.google.internal/',
    ]) {
      const r = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
        auth: s.userToken,
        body: { channel: 'webhook', url },
      });
      expect(r.status, url).toBe(400);
      expect(r.body.errors[0].path).toBe('url');
    }
    const other = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.userToken,
      body: { channel: 'email', email: 'someone-else@example.com' },
    });
    expect(other.status).toBe(400);
  });

  it('sends exactly the new records once across two detection cycles, signed, and only what the subscriber can read', async () => {
    const failingSub = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.adminToken,
      body: { channel: 'webhook', url: failing.url },
    });
    failingSubId = failingSub.body.id;
    failing.failNext = 1;

    // Cycle 1: a spike in CZ on 2024-01-20 (and in the total).
    await cycle([spike('CZ', '2024-01-20', 3), spike(null, '2024-01-20')]);
    expect(hook.hits).toHaveLength(1);
    const hit1 = hook.hits[0];
    const expected = `sha256=${createHmac('sha256', userSub.secret).update(hit1.body).digest('hex')}`;
    expect(hit1.headers['x-signature']).toBe(expected);
    const body1 = JSON.parse(hit1.body);
    expect(body1.filter).toEqual({ id: filterId, name: 'Everything in January' });
    expect(body1.links.filter).toContain(`/filters/${filterId}`);
    expect(records(hit1).sort()).toEqual(['* 2024-01-20', 'CZ 2024-01-20']);
    expect(hit1.body).not.toContain('Zanzibar');

    // Cycle 2 (re-detection, new ids): the same anomalies plus a new spike in DE on 2024-01-25.
    await cycle([...published, spike('DE', '2024-01-25', 4), spike(null, '2024-01-25')]);
    expect(hook.hits).toHaveLength(2);
    const hit2 = hook.hits[1];
    expect(hit2.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', userSub.secret).update(hit2.body).digest('hex')}`,
    );
    expect(records(hit2).sort()).toEqual(['* 2024-01-25', 'DE 2024-01-25']);

    // A third cycle with nothing new sends nothing.
    await cycle();
    expect(hook.hits).toHaveLength(2);
  });

  it('posts a readable Slack message with the top records; the Slack URL is never answered back', async () => {
    const slackUrl = hook.url.replace('/hook', '/services/T000/B000/XXXXsecretXXXX');
    const r = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.userToken,
      body: { channel: 'slack', url: slackUrl },
    });
    expect(r.status).toBe(201);
    expect(r.body.target).toBe(`${new URL(slackUrl).origin}/…`);
    expect(r.text).not.toContain('XXXXsecretXXXX');
    const before = hook.hits.length;
    const test = await s.call('POST', `/api/v1/anomaly-filters/alerts/${r.body.id}/test`, {
      auth: s.userToken,
    });
    expect(test.body).toMatchObject({ status: 'sent' });
    const slack = JSON.parse(hook.hits[before].body);
    expect(slack.text).toContain('Test alert for filter "Everything in January"');
    // The next cycle sends this new subscription what it has not seen: the current records, as readable lines.
    await cycle([...published]);
    const lines = JSON.parse(hook.hits.at(-1)!.body).text as string;
    expect(lines).toMatch(
      /• DOD ▲ retail \/ shop \| country=DE \| 2024-01-25 \| actual 110 vs expected 100 \(\+10 %\) \| SIN 4/,
    );
    const list = await s.call('GET', '/api/v1/anomaly-filters/alerts', { auth: s.userToken });
    expect(list.text).not.toContain('XXXXsecretXXXX');
    await s.call('DELETE', `/api/v1/anomaly-filters/alerts/${r.body.id}`, { auth: s.userToken });
  });

  it('retries a failed delivery with backoff and shows the failure on the subscription', async () => {
    const sub = await s.call('GET', `/api/v1/anomaly-filters/alerts/${failingSubId}`, { auth: s.adminToken });
    expect(sub.body.lastError).toContain('HTTP 500');
    let deliveries = (
      await s.call('GET', `/api/v1/anomaly-filters/alerts/${failingSubId}/deliveries`, { auth: s.adminToken })
    ).body as Array<{ status: string; attempts: number; records: number }>;
    const firstDelivery = deliveries.at(-1)!;
    expect(firstDelivery).toMatchObject({ status: 'pending', attempts: 1 });
    // Not due yet: nothing is retried at the same instant.
    await alertsScheduleTick(alertDeps(s.container));
    expect(
      failing.hits.filter((h) =>
        JSON.parse(h.body).records.some(
          (r: { categories: { country: string } }) => r.categories.country === 'Zanzibar',
        ),
      ),
    ).toHaveLength(0);
    const before = failing.hits.length;
    clock.set('2024-02-01T08:31:00Z');
    await alertsScheduleTick(alertDeps(s.container));
    expect(failing.hits.length).toBe(before + 1);
    // The admin's subscription sees every view, so its first message carried the hr record too.
    expect(failing.hits.at(-1)!.body).toContain('Zanzibar');
    deliveries = (
      await s.call('GET', `/api/v1/anomaly-filters/alerts/${failingSubId}/deliveries`, { auth: s.adminToken })
    ).body;
    expect(deliveries.at(-1)).toMatchObject({ status: 'sent', attempts: 2 });
    clock.set('2024-02-01T08:30:00Z');
  });

  it('sends a daily digest as one e-mail (text and HTML) over SMTP configured by an admin', async () => {
    const bad = await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: { smtp: { host: '169.254.169.254', port: 25, from: 'alerts@example.com' } },
    });
    expect(bad.status).toBe(400);
    const put = await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: {
        publicUrl: 'https://monitor.example.com/',
        allowPrivateNetwork: true,
        smtp: {
          host: '127.0.0.1',
          port: smtpPort,
          startTls: false,
          from: 'alerts@example.com',
          password: 'smtp-pass',
        },
      },
    });
    expect(put.status).toBe(200);
    expect(put.text).not.toContain('smtp-pass');
    expect(put.body.smtp.password).toBe('*****');
    const sub = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.userToken,
      body: { channel: 'email', mode: 'daily', digestHour: 9 },
    });
    expect(sub.status).toBe(201);
    expect(sub.body.target).toBe(USER.email);
    mailSubId = sub.body.id;
    await cycle();
    const pending = await s.call('GET', `/api/v1/anomaly-filters/alerts/${mailSubId}`, { auth: s.userToken });
    expect(pending.body.pendingDigest).toBe(4);
    expect(mails).toHaveLength(0);
    // 08:30 is not the digest hour; 09:05 is.
    await alertsScheduleTick(alertDeps(s.container));
    expect(mails).toHaveLength(0);
    clock.set('2024-02-01T09:05:00Z');
    await alertsScheduleTick(alertDeps(s.container));
    expect(mails).toHaveLength(1);
    const raw = mails[0];
    expect(raw).toContain(`To: ${USER.email}`);
    expect(raw).toContain('multipart/alternative');
    const parts = [
      ...raw.matchAll(
        /Content-Type: (text\/\w+); charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n([A-Za-z0-9+/=\r\n]+?)\r\n--/g,
      ),
    ];
    const decoded = Object.fromEntries(
      parts.map((m) => [m[1], Buffer.from(m[2].replace(/\r\n/g, ''), 'base64').toString('utf8')]),
    );
    expect(decoded['text/plain']).toContain('Digest: 4 new anomalies in "Everything in January"');
    expect(decoded['text/plain']).toContain('https://monitor.example.com/filters/');
    expect(decoded['text/html']).toContain('<table');
    expect(decoded['text/plain']).not.toContain('Zanzibar');
    // Once per day: a later tick in the same hour sends nothing more.
    clock.set('2024-02-01T09:30:00Z');
    await alertsScheduleTick(alertDeps(s.container));
    expect(mails).toHaveLength(1);
    clock.set('2024-02-01T08:30:00Z');
    // A new record waits for the next digest; switching to immediate sends what waits at once.
    await cycle([...published, spike('CZ', '2024-01-28', 1)]);
    expect(
      (await s.call('GET', `/api/v1/anomaly-filters/alerts/${mailSubId}`, { auth: s.userToken })).body
        .pendingDigest,
    ).toBe(1);
    const switched = await s.call('PUT', `/api/v1/anomaly-filters/alerts/${mailSubId}`, {
      auth: s.userToken,
      body: { mode: 'immediate' },
    });
    expect(switched.body).toMatchObject({ mode: 'immediate', pendingDigest: 0 });
    expect(mails).toHaveLength(2);
    expect(mails[1]).toContain('multipart/alternative');
  });

  it('feedback survives a re-run of detection, and a record marked expected is not alerted', async () => {
    const run = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.userToken,
      body: { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-01-31' },
    });
    const de = run.body.anomalies.find(
      (a: { categories: { country: string } }) => a.categories.country === 'DE',
    );
    const put = await s.call('PUT', '/api/v1/anomalies/feedback', {
      auth: s.userToken,
      body: {
        dataViewId: viewId,
        seriesId: de.seriesId,
        measure: de.measure,
        type: de.type,
        startDate: de.startDate,
        status: 'expected',
      },
    });
    expect(put.status).toBe(200);
    await cycle([...published]);
    const again = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.userToken,
      body: { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-01-31' },
    });
    const de2 = again.body.anomalies.find(
      (a: { categories: { country: string } }) => a.categories.country === 'DE',
    );
    expect(de2.id).not.toBe(de.id);
    expect(de2.feedback).toMatchObject({ status: 'expected', email: USER.email });
    // A fresh subscription sends what is new to it, without the record marked expected.
    const sub = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.userToken,
      body: { channel: 'webhook', url: hook.url },
    });
    const before = hook.hits.length;
    await cycle();
    const mine = hook.hits
      .slice(before)
      .filter((h) => h.headers['x-alert-subscription'] === String(sub.body.id));
    expect(mine).toHaveLength(1);
    expect(records(mine[0]).sort()).toEqual([
      '* 2024-01-20',
      '* 2024-01-25',
      'CZ 2024-01-20',
      'CZ 2024-01-28',
    ]);
  });

  it('runs after a real load and detection cycle of the process job (the job detail reports it)', async () => {
    const loaded = await loadedDetectionView(s.container.db, source, viewSpec([19], []));
    const job = { id: ++jobSeq, dataViewId: loaded, kind: 'Process', status: 'running' } as unknown as JobRow;
    const detail = (await processCycle(s.container, job, new AbortController().signal)) as Record<
      string,
      unknown
    >;
    expect(detail.series).toBe(3);
    expect(Array.isArray(detail.alerts)).toBe(true);
    expect(Array.isArray(detail.summaries)).toBe(true);
  });
});
