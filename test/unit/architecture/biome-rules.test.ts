/**
 * The Biome rules that keep docs/architecture.md true fail on a violation: a small tree of deliberately bad
 * files is linted with the project's own biome.json, and each rule must report its file and spare the
 * places the overrides allow (the config readers, the one skip helper, tests and the files listed as
 * older than the function-length bound).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const biome = path.join(root, 'node_modules/.bin/biome');

const readsEnv = 'export const x = process.env.FOO;\n';
const skips = "import { it } from 'vitest';\n\nit.skip('later', () => {});\n";
/** A function of `n` statements (one line each). */
const longFunction = (n: number) =>
  `export function big(): number {\n  let a = 0;\n${'  a += 1;\n'.repeat(n - 2)}  return a;\n}\n`;

const FILES: Record<string, string> = {
  'lib/shared/env-reader.ts': readsEnv,
  'functions/http/env-reader.ts': readsEnv,
  'lib/config/env-reader.ts': readsEnv,
  'cli/config.ts': readsEnv,
  'test/unit/skipped.test.ts': skips,
  'test/support/skip.ts': skips,
  'lib/filters/new-long.ts': longFunction(81),
  'lib/filters/new-short.ts': longFunction(80),
  'lib/pipeline/load.ts': longFunction(81),
  'test/unit/long.test.ts': longFunction(81),
};

/** `file rule` for every diagnostic Biome reports on the tree. */
function diagnostics(dir: string): string[] {
  let out = '';
  try {
    execFileSync(biome, ['lint', '--max-diagnostics=200', '.'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    out = `${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  return [...out.matchAll(/^(\S+):\d+:\d+ lint\/\w+\/(\w+)/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
}

describe("the project's Biome rules", () => {
  let dir: string;
  let found: string[];
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'biome-rules-'));
    copyFileSync(path.join(root, 'biome.json'), path.join(dir, 'biome.json'));
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    found = diagnostics(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuse process.env outside the config readers', () => {
    expect(found).toContain('lib/shared/env-reader.ts noProcessEnv');
    expect(found).toContain('functions/http/env-reader.ts noProcessEnv');
    expect(found.filter((d) => d.startsWith('lib/config/') || d.startsWith('cli/config.ts'))).toEqual([]);
  });

  it('refuse a skipped test outside the documented skip helper', () => {
    expect(found).toContain('test/unit/skipped.test.ts noSkippedTests');
    expect(found.filter((d) => d.startsWith('test/support/skip.ts'))).toEqual([]);
  });

  it('bound a new function of the service at 80 lines, sparing tests and the files written before the bound', () => {
    expect(found).toContain('lib/filters/new-long.ts noExcessiveLinesPerFunction');
    expect(found.filter((d) => /new-short|pipeline\/load|long\.test/.test(d))).toEqual([]);
  });
});
