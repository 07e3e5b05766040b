/** `service-cli dataviews replay`: a changed definition from a file, replayed without saving, and what it would change. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { loadedDetectionView } from '../support/detection-fixture';
import { createTestSource, type TestSource } from '../support/pipeline-source';
import { localHarness, type QueueHarness } from '../support/queue';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

const spikeTo = (last: number) => Array.from({ length: 28 }, (_, t) => (t === 25 ? last : 100));

describe(`service-cli dataviews replay on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  let source: TestSource;
  let queue: QueueHarness;
  let view: number;

  beforeAll(async () => {
    requireRoutes(
      ['POST', '/api/v1/dataviews/{id}/replay'],
      ['GET', '/api/v1/dataviews/{id}/replay/{jobId}'],
    );
    s = await startTestService();
    cli = cliFor(s);
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'cli_replay',
      categories: [{ name: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 30 } }],
      series: [
        { categories: { country: 'CZ' }, values: spikeTo(200) },
        { categories: { country: 'DE' }, values: spikeTo(140) },
      ],
    });
    await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'test_source', type: 'pgsql', configuration: { conn_string: source.connString } },
    });
    await s.call('POST', `/api/v1/dataviews/${view}/jobs/process`, { auth: s.adminToken });
    await queue.idle();
  }, 180_000);
  afterAll(async () => {
    cli?.cleanup();
    await queue?.stop();
    await source?.stop();
    await s?.stop();
  });

  it('prints the anomalies a higher threshold would remove, and saves nothing', async () => {
    const yaml = await s.call('GET', `/api/v1/dataviews/${view}`, {
      auth: s.adminToken,
      headers: { accept: 'application/yaml' },
    });
    const changed = String(yaml.body).replace('percentualChange: 30', 'percentualChange: 50');
    const r = await cli.run(['dataviews', 'replay', String(view), '--file', '-', '--interval', '1'], {
      stdin: changed,
    });
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout, r.stdout).toMatch(/0 added, 1 removed, 0 changed/);
    expect(r.stdout).toMatch(/^removed +country=DE +value +DOD +2024-01-26/m);
    const stored = await s.call('GET', `/api/v1/dataviews/${view}`, { auth: s.adminToken });
    expect(stored.body.analysis.detectors[0].params.percentualChange).toBe(30);
  });

  it('prints the incident a threshold above every change would remove', async () => {
    const yaml = await s.call('GET', `/api/v1/dataviews/${view}`, {
      auth: s.adminToken,
      headers: { accept: 'application/yaml' },
    });
    const changed = String(yaml.body).replace('percentualChange: 30', 'percentualChange: 200');
    const r = await cli.run(['dataviews', 'replay', String(view), '--file', '-', '--interval', '1'], {
      stdin: changed,
    });
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout, r.stdout).toMatch(
      /Incidents: 0 added, 1 removed, 0 changed, 0 split, 0 merged, 0 unchanged \(1 now, 0 after\)/,
    );
    expect(r.stdout).toMatch(/^removed +\d+ +country=all +value +DOD +2024-01-26 +2024-01-26 +3 +Positive/m);
  });

  it('prints two stored incidents a lower threshold merges into one, with the stored ids it shares', async () => {
    // Prepare: CZ +100 % and DE +90 % on the 26th, FR flat and large: the total moves +15.8 %, under 30 %,
    // so each country is an incident of its own; at 10 % the total is one too, and both explain it.
    const merging = await loadedDetectionView(s.testDb.db, source, {
      name: 'cli_replay_merge',
      categories: [{ name: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 30 } }],
      series: [
        { categories: { country: 'CZ' }, values: spikeTo(200) },
        { categories: { country: 'DE' }, values: spikeTo(190) },
        { categories: { country: 'FR' }, values: Array.from({ length: 28 }, () => 1000) },
      ],
    });
    await s.call('POST', `/api/v1/dataviews/${merging}/jobs/process`, { auth: s.adminToken });
    await queue.idle();
    const yaml = await s.call('GET', `/api/v1/dataviews/${merging}`, {
      auth: s.adminToken,
      headers: { accept: 'application/yaml' },
    });
    const changed = String(yaml.body).replace('percentualChange: 30', 'percentualChange: 10');
    // Act
    const r = await cli.run(['dataviews', 'replay', String(merging), '--file', '-', '--interval', '1'], {
      stdin: changed,
    });
    // Assess: one merge, the two stored incidents as they were and the one they become.
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout, r.stdout).toMatch(
      /Incidents: 0 added, 0 removed, 0 changed, 0 split, 1 merged, 0 unchanged \(2 now, 1 after\)/,
    );
    expect(r.stdout.match(/^merged: was +\d+ +country=(CZ|DE)/gm)).toHaveLength(2);
    expect(r.stdout).toMatch(/^merged: now +\d+ \(shares #\d+ #\d+\) +country=all +value +DOD +2024-01-26/m);
  });

  it('refuses a definition with a bad parameter, naming it', async () => {
    const yaml = await s.call('GET', `/api/v1/dataviews/${view}`, {
      auth: s.adminToken,
      headers: { accept: 'application/yaml' },
    });
    const bad = String(yaml.body).replace('percentualChange: 30', 'percentualChange: high');
    const r = await cli.run(['dataviews', 'replay', String(view), '--file', '-'], { stdin: bad });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/percentualChange/);
  });
});
