/** `npm start` as a new user runs it: the real script, serverless-offline and the embedded (or given) database. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/ports';
import { ensureWebBuilt } from '../browser/support';
import { backendName, createTestDatabase, type TestDatabase } from '../support/db';

const root = path.resolve(import.meta.dirname, '../..');
const workFolder = `.esbuild-start-${process.pid}`;

describe(`npm start on ${backendName}`, () => {
  let child: ChildProcess;
  let output = '';
  let url = '';
  let dataDir = '';
  let testDb: TestDatabase | undefined;

  beforeAll(async () => {
    await ensureWebBuilt();
    dataDir = mkdtempSync(path.join(tmpdir(), 'am-start-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      PORT: String(port),
      DATA_DIR: dataDir,
      SEED_ADMIN_PASSWORD: 'start-admin-pw',
      LOG_LEVEL: 'warn',
      DEMO: 'off',
      WEB_BUILD: 'skip',
      // Bundles of its own: other serverless runs in this checkout (tests running in parallel) keep theirs.
      ESBUILD_WORK_FOLDER: workFolder,
    };
    delete env.DATABASE_URL;
    if (process.env.DATABASE_URL) {
      testDb = await createTestDatabase();
      env.DATABASE_URL = testDb.url!;
    }
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: root,
      env,
      stdio: 'pipe',
    });
    child.stdout?.on('data', (d) => {
      output += d;
    });
    child.stderr?.on('data', (d) => {
      output += d;
    });
    const until = Date.now() + 110_000;
    while (!output.includes('Press Ctrl+C to stop.')) {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      if (Date.now() > until) throw new Error(`npm start did not become ready:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(path.join(root, workFolder), { recursive: true, force: true });
    await testDb?.drop();
  });

  it('prints how to sign in, with the chosen admin password', () => {
    expect(output).toContain('admin@example.com');
    expect(output).toContain('start-admin-pw');
    expect(output).toContain(url);
  });

  it("prints at most 15 lines: the functions' route table and invocations go to DATA_DIR/service.log", () => {
    const lines = output.trimEnd().split('\n');
    expect(lines.length, output).toBeLessThanOrEqual(15);
    expect(output).not.toContain('λ');
    expect(output).toContain('Demo:          off');
    const log = path.join(dataDir, 'service.log');
    expect(output).toContain(log);
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toContain('/api/v1/health');
  });

  it('answers health, serves the OpenAPI document and its page', async () => {
    const health = await fetch(`${url}/api/v1/health`);
    expect(health.status).toBe(200);
    const doc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain('/api/v1/auth/token');
    const page = await fetch(`${url}/api/v1/docs`);
    expect(await page.text()).toContain('API reference');
  });

  it('signs the seeded admin in through the functions', async () => {
    const r = await fetch(`${url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'start-admin-pw' }),
    });
    expect(r.status).toBe(200);
    const { accessToken } = (await r.json()) as { accessToken: string };
    const users = await fetch(`${url}/api/v1/users`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(users.status).toBe(200);
  });

  it('serves the built web UI at the root, not the "not built" page', async () => {
    const r = await fetch(`${url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    const html = await r.text();
    expect(html).not.toContain('has not been built');
    const script = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\/.+\.js$/);
    const asset = await fetch(`${url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
  });
});
