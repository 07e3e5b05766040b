/**
 * The fault suite, alert targets: a webhook that streams its answer forever, and subscriptions to an address
 * that never answers during a detection (five rounds of concurrent sends: sends are bounded per round, so five rounds
 * show what 200 would). Alerts after a detection end within their time; the messages not sent
 * wait for the every-minute schedule.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { sql } from 'drizzle-orm';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CYCLE_CONCURRENCY, alertsAfterDetection } from '../../lib/alerts/collect';

/** Five rounds of concurrent sends: a few wait for the silent target, the rest are left for the schedule. */
const SUBSCRIPTIONS = CYCLE_CONCURRENCY * 5;
import { alertDeps } from '../../lib/app/deps';
import { createSubscription } from '../../lib/alerts/service';
import { callerForUser } from '../../lib/identity/authenticate';
import { setLogLevel } from '../../lib/shared/logger';
import { addAnomalies, createView, type TestView } from '../integration/filters/fixtures';
import { fixtureIncidents } from '../support/fixture-incidents';
import { startTestService, type TestService } from '../support/service';

setLogLevel('silent');

describe('alert targets that never finish', () => {
  let s: TestService;
  let view: TestView;
  let filterId = 0;
  let newIncidents: number[] = [];
  let adminId = 0;
  let srv: Server;
  let port = 0;
  const sockets = new Set<Socket>();
  const connections = { trickle: 0, silent: 0 };
  const open: ServerResponse[] = [];

  beforeAll(async () => {
    srv = createServer((req, res) => {
      req.resume();
      if (req.url === '/trickle') {
        connections.trickle++;
        // Headers at once, then one byte every 100 ms, forever.
        res.writeHead(200);
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('.')), 100);
        return;
      }
      connections.silent++;
      open.push(res); // never answered
    });
    srv.on('connection', (c) => {
      sockets.add(c);
      c.on('close', () => sockets.delete(c));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    port = (srv.address() as AddressInfo).port;
    s = await startTestService();
    await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: { allowPrivateNetwork: true },
    });
    view = await createView(s.container.db, {
      domain: 'retail',
      name: 'slow_targets',
      categories: ['country'],
    });
    await addAnomalies(s.container.db, view, [
      { startDate: '2024-03-05', type: 'DOD', categories: { country: 'CZ' }, sin: 3 },
    ]);
    // One incident, new to every subscription made below: alerts are run with it as this cycle's new incident.
    newIncidents = (await fixtureIncidents(s.container.db, view)).created;
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: {
        name: 'Slow targets',
        dataViews: 'retail / slow_targets',
        timeRange: 'Custom',
        dateFrom: '2024-03-01',
        dateTo: '2024-03-31',
      },
    });
    filterId = f.body.id;
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    adminId = users.body.find((u: { email: string }) => u.email === 'admin@example.com').id;
  });
  afterAll(async () => {
    await s?.stop();
    for (const c of sockets) c.destroy();
    await new Promise<void>((r) => (srv ? srv.close(() => r()) : r()));
  });

  const deps = () => alertDeps(s.container);
  const subscribe = async (path: string) => {
    const caller = (await callerForUser(s.container.db, adminId))!;
    return createSubscription(deps(), caller, filterId, {
      channel: 'webhook',
      url: `http://127.0.0.1:${port}${path}`,
    });
  };
  // Each case starts from no subscriptions.
  const unsubscribeAll = () => s.container.db.rows(sql`DELETE FROM alert_subscriptions`);

  it('a webhook that streams its answer forever: the send ends at its time limit and is retried later', async () => {
    const sub = await subscribe('/trickle');
    const results = await alertsAfterDetection(
      deps(),
      { id: view.id, domain: 'retail', name: 'slow_targets' },
      newIncidents,
    );
    const mine = results.find((r) => r.subscriptionId === sub.id);
    expect(mine?.deliveries?.[0]).toMatchObject({
      status: 'pending',
      error: expect.stringMatching(/no answer within 10000 ms/),
    });
    expect(connections.trickle).toBe(1);
    await unsubscribeAll();
  });

  it('40 subscriptions (five rounds of concurrent sends) to an address that never answers: a few sends wait, the rest wait for the schedule', async () => {
    for (let i = 0; i < SUBSCRIPTIONS; i++) await subscribe(`/silent/${i}`);
    // A budget that collecting the subscriptions on a loaded machine (one filter run each) cannot use up before the sends
    // start: the case is about the sends (the budget's own cut is the after-cycle tests' subject).
    const results = await alertsAfterDetection(
      deps(),
      { id: view.id, domain: 'retail', name: 'slow_targets' },
      newIncidents,
      { budgetMs: 150_000 },
    );
    expect(results).toHaveLength(SUBSCRIPTIONS);
    const tried = results.filter((r) => /no answer within/.test(r.deliveries?.[0]?.error ?? ''));
    const deferred = results.filter((r) =>
      /did not answer another message of this run/.test(r.deliveries?.[0]?.error ?? ''),
    );
    // Not reached within the budget: the next cycle.
    const skipped = results.filter((r) => r.skipped);
    // One round of concurrent sends hit the silent target; every later one was left for the schedule.
    expect(tried.length).toBeGreaterThan(0);
    expect(tried.length).toBeLessThanOrEqual(CYCLE_CONCURRENCY);
    expect(tried.length + deferred.length + skipped.length).toBe(SUBSCRIPTIONS);
    expect(connections.silent).toBe(tried.length);
    const [waiting] = await s.container.db.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM alert_deliveries WHERE status = 'pending' AND attempts = 0`,
    );
    expect(waiting.n).toBe(deferred.length);
  }, 240_000);
});
