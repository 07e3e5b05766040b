/**
 * Configuration as code tried as a new user would: export from one service and apply to a fresh one.
 * The view arrives deployed and enabled as it was (with --load, its first load requested), the filter
 * pinned and shared as it was, and a subscription the fresh service refuses (a loopback webhook, which its
 * outbound guard refuses) is reported with the rest instead of stopping the run half-way. A dry run
 * compares the lifecycle state too.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertConnector, retailNamed } from '../integration/dataviews/support';
import { backendName } from '../support/db';
import { startTestService, type TestService, USER } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

const HOOK = 'http://127.0.0.1:9/hook';
const ENV = { ANOMALY_MONITOR_SECRET_ALERT_SALES_HOOK_URL: HOOK };

async function allowPrivate(s: TestService, allow: boolean): Promise<void> {
  const r = await s.call('PUT', '/api/v1/settings/alerts', {
    auth: s.adminToken,
    body: { allowPrivateNetwork: allow },
  });
  if (r.status !== 200) throw new Error(r.text);
}

async function userId(s: TestService): Promise<number> {
  const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
  return users.body.find((u: { email: string }) => u.email === USER.email).id;
}

describe(`service-cli export, then apply to a fresh service, on ${backendName}`, () => {
  let source: TestService;
  let fresh: TestService;
  let cli: Cli;
  const dir = mkdtempSync(path.join(tmpdir(), 'round-trip-'));

  beforeAll(async () => {
    requireRoutes(
      ['POST', '/api/v1/dataviews/{id}/deploy'],
      ['POST', '/api/v1/dataviews/{id}/enable'],
      ['PUT', '/api/v1/anomaly-filters/{id}/pin'],
      ['POST', '/api/v1/anomaly-filters/{id}/share'],
      ['GET', '/api/v1/anomaly-filters/shareable-users'],
    );
    source = await startTestService();
    await insertConnector(source.container.db);
    await allowPrivate(source, true);
    const auth = source.adminToken;
    const view = await source.call('POST', '/api/v1/dataviews', { auth, body: retailNamed('sales') });
    if (view.status !== 201) throw new Error(view.text);
    for (const action of ['deploy', 'enable']) {
      const r = await source.call('POST', `/api/v1/dataviews/${view.body.id}/${action}`, { auth });
      if (r.status !== 200) throw new Error(r.text);
    }
    const filter = await source.call('POST', '/api/v1/anomaly-filters', {
      auth,
      body: { name: 'Sales drops', dataViews: 'retail / sales', anomalyResult: 'Negative' },
    });
    if (filter.status !== 201) throw new Error(filter.text);
    await source.call('PUT', `/api/v1/anomaly-filters/${filter.body.id}/pin`, {
      auth,
      body: { pinned: true },
    });
    const shared = await source.call('POST', `/api/v1/anomaly-filters/${filter.body.id}/share`, {
      auth,
      body: { targetUserIds: [await userId(source)] },
    });
    if (shared.status !== 200) throw new Error(shared.text);
    for (const body of [
      { name: 'sales-hook', channel: 'webhook', url: HOOK },
      { name: 'sales-mail', channel: 'email', mode: 'daily' },
    ]) {
      const r = await source.call('POST', `/api/v1/anomaly-filters/${filter.body.id}/alerts`, { auth, body });
      if (r.status !== 201) throw new Error(r.text);
    }
    cli = cliFor(source);
    const exported = await cli.run(['export', dir]);
    if (exported.code !== 0) throw new Error(explain(exported));
    cli.cleanup();
    await source.stop();

    // The fresh service refuses loopback targets: the subscription to HOOK cannot be created there.
    fresh = await startTestService();
    await insertConnector(fresh.container.db);
    cli = cliFor(fresh);
  });
  afterAll(async () => {
    cli?.cleanup();
    await fresh?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports the state, the pin, the recipients and the webhook URL as a reference', () => {
    const view = readFileSync(path.join(dir, 'dataviews', 'retail', 'sales.yaml'), 'utf8');
    expect(view).toMatch(/^state: enabled$/m);
    const filter = readFileSync(path.join(dir, 'filters', 'sales-drops.yaml'), 'utf8');
    expect(filter).toMatch(/^pinned: true$/m);
    expect(filter).toMatch(/^sharedWith:\n {2}- user@example\.com$/m);
    expect(filter).toContain(`url: \${env:ANOMALY_MONITOR_SECRET_ALERT_SALES_HOOK_URL}`);
    expect(filter).not.toContain(HOOK);
  });

  it('reaches the state with --load, reports the refused subscription with the rest, and converges', async () => {
    const dry = await cli.run(['apply', dir, '--dry-run', '--json'], { env: ENV });
    expect(dry.code, explain(dry)).toBe(8);
    expect(dry.json.plan).toEqual(
      expect.arrayContaining([
        { kind: 'dataview', name: 'retail/sales', action: 'create', changes: ['state: prepared → enabled'] },
        { kind: 'filter', name: 'Sales drops', action: 'create', changes: ['pinned', 'sharedWith'] },
      ]),
    );

    const applied = await cli.run(['apply', dir, '--load'], { env: ENV });
    expect(applied.code, explain(applied)).not.toBe(0);
    expect(applied.stdout).toContain('Applied 3 of 4 change(s).');
    expect(applied.stderr).toMatch(
      /Refused create of alert sales-hook: .*sales-drops\.yaml: alert 'sales-hook': /,
    );
    expect(applied.stderr).toContain('3 of 4 change(s) applied');
    expect(applied.stderr).toContain('1 refused (alert sales-hook)');
    expect(applied.stderr).toContain('dataview retail/sales: created, deploy, enable, load (job');

    const auth = fresh.adminToken;
    const [view] = (await fresh.call('GET', '/api/v1/dataviews', { auth })).body;
    expect(view.state).toBe('enabled');
    const jobs = (await fresh.call('GET', `/api/v1/jobs?dataViewId=${view.id}`, { auth })).body;
    expect(jobs.map((j: { kind: string }) => j.kind)).toEqual(['Load']);
    const [filter] = (await fresh.call('GET', '/api/v1/anomaly-filters', { auth })).body;
    expect(filter).toMatchObject({ name: 'Sales drops', pinned: true, sharedWith: [await userId(fresh)] });
    const subs = (await fresh.call('GET', '/api/v1/anomaly-filters/alerts', { auth })).body;
    expect(subs.map((a: { name: string }) => a.name)).toEqual(['sales-mail']);

    // Once the target is allowed, only the refused subscription is left to do; then nothing.
    await allowPrivate(fresh, true);
    const rest = await cli.run(['apply', dir, '--dry-run', '--json'], { env: ENV });
    expect(rest.code, explain(rest)).toBe(8);
    expect(rest.json.plan.filter((p: { action: string }) => p.action !== 'unchanged')).toEqual([
      { kind: 'alert', name: 'sales-hook', action: 'create', changes: [] },
    ]);
    const done = await cli.run(['apply', dir], { env: ENV });
    expect(done.code, explain(done)).toBe(0);
    const noop = await cli.run(['apply', dir, '--dry-run'], { env: ENV });
    expect(noop.code, explain(noop)).toBe(0);
  });

  it('compares the state in a dry run: a view disabled on the service is a pending change', async () => {
    const auth = fresh.adminToken;
    const [view] = (await fresh.call('GET', '/api/v1/dataviews', { auth })).body;
    await fresh.call('POST', `/api/v1/dataviews/${view.id}/disable`, { auth });
    const dry = await cli.run(['apply', dir, '--dry-run', '--json'], { env: ENV });
    expect(dry.code, explain(dry)).toBe(8);
    expect(dry.json.plan.filter((p: { action: string }) => p.action !== 'unchanged')).toEqual([
      { kind: 'dataview', name: 'retail/sales', action: 'update', changes: ['state: disabled → enabled'] },
    ]);
    const applied = await cli.run(['apply', dir], { env: ENV });
    expect(applied.code, explain(applied)).toBe(0);
    expect((await fresh.call('GET', `/api/v1/dataviews/${view.id}`, { auth })).body.state).toBe('enabled');
  });
});
