import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedPglite, servePglite } from '../../scripts/local/pglite-server';
import { retailNamed } from '../integration/dataviews/support';
import { backendName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

describe(`service-cli jobs-load --wait with the job workers running, on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  let source: ServedPglite;

  beforeAll(async () => {
    // The job workers run in this process: queued jobs really load and analyse.
    s = await startTestService(
      { JOB_MAX_ATTEMPTS: '1', JOB_RETRY_DELAY_SECONDS: '0', CONNECTOR_TIMEOUT_MS: '3000' },
      { workers: true },
    );
    cli = cliFor(s);
    source = await servePglite('memory://');
    await source.db.exec(`CREATE TABLE retail_sales (sale_date date, country text, region text, city text, channel text, amount numeric);
      INSERT INTO retail_sales SELECT DATE '2024-01-01' + g, 'CZ', 'Bohemia', 'Prague', CASE WHEN g % 2 = 0 THEN 'web' ELSE 'shop' END, 100 + g
      FROM generate_series(0, 59) g;`);
    const conn = `Host=127.0.0.1;Port=${source.port};Database=postgres;Username=postgres;Password=pw;SSL Mode=disable`;
    await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'demo_pgsql', type: 'pgsql', configuration: { conn_string: conn } },
    });
  });
  afterAll(async () => {
    cli.cleanup();
    await s.stop();
    await source.close();
  });

  it('follows a load to its end and exits 0, then exits 7 with the reason when a load fails', async () => {
    requireRoutes(['POST', '/api/v1/dataviews/{id}/jobs/load'], ['GET', '/api/v1/jobs/{id}']);
    const good = retailNamed('waited', 'cli');
    const bad = retailNamed('broken', 'cli');
    bad.source.loadQuery = 'SELECT day, country, region, city, channel, revenue, orders FROM no_such_table';
    for (const doc of [good, bad]) {
      const created = await cli.run(['dataviews', 'create', '--file', '-', '--json'], {
        stdin: JSON.stringify(doc),
      });
      expect(created.code, explain(created)).toBe(0);
      for (const action of ['deploy', 'enable'])
        await cli.run(['dataviews', action, String(created.json.id)]);
    }

    const ok = await cli.run([
      'dataviews',
      'jobs-load',
      'cli/waited',
      '--wait',
      '--interval',
      '0.2',
      '--timeout',
      '120',
    ]);
    expect(ok.code, explain(ok)).toBe(0);
    expect(ok.stderr).toMatch(/^Job (\d+) \(Load\): finished after \d+ s$/m);
    expect(ok.stdout).toMatch(/^Job \d+ finished\.$/m);
    const status = await cli.run(['dataviews', 'status', 'cli/waited', '--json']);
    expect(status.json.rowCounts.int).toBeGreaterThan(0);

    const failed = await cli.run([
      'dataviews',
      'jobs-load',
      'cli/broken',
      '--wait',
      '--interval',
      '0.2',
      '--timeout',
      '120',
    ]);
    expect(failed.code, explain(failed)).toBe(7);
    expect(failed.stderr).toMatch(/^Job \d+ \(Load\): failed after \d+ s$/m);
    expect(failed.stderr).toMatch(/^Error: Job \d+ failed: .*no_such_table/m);

    const [list, failures, monitoring] = await Promise.all([
      cli.run(['jobs', 'list', '--dataview', 'cli/waited', '--kind', 'Load']),
      cli.run(['jobs', 'list', '--status', 'failed', '--json']),
      cli.run(['jobs', 'monitoring']),
    ]);
    expect(list.stdout).toMatch(/^ID +DATA VIEW +KIND +STATUS +TRIGGER +CREATED +FINISHED +ERROR$/m);
    expect(list.stdout).toMatch(/^\d+ +cli \/ waited +Load +finished +api /m);
    expect(failures.json.map((j: { dataView: string }) => j.dataView)).toEqual(['cli / broken']);
    expect(monitoring.stdout).toMatch(/^\d+ +cli \/ waited +enabled +\S+ +2024-01-01\.\.2024-02-29 +[1-9]/m);
    expect(monitoring.stdout).toMatch(/^Totals: dataViews 2, /m);
  });
});
