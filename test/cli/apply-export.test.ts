/**
 * Configuration as code against real services: export from one, apply to a fresh one, and the views, filters
 * and subscriptions are reproduced; a second apply is a no-op; --dry-run exits 8 while something would change.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureText, insertConnector, retailNamed } from '../integration/dataviews/support';
import { backendName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

const SLACK = 'http://127.0.0.1:9/services/T000/B000/very-secret-token';
const SLACK_ENV = {
  ANOMALY_MONITOR_SECRET_ALERT_SALES_SLACK_URL: SLACK,
  ANOMALY_MONITOR_SECRET_ALERT_SALES_HOOK_URL: 'http://127.0.0.1:9/hook',
};

/** What a fresh service must reproduce: definitions, filter settings and subscriptions, without ids and times. */
async function snapshot(s: TestService) {
  const auth = s.adminToken;
  const views = (await s.call('GET', '/api/v1/dataviews', { auth })).body as Array<{ id: number }>;
  const definitions = [];
  for (const v of views) {
    const { id, state, createdAt, updatedAt, ...def } = (
      await s.call('GET', `/api/v1/dataviews/${v.id}`, { auth })
    ).body;
    definitions.push(def);
  }
  const filters = ((await s.call('GET', '/api/v1/anomaly-filters', { auth })).body as any[]).map(
    ({ id, ownerId, summary, sharedWith, ...f }) => f,
  );
  const alerts = ((await s.call('GET', '/api/v1/anomaly-filters/alerts', { auth })).body as any[]).map(
    (a) => ({
      name: a.name,
      filter: a.filterName,
      channel: a.channel,
      target: a.target,
      mode: a.mode,
      hour: a.digestHour,
      weekday: a.digestWeekday,
      enabled: a.enabled,
    }),
  );
  const byName = (a: any, b: any) => JSON.stringify(a).localeCompare(JSON.stringify(b));
  return {
    definitions: definitions.sort(byName),
    filters: filters.sort(byName),
    alerts: alerts.sort(byName),
  };
}

async function prepare(s: TestService): Promise<void> {
  await insertConnector(s.container.db);
  // The test targets are on loopback, which alert targets reach only where private networks are allowed.
  const settings = await s.call('PUT', '/api/v1/settings/alerts', {
    auth: s.adminToken,
    body: { allowPrivateNetwork: true },
  });
  if (settings.status !== 200) throw new Error(settings.text);
}

/** Each test runs several CLI processes in turn (one also starts a second service); the default minute is short on a busy machine. */
const SLOW = 240_000;

