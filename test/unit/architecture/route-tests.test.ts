/**
 * Tests that depend on a route fail, never skip, when it is missing: the CLI tests ask for their
 * routes with requireRoutes, and a test skips only for a missing piece of its environment.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireRoutes } from '../../cli/support';

const root = path.resolve(import.meta.dirname, '../../..');

function testFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return testFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The conditions a test may skip on: what the machine lacks, never what the service lacks. */
const ENVIRONMENT = /^!?(hasChromium|skipReason|configured|serverUrl|process\.env\.[A-Z_]+)$/;

describe('tests that depend on a route', () => {
  it('fail with the route named when the service does not declare it', () => {
    expect(() => requireRoutes(['GET', '/api/v1/jobs/{id}'], ['GET', '/api/v1/no-such-route'])).toThrow(
      'the service declares no route GET /api/v1/no-such-route',
    );
    expect(() => requireRoutes(['GET', '/api/v1/jobs/{id}'])).not.toThrow();
  });

  it('skip only on a missing piece of the environment', () => {
    const skips: string[] = [];
    for (const file of testFiles('test')) {
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const m of text.matchAll(/\.(?:skipIf|runIf)\(([^)]*)\)/g)) {
        if (!ENVIRONMENT.test(m[1].trim())) skips.push(`${file}: ${m[0]}`);
      }
      if (/\brouteExists\b/.test(text) && file !== 'test/unit/architecture/route-tests.test.ts')
        skips.push(`${file}: routeExists`);
    }
    expect(skips).toEqual([]);
  });
});
