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
  // Another module reading the data_views table, and one reading the alert tables; a row's type may travel.
  'lib/db/tables/alerts.ts': 'export const alertDeliveries = 1;\n',
  'lib/jobs/bad-reader.ts':
    "import { dataViews } from '../db/tables/dataviews';\nexport const v = dataViews;\n",
  'lib/summaries/bad-reader.ts':
    "import { alertDeliveries } from '../db/tables/alerts';\nexport const a = alertDeliveries;\n",
  'lib/jobs/row-type.ts':
    "import type { dataViews } from '../db/tables/dataviews';\nexport type V = typeof dataViews;\n",
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
  // A lower module importing a higher one (the view's status reaching up into the jobs), one importing a
  // module beside it on its floor, and a folder that has no floor in the module order.
  'lib/jobs/latest.ts': 'export const latest = 1;\n',
  'lib/dataviews/status.ts': "import { latest } from '../jobs/latest';\nexport const s = latest;\n",
  'lib/summaries/prompt.ts': 'export const prompt = 1;\n',
  'lib/alerts/messages.ts': "import { prompt } from '../summaries/prompt';\nexport const m = prompt;\n",
  'lib/alerts/deliver.ts':
    "import { m } from './messages';\nimport { ok } from '../dataviews/repository';\nexport const d = [m, ok];\n",
  'lib/gadgets/tool.ts': "import { ok } from '../dataviews/repository';\nexport const t = ok;\n",
  // With the status above, lib/jobs and lib/dataviews import each other (no file cycle).
  'lib/jobs/enqueue.ts': "import { ok } from '../dataviews/repository';\nexport const e = ok;\n",
  // The whole container reached from below the edge (only lib/app and functions/ may).
  'lib/app/container.ts': 'export interface Container { db: number }\n',
  'lib/jobs/worker.ts': "import type { Container } from '../app/container';\nexport type W = Container;\n",
  // A clean file: imports lib only.
  'functions/http/good-handler.ts':
    "import { ok } from '../../lib/dataviews/repository';\nexport const g = ok;\n",
};

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

const dirs: string[] = [];

/** Writes `files` into a new folder and runs depcruise there with the project's configuration, as lint does. */
function cruise(files: Record<string, string>): { exitCode: number; violations: Violation[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'depcruise-fixture-'));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const run = (args: string[]) => {
    try {
      const args0 = ['--config', path.join(root, '.dependency-cruiser.cjs'), ...args];
      return {
        status: 0,
        stdout: execFileSync(depcruise, args0, { cwd: dir, encoding: 'utf8', stdio: 'pipe' }),
      };
    } catch (e) {
      // depcruise exits non-zero when it finds errors; the report is still on stdout.
      return e as { status: number; stdout: string };
    }
  };
  const roots = ['functions', 'lib', 'scripts'].filter((r) =>
    Object.keys(files).some((f) => f.startsWith(`${r}/`)),
  );
  const report = run(['--output-type', 'json', ...roots]);
  // The text report, as `npm run lint` prints it: its exit status is what fails the build.
  const lint = run(roots);
  return { exitCode: lint.status, violations: JSON.parse(report.stdout).summary.violations as Violation[] };
}

let violations: Violation[];

beforeAll(() => {
  violations = cruise(FILES).violations;
}, 60_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const flagged = (rule: string) => violations.filter((v) => v.rule.name === rule).map((v) => v.from);

describe('the dependency rules', () => {
  it('refuse database, queue and secrets code in the pure domain, type-only imports included', () => {
    expect(flagged('pure-domain-does-no-io').sort()).toEqual([
      'lib/comments/matching.ts',
      'lib/detection/bad-detector.ts',
      'lib/filters/rank.ts',
    ]);
  });

  it("let only a table's owner (docs/architecture.md, Table owners) import its drizzle table", () => {
    expect(flagged('table-has-one-owner').sort()).toEqual([
      'lib/jobs/bad-reader.ts',
      'lib/summaries/bad-reader.ts',
    ]);
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

  it('fail the lint when a lower module imports a higher one of the module order', () => {
    expect(flagged('module-order').sort()).toEqual(['lib/dataviews/status.ts', 'lib/jobs/worker.ts']);
    // The same two files pass the lint without that one import.
    const below = {
      'tsconfig.json': FILES['tsconfig.json'],
      'lib/jobs/latest.ts': FILES['lib/jobs/latest.ts'],
    };
    const misplaced = cruise({ ...below, 'lib/dataviews/status.ts': FILES['lib/dataviews/status.ts'] });
    expect(misplaced.exitCode).not.toBe(0);
    expect(misplaced.violations.map((v) => `${v.rule.name} ${v.from} → ${v.to}`)).toEqual([
      'module-order lib/dataviews/status.ts → lib/jobs/latest.ts',
    ]);
    const clean = cruise({ ...below, 'lib/dataviews/status.ts': 'export const s = 1;\n' });
    expect(clean).toEqual({ exitCode: 0, violations: [] });
  }, 60_000);

  it('refuse an import between two modules of one floor, and let a module import itself and lower ones', () => {
    expect(flagged('modules-side-by-side')).toEqual(['lib/alerts/messages.ts']);
    expect(violations.filter((v) => v.from === 'lib/alerts/deliver.ts')).toEqual([]);
  });

  it('name two folders of lib/ that import each other', () => {
    expect([...new Set(flagged('no-folder-cycle'))].sort()).toEqual(['lib/dataviews', 'lib/jobs']);
  });

  it('refuse a folder of lib/ that has no floor in the module order', () => {
    expect(flagged('module-in-order')).toEqual(['lib/gadgets/tool.ts']);
  });

  it('say nothing of a handler that imports lib/ only', () => {
    expect(violations.filter((v) => v.from === 'functions/http/good-handler.ts')).toEqual([]);
  });
});