describe(`service-cli apply and export on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  const dir = mkdtempSync(path.join(tmpdir(), 'config-as-code-'));
  let original: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    requireRoutes(
      ['POST', '/api/v1/dataviews/validate'],
      ['GET', '/api/v1/anomaly-filters/alerts'],
      ['POST', '/api/v1/anomaly-filters/{id}/alerts'],
    );
    s = await startTestService();
    cli = cliFor(s);
    await prepare(s);
    const auth = s.adminToken;
    for (const body of [retailNamed('sales'), retailNamed('returns', 'shop')]) {
      const r = await s.call('POST', '/api/v1/dataviews', { auth, body });
      if (r.status !== 201) throw new Error(r.text);
    }
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth,
      body: {
        name: 'Sales drops',
        dataViews: 'retail / sales',
        anomalyResult: 'Negative',
        limit: 20,
        incidents: true,
      },
    });
    await s.call('POST', '/api/v1/anomaly-filters', {
      auth,
      body: { name: 'Everything', timeRange: 'Last 30 Days' },
    });
    for (const body of [
      { name: 'sales-hook', channel: 'webhook', url: 'http://127.0.0.1:9/hook' },
      { name: 'sales slack', channel: 'slack', url: SLACK, mode: 'daily', digestHour: 7 },
      { channel: 'email', mode: 'weekly', digestWeekday: 5 },
    ]) {
      const r = await s.call('POST', `/api/v1/anomaly-filters/${f.body.id}/alerts`, { auth, body });
      if (r.status !== 201) throw new Error(r.text);
    }
    original = await snapshot(s);
  });
  afterAll(async () => {
    cli?.cleanup();
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names subscriptions uniquely per user: a default name, a taken name refused with 409', async () => {
    expect(original.alerts.map((a) => a.name).sort()).toEqual([
      expect.stringMatching(/^email-\d+$/),
      'sales slack',
      'sales-hook',
    ]);
    const [filter] = (await s.call('GET', '/api/v1/anomaly-filters', { auth: s.adminToken })).body;
    const taken = await s.call('POST', `/api/v1/anomaly-filters/${filter.id}/alerts`, {
      auth: s.adminToken,
      body: { name: 'SALES-HOOK', channel: 'email' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain("named 'SALES-HOOK'");
  });

  it(
    'exports views, filters and subscriptions as YAML with the Slack URL as an environment reference',
    async () => {
      const r = await cli.run(['export', dir]);
      expect(r.code, explain(r)).toBe(0);
      expect(r.stderr).toContain('ALERT_SALES_SLACK_URL');
      expect(readdirSync(path.join(dir, 'dataviews', 'retail'))).toEqual(['sales.yaml']);
      expect(readdirSync(path.join(dir, 'dataviews', 'shop'))).toEqual(['returns.yaml']);
      expect(readdirSync(path.join(dir, 'filters')).sort()).toEqual(['everything.yaml', 'sales-drops.yaml']);
      const drops = readFileSync(path.join(dir, 'filters', 'sales-drops.yaml'), 'utf8');
      expect(drops).toMatch(/^kind: filter\nname: Sales drops$/m);
      expect(drops).toContain('name: sales-hook');
      expect(drops).toContain(`url: \${env:ANOMALY_MONITOR_SECRET_ALERT_SALES_SLACK_URL}`);
      expect(drops).toContain(`url: \${env:ANOMALY_MONITOR_SECRET_ALERT_SALES_HOOK_URL}`);
      expect(drops).not.toContain('very-secret-token');
      // Applied back to the service it came from, the export changes nothing.
      const again = await cli.run(['apply', dir, '--dry-run'], { env: SLACK_ENV });
      expect(again.code, explain(again)).toBe(0);
      expect(again.stdout).toContain(
        'Plan: 0 to create, 0 to update, 0 to replace, 0 to delete, 7 unchanged.',
      );
    },
    SLOW,
  );

  it(
    'applies the folder to a fresh service: a dry run first (exit 8), then the same views, filters and subscriptions',
    async () => {
      cli.cleanup();
      await s.stop();
      s = await startTestService();
      cli = cliFor(s);
      await prepare(s);

      const missing = await cli.run(['apply', dir]);
      expect(missing.code, explain(missing)).toBe(2);
      expect(missing.stderr).toMatch(
        /sales-drops\.yaml:\d+: the environment variable ANOMALY_MONITOR_SECRET_ALERT_SALES_(HOOK|SLACK)_URL is not set/,
      );

      const dry = await cli.run(['apply', dir, '--dry-run'], { env: SLACK_ENV });
      expect(dry.code, explain(dry)).toBe(8);
      expect(dry.stdout).toMatch(/^\+ +create +dataview +retail\/sales/m);
      expect(dry.stdout).toMatch(/^\+ +create +alert +sales slack/m);
      expect(dry.stdout).toContain('Plan: 7 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged.');
      expect((await s.call('GET', '/api/v1/dataviews', { auth: s.adminToken })).body).toEqual([]);

      const applied = await cli.run(['apply', dir], { env: SLACK_ENV });
      expect(applied.code, explain(applied)).toBe(0);
      expect(applied.stdout).toContain('Applied 7 of 7 change(s).');
      expect(applied.stderr).toMatch(
        /Webhook subscription sales-hook \(\d+\) signs with a secret that was not printed/,
      );
      expect(await snapshot(s)).toEqual(original);

      const second = await cli.run(['apply', dir, '--dry-run'], { env: SLACK_ENV });
      expect(second.code, explain(second)).toBe(0);
      expect(second.stdout).toContain('7 unchanged.');
    },
    SLOW,
  );

  it(
    'plans and applies a changed filter, a changed subscription and, with --prune, a deletion',
    async () => {
      const file = path.join(dir, 'filters', 'sales-drops.yaml');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace('limit: 20', 'limit: 5').replace('digestHour: 7', 'digestHour: 9'),
      );
      rmSync(path.join(dir, 'filters', 'everything.yaml'));
      const plan = await cli.run(['apply', dir, '--dry-run', '--prune', '--json'], { env: SLACK_ENV });
      expect(plan.code, explain(plan)).toBe(8);
      const changed = plan.json.plan.filter((p: any) => p.action !== 'unchanged');
      expect(changed).toEqual([
        { kind: 'filter', name: 'Sales drops', action: 'update', changes: ['limit'] },
        { kind: 'alert', name: 'sales slack', action: 'update', changes: ['digestHour'] },
        { kind: 'filter', name: 'Everything', action: 'delete', changes: [] },
      ]);
      const applied = await cli.run(['apply', dir, '--prune'], { env: SLACK_ENV });
      expect(applied.code, explain(applied)).toBe(0);
      const after = await snapshot(s);
      expect(after.filters.map((f) => [f.name, f.limit])).toEqual([['Sales drops', 5]]);
      expect(after.alerts.find((a) => a.name === 'sales slack')?.hour).toBe(9);
      const noop = await cli.run(['apply', dir, '--dry-run', '--prune'], { env: SLACK_ENV });
      expect(noop.code, explain(noop)).toBe(0);
    },
    SLOW,
  );

  it(
    'refuses a Slack URL written in a file and an invalid view naming the file and the field',
    async () => {
      const bad = path.join(dir, '..', `${path.basename(dir)}-bad.yaml`);
      writeFileSync(bad, `kind: alert\nname: leak\nfilter: Sales drops\nchannel: slack\nurl: ${SLACK}\n`);
      const leak = await cli.run(['apply', bad]);
      expect(leak.code, explain(leak)).toBe(2);
      expect(leak.stderr).toContain('a Slack url is a secret');
      writeFileSync(
        bad,
        fixtureText('retail.yaml').replace('domain: retail', 'domain: retail\n  nonsense: 1'),
      );
      const invalid = await cli.run(['apply', bad, '--dry-run']);
      expect(invalid.code, explain(invalid)).toBe(6);
      expect(invalid.stderr).toContain(`${bad}: dataview 'retail/retail_sales'`);
      rmSync(bad);
    },
    SLOW,
  );
});
