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
import { fixtureIncidents } from '../../support/fixture-incidents';
import { startTestService, type TestService, USER } from '../../support/service';

interface Hit {
  body: string;
  headers: IncomingMessage['headers'];
}

/**
 * An HTTP receiver on 127.0.0.1 that records every POST; `failNext` answers 500 that many times first;
 * `onHit` runs as a request arrives (a test moves the clock: the send takes time).
 */
async function receiver(): Promise<{
  url: string;
  hits: Hit[];
  failNext: number;
  onHit?: () => void;
  close(): Promise<void>;
}> {
  const state: { hits: Hit[]; failNext: number; onHit?: () => void } = { hits: [], failNext: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      state.onHit?.();
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
    const { created } = await fixtureIncidents(s.container.db, view);
    return alertsAfterDetection(
      alertDeps(s.container),
      { id: viewId, domain: 'retail', name: 'shop' },
      created,
    );
  };
  const spike = (country: string | null, day: string, sin = 2): StoredAnomaly => ({
    startDate: day,
    type: 'DOD',
    categories: { country },
    sin,
  });
  /**
   * The incidents of a message by their first day (each spike here has a day of its own). The fixture views hold
   * no series, so their root causes are not meaningful: the real cycle below checks those.
   */
  const records = (hit: Hit) =>
    (JSON.parse(hit.body).incidents as Array<{ startDate: string }>).map((i) => i.startDate);
  const hitsOf = (subId: number, from = 0) =>
    hook.hits.slice(from).filter((h) => h.headers['x-alert-subscription'] === String(subId));

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

  it('sends one message per new incident once across detection cycles, signed, and only what the subscriber can read', async () => {
    const failingSub = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.adminToken,
      body: { channel: 'webhook', url: failing.url },
    });
    failingSubId = failingSub.body.id;
    failing.failNext = 1;

    // Cycle 1: a spike in CZ on 2024-01-20, an incident of its own.
    await cycle([spike('CZ', '2024-01-20', 3)]);
    expect(hook.hits).toHaveLength(1);
    const hit1 = hook.hits[0];
    const expected = `sha256=${createHmac('sha256', userSub.secret).update(hit1.body).digest('hex')}`;
    expect(hit1.headers['x-signature']).toBe(expected);
    const body1 = JSON.parse(hit1.body);
    expect(body1.filter).toEqual({ id: filterId, name: 'Everything in January' });
    expect(body1.links.filter).toContain(`/filters/${filterId}`);
    expect(body1).toMatchObject({ event: 'incident.new', count: 1 });
    expect(body1.incidents[0].citation).toBe(`[incident ${viewId}:${body1.incidents[0].id}]`);
    expect(body1.incidents[0].rootCauses.length).toBeGreaterThan(0);
    expect(records(hit1)).toEqual(['2024-01-20']);
    expect(hit1.body).not.toContain('Zanzibar');

    // Cycle 2 (re-detection, new record ids): the same anomaly plus two new spikes, two new incidents: two messages.
    await cycle([...published, spike('DE', '2024-01-25', 4), spike('AT', '2024-01-12', 2)]);
    expect(hook.hits).toHaveLength(3);
    for (const hit of hook.hits.slice(1))
      expect(hit.headers['x-signature']).toBe(
        `sha256=${createHmac('sha256', userSub.secret).update(hit.body).digest('hex')}`,
      );
    expect(
      hook.hits
        .slice(1)
        .map((h) => records(h)[0])
        .sort(),
    ).toEqual(['2024-01-12', '2024-01-25']);

    // A third cycle with nothing new sends nothing.
    await cycle();
    expect(hook.hits).toHaveLength(3);
  });

  it('never sends an incident that only moved into the Top N, nor the current state to a new subscription', async () => {
    // The top incident of a filter showing one row, dismissed: the next one moves into its Top 1 but is not new.
    const top1 = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.userToken,
      body: {
        name: 'Top 1',
        timeRange: 'Custom',
        dateFrom: '2024-01-01',
        dateTo: '2024-01-31',
        limit: 1,
        hideDismissed: true,
      },
    });
    expect(top1.status, top1.text).toBe(201);
    const sub = await s.call('POST', `/api/v1/anomaly-filters/${top1.body.id}/alerts`, {
      auth: s.userToken,
      body: { channel: 'webhook', url: hook.url },
    });
    const before = hook.hits.length;
    // A new subscription starts from now: re-detecting what exists sends it nothing.
    await cycle();
    expect(hitsOf(sub.body.id, before)).toHaveLength(0);
    await cycle([...published, spike('PL', '2024-01-27', 9), spike('SK', '2024-01-26', 8)]);
    const first = hitsOf(sub.body.id, before);
    expect(first.flatMap((h) => records(h))).toEqual(['2024-01-27']);
    const run = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.userToken,
      body: { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-01-31' },
    });
    const pl = run.body.anomalies.find(
      (a: { categories: { country: string } }) => a.categories.country === 'PL',
    );
    const put = await s.call('PUT', '/api/v1/anomalies/feedback', {
      auth: s.userToken,
      body: {
        dataViewId: viewId,
        seriesId: pl.seriesId,
        measure: pl.measure,
        type: pl.type,
        startDate: pl.startDate,
        status: 'not-anomaly',
      },
    });
    expect(put.status, put.text).toBe(200);
    await cycle();
    // SK now leads the filter (it did not before), yet nothing is sent: it was first seen a cycle ago.
    const shown = await s.call('GET', `/api/v1/anomalies/by-filter/${top1.body.id}`, {
      auth: s.userToken,
    });
    expect(
      shown.body.anomalies.map((a: { categories: { country: string } }) => a.categories.country),
    ).toEqual(['SK']);
    expect(hitsOf(sub.body.id, before)).toHaveLength(1);
    await s.call('DELETE', `/api/v1/anomaly-filters/alerts/${sub.body.id}`, { auth: s.userToken });
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
    // The next cycle's new incident, as a readable line naming its citation, root cause and broad series.
    await cycle([...published, spike('HU', '2024-01-29', 4)]);
    // The user's webhook subscription hears of it too, in any order: the Slack message is the one with `text`.
    const slackMessages = hook.hits
      .slice(before + 1)
      .map((h) => JSON.parse(h.body))
      .filter((b) => typeof b.text === 'string');
    expect(slackMessages).toHaveLength(1);
    const msg = slackMessages[0];
    expect(msg.text).toMatch(/New incident in "Everything in January": ▲ /);
    expect(msg.text).toMatch(
      /• \[incident \d+:\d+\] ▲ retail \/ shop \| root cause .+ \| of broad series .+: actual [\d,.]+ vs expected [\d,.]+ \([+\d,.]+ %\) \| 2024-01-29 \| value DOD \| 1 record \| SIN 4/,
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
    const before = failing.hits.length;
    await alertsScheduleTick(alertDeps(s.container));
    expect(failing.hits.length).toBe(before);
    clock.set('2024-02-01T08:31:00Z');
    // The message arrives seven seconds into the run: that, not the run's start, is when it was sent.
    failing.onHit = () => clock.set('2024-02-01T08:31:07Z');
    await alertsScheduleTick(alertDeps(s.container));
    failing.onHit = undefined;
    expect(failing.hits.length).toBe(before + 1);
    // The message that failed first: the CZ incident of the first cycle (only the cycled view's incidents, never hr's).
    expect(records(failing.hits.at(-1)!)).toEqual(['2024-01-20']);
    expect(failing.hits.map((h) => h.body).join()).not.toContain('Zanzibar');
    deliveries = (
      await s.call('GET', `/api/v1/anomaly-filters/alerts/${failingSubId}/deliveries`, { auth: s.adminToken })
    ).body;
    expect(deliveries.at(-1)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(new Date((deliveries.at(-1) as unknown as { sentAt: string }).sentAt).toISOString()).toBe(
      '2024-02-01T08:31:07.000Z',
    );
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
    await cycle([...published, spike('IT', '2024-01-05', 3), spike('ES', '2024-01-06', 2)]);
    const pending = await s.call('GET', `/api/v1/anomaly-filters/alerts/${mailSubId}`, { auth: s.userToken });
    expect(pending.body.pendingDigest).toBe(2);
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
    expect(decoded['text/plain']).toContain('Digest: 2 new incidents in "Everything in January"');
    expect(decoded['text/plain']).toMatch(/- \[incident \d+:\d+\] ▲ retail \/ shop \| root cause /);
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
    // A fresh subscription gets what is new after it was made: the next new incident, nothing older.
    const sub = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.userToken,
      body: { channel: 'webhook', url: hook.url },
    });
    const before = hook.hits.length;
    await cycle([...published, spike('FR', '2024-01-30', 5)]);
    const mine = hitsOf(sub.body.id, before);
    expect(mine).toHaveLength(1);
    expect(records(mine[0])).toEqual(['2024-01-30']);
  });

  it('runs after a real load and detection cycle of the process job (the job detail reports it)', async () => {
    const loaded = await loadedDetectionView(s.container.db, source, viewSpec([27], []));
    // The administrator's subscription covers every view: it hears of the real cycle's incidents.
    const sub = await s.call('POST', `/api/v1/anomaly-filters/${filterId}/alerts`, {
      auth: s.adminToken,
      body: { channel: 'webhook', url: hook.url },
    });
    const before = hook.hits.length;
    const job = { id: ++jobSeq, dataViewId: loaded, kind: 'Process', status: 'running' } as unknown as JobRow;
    const detail = (await processCycle(s.container, job, new AbortController().signal)) as Record<
      string,
      unknown
    >;
    expect(detail.series).toBe(3);
    expect(Array.isArray(detail.alerts)).toBe(true);
    expect(Array.isArray(detail.summaries)).toBe(true);
    // One message per incident first seen in this cycle, each naming its root cause: the CZ leaf moved the total.
    const created = (detail.incidents as { created: number[] }).created;
    const mine = hitsOf(sub.body.id, before).map((h) => JSON.parse(h.body));
    expect(mine.length).toBeGreaterThan(0);
    expect(mine).toHaveLength(created.length);
    expect(mine.map((m) => m.incidents[0].id).sort()).toEqual([...created].sort());
    const spike = mine.find((m) => m.incidents[0].startDate === '2024-01-28');
    expect(spike?.incidents[0]).toMatchObject({
      dataViewId: loaded,
      result: 'Positive',
      broad: { categories: { country: null } },
      rootCauses: [{ categories: { country: 'CZ' } }],
    });
    expect(spike?.incidents[0].size).toBeGreaterThanOrEqual(2);
    // Detecting the same data again: nothing is new, nothing is sent.
    const again = { ...job, id: ++jobSeq } as JobRow;
    await processCycle(s.container, again, new AbortController().signal);
    expect(hitsOf(sub.body.id, before)).toHaveLength(created.length);
  });
});
