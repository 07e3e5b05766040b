/**
 * A measure's bad direction (analysis.measureProperties.<measure>.badWhen), through HTTP: filters leave out
 * welcome moves unless asked (hideWelcome: false), every record says whether it is good or bad news, and an
 * alert subscription is not sent a welcome move.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertsAfterDetection } from '../../../lib/alerts/collect';
import { alertDeps } from '../../../lib/app/deps';
import { backendName } from '../../support/db';
import { fixtureIncidents } from '../../support/fixture-incidents';
import { startTestService, type TestService } from '../../support/service';
import {
  addAnomalies,
  createView,
  type StoredAnomaly,
  type TestView,
} from '../../integration/filters/fixtures';

type Json = Record<string, any>;

async function receiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe(`welcome moves on ${backendName}`, () => {
  let s: TestService;
  let view: TestView;
  let hook: Awaited<ReturnType<typeof receiver>>;
  const window = { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-01-31' };
  const rise: StoredAnomaly = { startDate: '2024-01-10', result: 'Positive', categories: { country: 'CZ' } };
  const fall: StoredAnomaly = {
    startDate: '2024-01-15',
    result: 'Negative',
    change: -10,
    actualValue: 90,
    categories: { country: 'DE' },
  };
  const countRise: StoredAnomaly = {
    startDate: '2024-01-20',
    measure: 'count',
    result: 'Positive',
    categories: { country: 'AT' },
  };
  const query = (body: Json) => s.call('POST', '/api/v1/anomalies/query', { auth: s.adminToken, body });
  const countries = (r: { body: Json }) =>
    (r.body.anomalies as Json[]).map((a) => `${a.categories.country}:${a.news ?? '-'}`).sort();

  beforeAll(async () => {
    s = await startTestService();
    hook = await receiver();
    view = await createView(s.container.db, { domain: 'shop', name: 'sales', categories: ['country'] });
    // Revenue falling is bad news; the count is bad news both ways.
    await s.container.db.rows(sql`UPDATE data_views SET definition = jsonb_set(definition, '{analysis}',
      ${JSON.stringify({ measureProperties: { value: { badWhen: 'fall' } } })}::jsonb) WHERE id = ${view.id}`);
    await addAnomalies(s.container.db, view, [rise, fall, countRise]);
  });
  afterAll(async () => {
    await s?.stop();
    await hook?.close();
  });

  it('leaves out welcome moves by default and lists them on request, each record saying its news', async () => {
    const hidden = await query(window);
    expect(hidden.status, hidden.text).toBe(200);
    expect(countries(hidden)).toEqual(['AT:-', 'DE:bad']);
    const shown = await query({ ...window, hideWelcome: false });
    expect(countries(shown)).toEqual(['AT:-', 'CZ:good', 'DE:bad']);
    // A saved filter keeps the switch.
    const saved = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'with welcome moves', ...window, hideWelcome: false },
    });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.hideWelcome).toBe(false);
    const run = await s.call('GET', `/api/v1/anomalies/by-filter/${saved.body.id}`, {
      auth: s.adminToken,
    });
    expect(run.status, run.text).toBe(200);
    expect(countries(run)).toEqual(['AT:-', 'CZ:good', 'DE:bad']);
  });

  it('refuses a bad direction that is not fall, rise or both, naming the field', async () => {
    const r = await s.call('POST', '/api/v1/dataviews/validate', {
      auth: s.adminToken,
      body: {
        schemaVersion: 3,
        metadata: { name: 'x', domain: 'y' },
        source: {
          connector: 'none',
          dateColumn: 'd',
          valueColumn: 'v',
          trigger: 'api',
          loadQuery: 'SELECT 1',
        },
        categories: [{ name: 'c', label: 'C' }],
        analysis: { measureProperties: { value: { badWhen: 'up' } } },
      },
    });
    expect(r.text).toContain('analysis.measureProperties.value.badWhen');
  });

  it('sends an alert for the bad move and none for the welcome one', async () => {
    const allow = await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: { allowPrivateNetwork: true },
    });
    expect(allow.status, allow.text).toBe(200);
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'value only', ...window, measures: 'value' },
    });
    expect(f.status, f.text).toBe(201);
    const sub = await s.call('POST', `/api/v1/anomaly-filters/${f.body.id}/alerts`, {
      auth: s.adminToken,
      body: { channel: 'webhook', url: hook.url },
    });
    expect(sub.status, sub.text).toBe(201);
    const { created } = await fixtureIncidents(s.container.db, view);
    await alertsAfterDetection(
      alertDeps(s.container),
      { id: view.id, domain: 'shop', name: 'sales' },
      created,
    );
    const sent = hook.bodies.flatMap((b) =>
      (JSON.parse(b).incidents as Json[]).map((i) => i.startDate as string),
    );
    expect(sent).toEqual(['2024-01-15']);
  });
});
