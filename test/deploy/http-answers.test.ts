/**
 * Security headers on every answer: API success, problem answers (404, 400), the local web UI; HSTS only
 * on AWS. And the deploy script's order: deploy, migrate, then the web UI to S3.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as system from '../../functions/http/system';
import * as web from '../../functions/http/web';
import { config, loadConfig, setConfig } from '../../lib/config/config';
import { API_CSP, UI_CSP } from '../../lib/http/security-headers';
import { startTestService, type TestService } from '../support/service';
import { root } from './support';

type Res = { statusCode: number; headers: Record<string, string>; body?: string };
const event = (method: string, rawPath: string, body?: string) => ({
  rawPath,
  headers: body ? { 'content-type': 'application/json' } : {},
  body,
  requestContext: { http: { method, path: rawPath }, requestId: 'req-1' },
});
const call = async (handler: unknown, e: object) =>
  (await (handler as (e: object, c: object) => Promise<Res>)(e, {})) as Res;

describe('security headers', () => {
  let svc: TestService;
  const before = config();
  beforeAll(async () => {
    svc = await startTestService();
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
  });
  afterEach(() => setConfig(before));

  it('are on API answers, success and problems alike, without HSTS off AWS', async () => {
    setConfig({ ...svc.container.config, stage: 'local' });
    for (const res of [
      await call(system.handler, event('GET', '/api/v1/health')),
      await call(system.handler, event('GET', '/api/v1/no-such-thing')),
      await call(system.handler, event('POST', '/api/v1/health', '{')),
    ]) {
      expect(res.headers['x-content-type-options'], String(res.statusCode)).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe(API_CSP);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('add HSTS on AWS', async () => {
    setConfig({ ...svc.container.config, stage: 'aws' });
    const res = await call(system.handler, event('GET', '/api/v1/no-such-thing'));
    expect(res.statusCode).toBe(404);
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
  });

  it('give the local web UI its content security policy', async () => {
    setConfig({ ...loadConfig({ WEB_ROOT: path.join(root, 'web/dist') }) });
    const res = await call(web.handler, event('GET', '/'));
    expect(res.headers['content-security-policy']).toBe(UI_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const api = await call(web.handler, event('GET', '/api/v1/nothing'));
    expect(api.headers['content-security-policy']).toBe(API_CSP);
  });

  it('answer a web path with a malformed percent-escape 400, not 500', async () => {
    setConfig({ ...loadConfig({ WEB_ROOT: path.join(root, 'web/dist') }) });
    for (const bad of ['/%E0%A4%A', '/filters/%ZZ', '/assets/%', '/x%00.js']) {
      const res = await call(web.handler, event('GET', bad));
      expect(res.statusCode, bad).toBe(400);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(res.body ?? '{}').detail).toMatch(/malformed percent-escape/);
    }
    const fine = await call(web.handler, event('GET', '/filters/caf%C3%A9'));
    expect(fine.statusCode).toBe(200);
  });
});

describe('npm run deploy', () => {
  const run = (args: string[]) =>
    promisify(execFile)('sh', [path.join(root, 'deploy/deploy.sh'), ...args], {
      cwd: root,
      env: { ...process.env, DRY_RUN: '1' },
    });

  it('deploys, then migrates, then publishes the web UI', async () => {
    const { stdout } = await run(['--stage', 'prod', '--region', 'eu-west-1', '--force']);
    const steps = stdout.trim().split('\n');
    const at = (re: RegExp) => steps.findIndex((l) => re.test(l));
    expect(at(/^npx serverless deploy --stage prod --region eu-west-1 --force$/)).toBeGreaterThan(
      at(/vite build/),
    );
    expect(at(/^npx serverless invoke -f migrate --stage prod/)).toBeGreaterThan(at(/serverless deploy/));
    expect(at(/^aws s3 sync web\/dist s3:\/\/<WebBucketName>/)).toBeGreaterThan(at(/invoke -f migrate/));
    expect(at(/^aws cloudfront create-invalidation --distribution-id <WebDistributionId>/)).toBeGreaterThan(
      at(/aws s3 cp web\/dist\/index.html/),
    );
  });

  it('refuses the local stage and a missing stage', async () => {
    await expect(run(['--stage', 'local'])).rejects.toMatchObject({ code: 2 });
    await expect(run([])).rejects.toMatchObject({ code: 2 });
  });
});
