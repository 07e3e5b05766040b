/**
 * `service-cli apply` reads `${env:…}` only where a secret belongs (an alert subscription's url) and only
 * from variables named ANOMALY_MONITOR_SECRET_*: a file from a pull request cannot copy the CI's API key
 * or token into a webhook URL. A reference elsewhere, or to another variable, is refused with the file
 * and line, and nothing of the folder is applied.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureText, insertConnector } from '../integration/dataviews/support';
import { backendName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

describe(`service-cli apply: secret references on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  const dir = mkdtempSync(path.join(tmpdir(), 'apply-refs-'));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const subscriptions = async () =>
    (await s.call('GET', '/api/v1/anomaly-filters/alerts', { auth: s.adminToken })).body as Array<{
      name: string;
      target: string;
    }>;
  const filters = async () =>
    (
      (await s.call('GET', '/api/v1/anomaly-filters', { auth: s.adminToken })).body as Array<{ name: string }>
    ).map((f) => f.name);

  beforeAll(async () => {
    requireRoutes(['POST', '/api/v1/anomaly-filters/{id}/alerts'], ['POST', '/api/v1/anomaly-filters']);
    s = await startTestService();
    cli = cliFor(s);
    await insertConnector(s.container.db);
    const allowed = await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: { allowPrivateNetwork: true },
    });
    if (allowed.status !== 200) throw new Error(allowed.text);
  });
  afterAll(async () => {
    cli?.cleanup();
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a webhook URL that reads the CLI token, naming the file and line, and applies nothing', async () => {
    const file = write(
      'leak.yaml',
      'kind: filter\nname: Leaky\ntimeRange: Last 30 Days\n---\nkind: alert\nname: exfil\nfilter: Leaky\n' +
        `channel: webhook\nurl: http://127.0.0.1:9/hook?k=\${env:SERVICE_CLI_TOKEN}\n`,
    );
    const r = await cli.run(['apply', file]);
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toContain(`${file}:9: url refers to \${env:SERVICE_CLI_TOKEN}`);
    expect(r.stderr).toContain('ANOMALY_MONITOR_SECRET_*');
    expect(await subscriptions()).toEqual([]);
    expect(await filters()).toEqual([]);
    rmSync(file);
  });

  it('refuses a reference outside a secret field, even to a secret variable', async () => {
    const env = { ANOMALY_MONITOR_SECRET_X: 'retail / sales' };
    const filter = write(
      'filter.yaml',
      `kind: filter\nname: Sneaky\ndataViews: \${env:ANOMALY_MONITOR_SECRET_X}\n`,
    );
    const r = await cli.run(['apply', filter], { env });
    expect(r.code, explain(r)).toBe(2);
    expect(r.stderr).toContain(`${filter}:3: \${env:…} is read only in a secret field`);
    expect(r.stderr).toContain('not in dataViews');
    rmSync(filter);

    const view = write(
      'view.yaml',
      fixtureText('retail.yaml').replace('tags: retail, revenue, demo', `tags: "\${env:HOME}"`),
    );
    const v = await cli.run(['apply', view, '--dry-run']);
    expect(v.code, explain(v)).toBe(2);
    expect(v.stderr).toMatch(
      new RegExp(`${view.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: .*not in metadata\\.tags`),
    );
    rmSync(view);
    expect(await filters()).toEqual([]);
  });

  it('reads an ANOMALY_MONITOR_SECRET_* variable into an alert url', async () => {
    const hook = 'http://127.0.0.1:9/hook?token=from-the-environment';
    const file = write(
      'ok.yaml',
      'kind: filter\nname: Fine\ntimeRange: Last 30 Days\n---\nkind: alert\nname: hook\nfilter: Fine\n' +
        `channel: webhook\nurl: \${env:ANOMALY_MONITOR_SECRET_HOOK_URL}\n`,
    );
    const missing = await cli.run(['apply', file]);
    expect(missing.code, explain(missing)).toBe(2);
    expect(missing.stderr).toContain(
      `${file}:9: the environment variable ANOMALY_MONITOR_SECRET_HOOK_URL is not set`,
    );
    const r = await cli.run(['apply', file], { env: { ANOMALY_MONITOR_SECRET_HOOK_URL: hook } });
    expect(r.code, explain(r)).toBe(0);
    expect((await subscriptions()).map((a) => [a.name, a.target])).toEqual([['hook', hook]]);
  });
});
