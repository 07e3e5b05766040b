/**
 * The layer rules of .dependency-cruiser.cjs fail on a violation: a small tree of deliberately bad
 * files is cruised with the project's own configuration, and every rule must report its file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const depcruise = path.join(root, 'node_modules/.bin/depcruise');

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler' } }),
  'lib/db/database.ts': 'export const db = 1;\n',
  'lib/db/tables/dataviews.ts': 'export const dataViews = 1;\n',
  'lib/secrets/index.ts': 'export const secret = 1;\n',
  'lib/queue/port.ts': 'export const queue = 1;\n',
  // A detector reading the database.
  'lib/detection/bad-detector.ts': "import { db } from '../db/database';\nexport const x = db;\n",
  // Ranking with a queue, comment matching with secrets (type-only imports count too).
  'lib/filters/rank.ts': "import type { queue } from '../queue/port';\nexport type R = typeof queue;\n",
  'lib/comments/matching.ts': "import { secret } from '../secrets/index';\nexport const m = secret;\n",
  // Another module reading the data_views table.
  'lib/jobs/bad-reader.ts':
    "import { dataViews } from '../db/tables/dataviews';\nexport const v = dataViews;\n",
  // The owner may.
  'lib/dataviews/repository.ts':
    "import { dataViews } from '../db/tables/dataviews';\nexport const ok = dataViews;\n",
  // A cycle made only of type imports.
  'lib/connectors/source-port.ts':
    "import type { D } from './sources/driver';\nexport interface P { d?: D }\n",
  'lib/connectors/sources/driver.ts':
    "import type { P } from '../source-port';\nexport interface D { p?: P }\n",
  // A handler importing a script; lib importing a handler.
  'scripts/tool.ts': 'export const tool = 1;\n',
  'functions/http/bad-handler.ts': "import { tool } from '../../scripts/tool';\nexport const h = tool;\n",
  'lib/app/uses-handler.ts': "import { h } from '../../functions/http/bad-handler';\nexport const u = h;\n",
  // A clean file: imports lib only.
  'functions/http/good-handler.ts':
    "import { ok } from '../../lib/dataviews/repository';\nexport const g = ok;\n",
};

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

let dir: string;
let violations: Violation[];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'depcruise-fixture-'));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  let out: string;
  try {
    out = execFileSync(
      depcruise,
      [
        '--config',
        path.join(root, '.dependency-cruiser.cjs'),
        '--output-type',
        'json',
        'functions',
        'lib',
        'scripts',
      ],
      { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (e) {
    // depcruise exits non-zero when it finds errors; the report is still on stdout.
    out = (e as { stdout: string }).stdout;
  }
  violations = JSON.parse(out).summary.violations as Violation[];
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flagged = (rule: string) => violations.filter((v) => v.rule.name === rule).map((v) => v.from);

describe('the dependency rules', () => {
  it('refuse database, queue and secrets code in the pure domain, type-only imports included', () => {
    expect(flagged('pure-domain-does-no-io').sort()).toEqual([
      'lib/comments/matching.ts',
      'lib/detection/bad-detector.ts',
      'lib/filters/rank.ts',
    ]);
  });

  it('let only lib/dataviews import the data_views table', () => {
    expect(flagged('dataviews-own-their-table')).toEqual(['lib/jobs/bad-reader.ts']);
  });

  it('find a cycle made of type-only imports', () => {
    const cycle = flagged('no-circular');
    expect(cycle.length).toBeGreaterThan(0);
    for (const from of cycle)
      expect(['lib/connectors/source-port.ts', 'lib/connectors/sources/driver.ts']).toContain(from);
  });

  it('keep functions/ on lib/ and lib/ off functions/', () => {
    expect(flagged('functions-import-lib-only')).toEqual(['functions/http/bad-handler.ts']);
    expect(flagged('lib-is-not-an-entrypoint')).toEqual(['lib/app/uses-handler.ts']);
  });

  it('say nothing of a handler that imports lib/ only', () => {
    expect(violations.filter((v) => v.from === 'functions/http/good-handler.ts')).toEqual([]);
  });
});
