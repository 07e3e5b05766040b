import { statSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { ADMIN, startTestService, type TestService, USER } from '../support/service';
import { type Cli, cliFor, explain } from './support';

describe(`service-cli sign-in, help, users, API keys and system commands on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  beforeAll(async () => {
    s = await startTestService();
    cli = cliFor(s);
  });
  afterAll(async () => {
    cli.cleanup();
    await s.stop();
  });

  it('explains every group and the exit codes in --help, and each group lists its commands', async () => {
    const root = await cli.run(['--help']);
    expect(root.code, explain(root)).toBe(0);
    for (const group of [
      'comments',
      'filters',
      'anomalies',
      'dataviews',
      'connectors',
      'system',
      'users',
      'api-keys',
      'login',
      'whoami',
      'cron',
      'jobs',
    ]) {
      expect(root.stdout).toMatch(new RegExp(`^  ${group}\\b`, 'm'));
    }
    expect(root.stdout).toContain('Exit codes:');
    expect(root.stdout).toMatch(/3 +authentication/);
    expect(root.stdout).toContain('SERVICE_CLI_TOKEN');

    const dv = await cli.run(['dataviews', '--help']);
    for (const command of [
      'list',
      'list-lite',
      'get',
      'status',
      'create',
      'update',
      'delete',
      'deploy',
      'undeploy',
      'clean',
      'enable',
      'disable',
      'jobs-load',
      'jobs-process',
      'jobs-custom-load',
      'jobs-clear',
      'categories',
    ]) {
      expect(dv.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(dv.stdout).toContain('Exit codes:');
    const filters = await cli.run(['help', 'filters']);
    for (const command of [
      'list',
      'list-little',
      'pinned',
      'get',
      'create',
      'update',
      'delete',
      'pin',
      'unshare',
      'summarization',
      'refresh-summarization',
    ]) {
      expect(filters.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });

  it('exits 2 on usage errors: an unknown command, a bad id, a missing --file, an unreadable file', async () => {
    const unknown = await cli.run(['comments', 'creat']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Did you mean create?');
    const badId = await cli.run(['comments', 'get', 'abc']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toMatch(/positive whole number/);
    expect((await cli.run(['comments', 'create'])).stderr).toContain("required option '--file <path>'");
    const missing = await cli.run(['comments', 'create', '--file', 'nowhere.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot read --file nowhere.json: ENOENT');
    const notJson = await cli.run(['comments', 'create', '--file', '-'], { stdin: '{"text": ' });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--file - is not valid JSON/);
  });

  it('signs in with login, keeps the token in a private config file, and signs out with logout', async () => {
    const login = await cli.run(['login', '--email', ADMIN.email, '--password-stdin'], {
      token: null,
      stdin: `${ADMIN.password}\n`,
    });
    expect(login.code, explain(login)).toBe(0);
    expect(login.stdout).toContain(`Signed in to ${s.url} as ${ADMIN.email}.`);
    expect(statSync(cli.configFile).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(cli.configFile, 'utf8'));
    expect(stored).toMatchObject({ url: s.url, email: ADMIN.email });
    expect(stored.token).toBeTruthy();

    // No token in the environment: the config file signs the next command in.
    const me = await cli.run(['whoami', '--json'], { token: null });
    expect(me.code, explain(me)).toBe(0);
    expect(me.json).toMatchObject({ email: ADMIN.email, role: 'admin', via: 'token' });
    // The stored token goes only to the service that issued it.
    const elsewhere = await cli.run(['whoami', '--url', 'http://127.0.0.1:9'], { token: null });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('Cannot reach the service at http://127.0.0.1:9');

    const printed = await cli.run(['login', '--email', ADMIN.email, '--password-stdin', '--print-token'], {
      token: null,
      stdin: ADMIN.password,
    });
    expect((await cli.run(['whoami', '--json'], { token: printed.stdout.trim() })).json.email).toBe(
      ADMIN.email,
    );

    const logout = await cli.run(['logout'], { token: null });
    expect(logout.stdout).toContain(`Signed out: removed ${cli.configFile}.`);
    const after = await cli.run(['whoami'], { token: null });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('Sign in with `service-cli login`');
  });

  it('exits 3 with the service detail on a wrong password, and a flag token wins over the environment', async () => {
    const wrong = await cli.run(['login', '--email', ADMIN.email, '--password-stdin'], {
      token: null,
      stdin: 'nope',
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('Error: Wrong e-mail or password.');
    const user = await cli.run(['whoami', '--token', s.userToken, '--json']);
    expect(user.json).toMatchObject({ email: USER.email, role: 'data-user' });
    const json = await cli.run(['users', 'list', '--json'], { token: s.userToken });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toMatchObject({ status: 403, title: 'Forbidden' });
  });

  it('manages users: create, list, get, update and delete, with 409 and 400 as exit codes 5 and 6', async () => {
    const created = await cli.run(
      [
        'users',
        'create',
        '--email',
        'cli-ann@example.com',
        '--role',
        'data-user',
        '--password-stdin',
        '--json',
      ],
      { stdin: 'ann-password-1\n' },
    );
    expect(created.code, explain(created)).toBe(0);
    const id = created.json.id as number;
    expect(created.json).toMatchObject({ email: 'cli-ann@example.com', role: 'data-user', enabled: true });

    const list = await cli.run(['users', 'list']);
    expect(list.stdout).toMatch(/^ID +EMAIL +ROLE +ENABLED +DATA VIEWS$/m);
    expect(list.stdout).toMatch(new RegExp(`^${id} +cli-ann@example.com +data-user +yes`, 'm'));
    const one = await cli.run(['users', 'get', String(id)]);
    expect(one.stdout).toMatch(/^email: +cli-ann@example.com$/m);

    const disabled = await cli.run(['users', 'update', String(id), '--disabled', '--json']);
    expect(disabled.json).toMatchObject({ id, enabled: false });
    const dup = await cli.run(['users', 'create', '--file', '-'], {
      stdin: JSON.stringify({ email: USER.email, role: 'data-user' }),
    });
    expect(dup.code).toBe(5);
    expect(dup.stderr).toContain(`Error: A user with e-mail ${USER.email} already exists.`);
    const bad = await cli.run(['users', 'create', '--email', 'x@example.com', '--role', 'boss']);
    expect(bad.code).toBe(6);
    expect(bad.stderr).toMatch(/^ {2}role: /m);

    expect((await cli.run(['users', 'delete', String(id)])).stdout).toContain(`Deleted user ${id}.`);
    const gone = await cli.run(['users', 'get', String(id)]);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain(`User ${id} was not found.`);
  });

  it('creates an API key shown once, lists it without the key, signs in with it, and revokes it', async () => {
    const created = await cli.run(['api-keys', 'create', '--name', 'cli-ci', '--permissions', 'read,admin']);
    expect(created.code, explain(created)).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^amk_/);
    const id = /API key (\d+)/.exec(created.stdout)![1];
    const list = await cli.run(['api-keys', 'list']);
    expect(list.stdout).toMatch(new RegExp(`^${id} +cli-ci +read, admin`, 'm'));
    expect(list.stdout).not.toContain(key);

    const me = await cli.run(['whoami', '--json'], { token: null, apiKey: key });
    expect(me.json).toMatchObject({ via: 'api-key', permissions: ['read', 'admin'] });
    expect((await cli.run(['api-keys', 'revoke', id])).stdout).toContain(`Revoked API key ${id}.`);
    expect((await cli.run(['whoami'], { token: null, apiKey: key })).code).toBe(3);
    const badPermission = await cli.run(['api-keys', 'create', '--name', 'x', '--permissions', 'root']);
    expect(badPermission.code).toBe(2);
  });

  it('validates a cron expression and names the field of a bad one', async () => {
    const ok = await cli.run([
      'cron',
      'validate',
      '0 30 5 * * *',
      '--count',
      '2',
      '--time-zone',
      'UTC',
      '--json',
    ]);
    expect(ok.code, explain(ok)).toBe(0);
    expect(ok.json).toMatchObject({ valid: true, normalized: '0 30 5 * * *', timeZone: 'UTC' });
    expect(ok.json.nextRuns).toHaveLength(2);
    expect(ok.json.nextRuns[0]).toMatch(/T05:30:00/);
    const human = await cli.run(['cron', 'validate', '*/15 * * * *']);
    expect(human.stdout).toContain('Next runs:');
    const bad = await cli.run(['cron', 'validate', '61 * * * *']);
    expect(bad.code).toBe(6);
    expect(bad.stderr).toMatch(/^ {2}expression: /m);
  });

  it('shows licence usage with system license --json, and health without signing in', async () => {
    const license = await cli.run(['system', 'license', '--json']);
    expect(license.code, explain(license)).toBe(0);
    expect(license.json).toMatchObject({ plan: 'standard', maxDataViews: 50, dataViews: 0, remaining: 50 });
    const human = await cli.run(['system', 'license']);
    expect(human.stdout).toMatch(/^data views: +0 of 50$/m);
    const health = await cli.run(['system', 'health', '--json'], { token: null });
    expect(health.json).toMatchObject({ status: 'ok' });
  });
});
