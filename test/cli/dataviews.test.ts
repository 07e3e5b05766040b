import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedPglite, servePglite } from '../../scripts/local/pglite-server';
import { fixtureText, retailNamed } from '../integration/dataviews/support';
import { backendName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

const connString = (port: number) =>
  `Host=127.0.0.1;Port=${port};Database=postgres;Username=postgres;Password=pw;SSL Mode=disable`;

describe(`service-cli data views, jobs and connectors on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  let source: ServedPglite;
  const yamlFile = (name: string, text: string) => {
    const p = path.join(cli.home, name);
    writeFileSync(p, text);
    return p;
  };

  beforeAll(async () => {
    s = await startTestService({ CONNECTOR_TIMEOUT_MS: '3000' });
    cli = cliFor(s);
    source = await servePglite('memory://');
    await source.db.exec(`CREATE TABLE retail_sales (sale_date date, country text, region text, city text, channel text, amount numeric);
      INSERT INTO retail_sales SELECT DATE '2024-01-01' + g, 'CZ', 'Bohemia', 'Prague', 'web', 100 + g FROM generate_series(0, 20) g;`);
    const c = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'demo_pgsql', type: 'pgsql', configuration: { conn_string: connString(source.port) } },
    });
    if (c.status !== 201) throw new Error(`connector: ${c.text}`);
  });
  afterAll(async () => {
    cli.cleanup();
    await s.stop();
    await source.close();
  });

  it('creates, lists, gets, tests, updates and deletes a connector, exiting 1 when its test fails', async () => {
    const created = await cli.run(['connectors', 'create', '--file', '-'], {
      stdin: JSON.stringify({
        name: 'cli_source',
        type: 'pgsql',
        description: 'CLI test',
        configuration: { conn_string: connString(source.port) },
      }),
    });
    expect(created.code, explain(created)).toBe(0);
    expect(created.stdout).toContain('Created connector cli_source.');
    expect(created.stdout).not.toContain('Password=pw');

    const [list, one, tested] = await Promise.all([
      cli.run(['connectors', 'list']),
      cli.run(['connectors', 'get', 'cli_source', '--json']),
      cli.run(['connectors', 'test', 'cli_source']),
    ]);
    expect(list.stdout).toMatch(/^NAME +TYPE +STATUS +LAST TEST +DESCRIPTION$/m);
    expect(list.stdout).toMatch(/^cli_source +pgsql +\S+ .*CLI test$/m);
    expect(one.json).toMatchObject({ name: 'cli_source', type: 'pgsql' });
    expect(tested.code, explain(tested)).toBe(0);
    expect(tested.stdout).toContain('Connector cli_source: test succeeded');

    const broken = await cli.run(['connectors', 'update', 'cli_source', '--file', '-'], {
      stdin: JSON.stringify({ type: 'pgsql', configuration: { conn_string: connString(9) } }),
    });
    expect(broken.code, explain(broken)).toBe(0);
    const failed = await cli.run(['connectors', 'test', 'cli_source']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Connector cli_source: test failed');
    expect((await cli.run(['connectors', 'delete', 'cli_source'])).stdout).toContain(
      'Deleted connector cli_source.',
    );
    expect((await cli.run(['connectors', 'get', 'cli_source'])).code).toBe(4);
    expect((await cli.run(['connectors', 'list'], { token: s.userToken })).code).toBe(3);
  });

  it('takes a YAML data view through create, list, get, update, deploy, enable, disable, clean, undeploy and delete', async () => {
    const created = await cli.run([
      'dataviews',
      'create',
      '--file',
      yamlFile('retail.yaml', fixtureText('retail.yaml')),
    ]);
    expect(created.code, explain(created)).toBe(0);
    const id = Number(/Created data view (\d+) \(retail\/retail_sales\)/.exec(created.stdout)?.[1]);
    expect(id).toBeGreaterThan(0);
    expect(created.stdout).toMatch(/^state: +prepared$/m);

    const [list, none, lite, yaml, json] = await Promise.all([
      cli.run(['dataviews', 'list', '--tag', 'demo', '--domain', 'retail']),
      cli.run(['dataviews', 'list', '--tag', 'nothing-has-this']),
      cli.run(['dataviews', 'list-lite', '--json']),
      cli.run(['dataviews', 'get', 'retail/retail_sales']),
      cli.run(['dataviews', 'get', String(id), '--json']),
    ]);
    expect(list.stdout).toMatch(
      new RegExp(`^${id} +retail +retail_sales +prepared +demo_pgsql +retail, revenue, demo`, 'm'),
    );
    expect(none.stdout.trim()).toBe('No data views.');
    expect(lite.json).toEqual([{ id, name: 'retail_sales', domain: 'retail', state: 'prepared' }]);
    expect(yaml.stdout).toMatch(/^schemaVersion: 3$/m);
    expect(yaml.stdout).toMatch(/^ {2}name: retail_sales$/m);
    expect(json.json).toMatchObject({ id, state: 'prepared', metadata: { name: 'retail_sales' } });

    // What get prints goes back through update --file.
    const edited = yaml.stdout.replace(/^ {2}description: .*$/m, '  description: Edited through the CLI');
    const updated = await cli.run([
      'dataviews',
      'update',
      'retail/retail_sales',
      '--file',
      yamlFile('edited.yaml', edited),
    ]);
    expect(updated.code, explain(updated)).toBe(0);
    expect((await cli.run(['dataviews', 'get', String(id), '--json'])).json.metadata.description).toBe(
      'Edited through the CLI',
    );

    const deployed = await cli.run(['dataviews', 'deploy', 'retail/retail_sales']);
    expect(deployed.code, explain(deployed)).toBe(0);
    expect(deployed.stdout).toContain('Deployed data view retail/retail_sales.');
    expect(deployed.stdout).toMatch(/^state: +disabled$/m);
    const again = await cli.run(['dataviews', 'deploy', String(id)]);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/^Error: .*already deployed/m);
    const locked = await cli.run(['dataviews', 'update', String(id), '--file', '-'], {
      stdin: JSON.stringify({ ...json.json, metadata: { ...json.json.metadata, name: 'renamed' } }),
    });
    expect(locked.code).toBe(5);
    expect(locked.stderr).toMatch(
      /cannot be changed\. Delete the deployment first\.\n {2}metadata\.name: cannot change while the data view is deployed/,
    );

    const [status, categories] = await Promise.all([
      cli.run(['dataviews', 'status', String(id)]),
      cli.run(['dataviews', 'categories', 'retail/retail_sales', '--json']),
    ]);
    expect(status.stdout).toMatch(/^state: +disabled$/m);
    // Catalog estimates (never a count per call): a table not analysed yet has none (*).
    expect(status.stdout).toMatch(/^row counts: +.*int=(0|\*)/m);
    expect(categories.json.map((c: { name: string }) => c.name)).toEqual([
      'country',
      'region',
      'city',
      'channel',
    ]);

    for (const [command, state] of [
      ['enable', 'enabled'],
      ['disable', 'disabled'],
      ['clean', 'disabled'],
      ['undeploy', 'prepared'],
    ]) {
      const r = await cli.run(['dataviews', command, String(id), '--json']);
      expect(r.json, `${command}: ${explain(r)}`).toMatchObject({ id, state });
    }
    expect((await cli.run(['dataviews', 'delete', 'retail/retail_sales'])).stdout).toContain(
      'Deleted data view retail/retail_sales.',
    );
    const gone = await cli.run(['dataviews', 'get', 'retail/retail_sales']);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('Data view retail/retail_sales was not found.');
  });

  it('reads Fact JSON from standard input, prints the fields at fault of a bad definition, and refuses a data user', async () => {
    const ok = await cli.run(['dataviews', 'create', '--file', '-', '--json'], {
      stdin: JSON.stringify(retailNamed('from_stdin')),
    });
    expect(ok.json, explain(ok)).toMatchObject({ state: 'prepared', metadata: { name: 'from_stdin' } });
    const bad = retailNamed('bad name!');
    bad.source.connector = 'nowhere';
    const refused = await cli.run(['dataviews', 'create', '--file', '-'], { stdin: JSON.stringify(bad) });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/^ {2}metadata\.name: /m);
    expect(refused.stderr).toMatch(/^ {2}source\.connector: /m);
    const yamlFromStdin = await cli.run(['dataviews', 'create', '--file', '-', '--json'], {
      stdin: fixtureText('minimal.yaml'),
    });
    expect(yamlFromStdin.json, explain(yamlFromStdin)).toMatchObject({ metadata: { name: 'hotel_revenue' } });
    const user = await cli.run(['dataviews', 'create', '--file', '-'], {
      token: s.userToken,
      stdin: JSON.stringify(retailNamed('x')),
    });
    expect(user.code).toBe(3);
    // A view not assigned to the data user does not exist for them.
    expect((await cli.run(['dataviews', 'get', String(ok.json.id)], { token: s.userToken })).code).toBe(4);
  });

  it('enqueues load, process and custom-load jobs by id and by domain/name, refuses a second load, and clears the queue', async () => {
    requireRoutes(
      ['POST', '/api/v1/dataviews/{id}/jobs/load'],
      ['POST', '/api/v1/jobs/{domain}/{name}/load'],
      ['POST', '/api/v1/dataviews/{id}/jobs/clear'],
    );
    // No worker runs in this file's service: queued jobs stay pending.
    const created = await cli.run(['dataviews', 'create', '--file', '-', '--json'], {
      stdin: JSON.stringify(retailNamed('jobs', 'cli')),
    });
    const id = String(created.json.id);
    const prepared = await cli.run(['dataviews', 'jobs-load', id]);
    expect(prepared.code, explain(prepared)).toBe(5);
    expect(prepared.stderr).toContain('Error: Data view cli/jobs is not deployed');
    await cli.run(['dataviews', 'deploy', id]);
    await cli.run(['dataviews', 'enable', id]);

    const load = await cli.run(['dataviews', 'jobs-load', id, '--json']);
    expect(load.code, explain(load)).toBe(0);
    expect(load.json).toMatchObject({ kind: 'Load', status: 'pending', dataViewId: Number(id) });
    const second = await cli.run(['dataviews', 'jobs-load', 'cli/jobs']);
    expect(second.code).toBe(5);
    expect(second.stderr).toMatch(
      new RegExp(
        `^Error: A load task \\(job ${load.json.id}, pending\\) for data view cli/jobs is already in the queue$`,
        'm',
      ),
    );
    const processByName = await cli.run(['dataviews', 'jobs-process', 'cli/jobs']);
    expect(processByName.code, explain(processByName)).toBe(0);
    expect(processByName.stdout).toMatch(/^Queued Process job \d+ for data view cli\/jobs \(pending\)\.$/m);

    const cleared = await cli.run(['dataviews', 'jobs-clear', 'cli/jobs']);
    expect(cleared.stdout, explain(cleared)).toContain('Removed 2 queued jobs of data view cli/jobs.');
    const none = await cli.run(['dataviews', 'jobs-clear', id]);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain('No queued jobs were found');

    // An orchestration tool's key with the process permission may start jobs, not clear them.
    const key = await s.call('POST', '/api/v1/api-keys', {
      auth: s.adminToken,
      body: { name: 'airflow', permissions: ['process'] },
    });
    const custom = await cli.run(['dataviews', 'jobs-custom-load', 'cli/jobs'], {
      token: null,
      apiKey: key.body.key,
    });
    expect(custom.code, explain(custom)).toBe(0);
    expect(custom.stdout).toMatch(/^Queued CustomLoad job \d+ for data view cli\/jobs/m);
    expect((await cli.run(['dataviews', 'jobs-clear', id], { token: null, apiKey: key.body.key })).code).toBe(
      3,
    );
  });

  it('follows a job with --wait: exit 0 when it finished, 7 with its error when it failed', async () => {
    requireRoutes(['GET', '/api/v1/jobs/{id}']);
    const created = await cli.run(['dataviews', 'create', '--file', '-', '--json'], {
      stdin: JSON.stringify(retailNamed('waited', 'cli')),
    });
    const view = created.json.id as number;
    const job = async (status: string, error: string | null) => {
      const [row] = await s.container.db.rows<{ id: number }>(
        sql`INSERT INTO jobs (data_view_id, kind, status, error, finished_at) VALUES (${view}, 'Load', ${status}, ${error}, now()) RETURNING id`,
      );
      return String(row.id);
    };
    const finished = await cli.run([
      'jobs',
      'get',
      await job('finished', null),
      '--wait',
      '--interval',
      '0.1',
    ]);
    expect(finished.code, explain(finished)).toBe(0);
    expect(finished.stderr).toMatch(/Job \d+ \(Load\): finished/);
    const failed = await cli.run([
      'jobs',
      'get',
      await job('failed', 'Source database refused the connection'),
      '--wait',
    ]);
    expect(failed.code).toBe(7);
    expect(failed.stderr).toMatch(/^Error: Job \d+ failed: Source database refused the connection$/m);
    expect((await cli.run(['jobs', 'get', '999999'])).code).toBe(4);
  });
});
