/** `npm start` as a new user runs it: the real script, serverless-offline and the embedded (or given) database. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { type NpmStart, startNpmStart } from '../support/npm-start';

describe(`npm start on ${backendName}`, () => {
  let s: NpmStart;

  beforeAll(async () => {
    s = await startNpmStart({
      name: 'start',
      env: { SEED_ADMIN_PASSWORD: 'start-admin-pw', LOG_LEVEL: 'warn', DEMO: 'off' },
      readyWithinMs: 280_000,
    });
  }, 300_000);

  afterAll(async () => {
    await s?.stop();
  });

  it('prints how to sign in, with the chosen admin password', () => {
    expect(s.output).toContain('admin@example.com');
    expect(s.output).toContain('start-admin-pw');
    expect(s.output).toContain(s.url);
  });

  it("prints at most 15 lines: the functions' route table and invocations go to DATA_DIR/service.log", () => {
    const lines = s.output.trimEnd().split('\n');
    expect(lines.length, s.output).toBeLessThanOrEqual(15);
    expect(s.output).not.toContain('λ');
    expect(s.output).toContain('Demo:          off');
    const log = path.join(s.dataDir, 'service.log');
    expect(s.output).toContain(log);
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toContain('/api/v1/health');
  });

  it('answers health, serves the OpenAPI document and its page', async () => {
    const health = await fetch(`${s.url}/api/v1/health`);
    expect(health.status).toBe(200);
    const doc = (await (await fetch(`${s.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain('/api/v1/auth/token');
    const page = await fetch(`${s.url}/api/v1/docs`);
    expect(await page.text()).toContain('API reference');
  });

  it('signs the seeded admin in through the functions', async () => {
    const r = await fetch(`${s.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'start-admin-pw' }),
    });
    expect(r.status).toBe(200);
    const { accessToken } = (await r.json()) as { accessToken: string };
    const users = await fetch(`${s.url}/api/v1/users`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(users.status).toBe(200);
  });

  it('serves the built web UI at the root, not the "not built" page', async () => {
    const r = await fetch(`${s.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    const html = await r.text();
    expect(html).not.toContain('has not been built');
    const script = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\/.+\.js$/);
    const asset = await fetch(`${s.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
  });
});
