/**
 * Visibility is decided in one place (lib/dataviews/scope.ts). Every use case that takes a Caller in
 * the modules that read view data must authorize through that scope (a reader, the SQL scope or an
 * id check), directly or through a helper that does, or be for administrators only (they read every
 * view). The few that read no view data are listed below with the reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

/** The modules whose reads must be scoped to the caller's data views. */
const SCOPED_MODULES = [
  'alerts',
  'anomalies',
  'comments',
  'dataviews',
  'feedback',
  'filters',
  'incidents',
  'jobs',
  'series-explorer',
  'summaries',
];

/** The scope itself: its functions are what the others call. */
const SCOPE = 'lib/dataviews/scope.ts';

/** The scope's functions and the administrators-only check. */
const AUTHORIZING = new Set([
  'readView',
  'readDeployedView',
  'readViewByName',
  'readViews',
  'readableBy',
  'assertReadable',
  'canRead',
  'canReadAll',
  'readsEveryView',
  'requireAdmin',
]);

/** Use cases that take a caller but read no data of a data view, and why. */
const READS_NO_VIEW_DATA: Record<string, string> = {
  'lib/alerts/service.ts:listFilterSubscriptions':
    "the caller's own subscriptions on a filter they see; the records are scoped when delivered",
  'lib/alerts/service.ts:createSubscription':
    "the caller's subscription on a filter they see; the records are scoped when delivered (canRead)",
  'lib/alerts/service.ts:getSubscription': "the caller's own subscription row",
  'lib/alerts/service.ts:listSubscriptions': "the caller's own subscription rows (admins: all)",
  'lib/alerts/service.ts:deleteSubscription': "the caller's own subscription row",
  'lib/alerts/service.ts:testSubscription': 'sends a test message, no anomaly records',
  'lib/alerts/service.ts:rotateSecret': "the secret of the caller's own subscription",
  'lib/alerts/service.ts:subscriptionDeliveries': "the delivery log of the caller's own subscription",
  'lib/dataviews/license.ts:getLicenseUsage': 'how many views exist against the licence, nothing of any view',
  'lib/dataviews/cron-preview.ts:previewCron': 'the next run times of a cron expression; no view is read',
  'lib/feedback/access.ts:mayChangeFeedback':
    'a check on a feedback row the caller already read through the scope; reads nothing',
  'lib/filters/service.ts:deleteFilter': 'the owner deletes their filter row',
  'lib/filters/service.ts:listLittleFilters': 'names of the filters the caller owns or was given',
  'lib/filters/sharing.ts:shareFilter': 'filter rows and user ids; recipients read only their own views',
  'lib/filters/service.ts:loadVisibleFilter':
    'filter rows are visible by ownership and sharing; the views they name are narrowed when shown (recordsFor) and run',
  'lib/filters/service.ts:requireOwner': 'an ownership check on a filter row already read',
  'lib/filters/service.ts:toFilterRecord': 'shapes a filter row, reads nothing',
  'lib/filters/sharing.ts:getFilterShares': 'recipient user ids of a filter the caller sees',
  'lib/filters/sharing.ts:leaveFilter': 'removes the caller from the recipients',
};

interface Fn {
  file: string;
  name: string;
  exported: boolean;
  takesCaller: boolean;
  calls: Set<string>;
}

function calledNames(node: ts.Node, out: Set<string>): void {
  if (ts.isCallExpression(node)) {
    const e = node.expression;
    if (ts.isIdentifier(e)) out.add(e.text);
    else if (ts.isPropertyAccessExpression(e)) out.add(e.name.text);
  }
  ts.forEachChild(node, (c) => calledNames(c, out));
}

function isExported(node: ts.Node): boolean {
  const mods = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
  return mods?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
}

/** The functions of one source text: name, whether exported, whether a parameter is a Caller, what it calls. */
function functionsOf(file: string, text: string): Fn[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Fn[] = [];
  const add = (name: string, exported: boolean, fn: ts.SignatureDeclaration & { body?: ts.Node }) => {
    const takesCaller = fn.parameters.some((p) => !!p.type && /\bCaller\b/.test(p.type.getText(sf)));
    const calls = new Set<string>();
    if (fn.body) calledNames(fn.body, calls);
    out.push({ file, name, exported, takesCaller, calls });
  };
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) add(st.name.text, isExported(st), st);
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        const init = d.initializer;
        if (ts.isIdentifier(d.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)))
          add(d.name.text, isExported(st), init);
      }
    }
  }
  return out;
}

/** Use cases (exported, taking a Caller, in `modules`) that do not authorize through the scope. */
function unscopedUseCases(fns: Fn[], modules: string[]): string[] {
  const byName = new Map<string, Fn[]>();
  for (const f of fns) byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  const ok = new Set<Fn>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of fns) {
      if (ok.has(f)) continue;
      const authorized = [...f.calls].some(
        (c) => AUTHORIZING.has(c) || (byName.get(c) ?? []).some((g) => g !== f && ok.has(g)),
      );
      if (authorized) {
        ok.add(f);
        changed = true;
      }
    }
  }
  return fns
    .filter((f) => f.exported && f.takesCaller && f.file !== SCOPE)
    .filter((f) => modules.some((m) => f.file.startsWith(`lib/${m}/`)))
    .filter((f) => !ok.has(f))
    .map((f) => `${f.file}:${f.name}`)
    .sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

const libFiles = sourceFiles('lib');
const texts = new Map(libFiles.map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));
const allFunctions = libFiles.flatMap((f) => functionsOf(f, texts.get(f)!));

describe('visibility in one place', () => {
  it('every use case that takes a caller authorizes through lib/dataviews/scope.ts (or is for admins only)', () => {
    const unscoped = unscopedUseCases(allFunctions, SCOPED_MODULES).filter((u) => !(u in READS_NO_VIEW_DATA));
    expect(unscoped).toEqual([]);
  });

  it('finds the use cases it checks (the enumeration is not empty)', () => {
    const checked = allFunctions.filter(
      (f) =>
        f.exported &&
        f.takesCaller &&
        f.file !== SCOPE &&
        SCOPED_MODULES.some((m) => f.file.startsWith(`lib/${m}/`)),
    );
    expect(checked.length).toBeGreaterThan(50);
  });

  it('lists no exemption that is gone or already scoped', () => {
    const unscoped = new Set(unscopedUseCases(allFunctions, SCOPED_MODULES));
    expect(Object.keys(READS_NO_VIEW_DATA).filter((k) => !unscoped.has(k))).toEqual([]);
  });

  it('flags a use case that reads by hand, and passes one that goes through a scoped helper', () => {
    const fixture = `
      export async function leaky(db: Database, caller: Caller, id: number) { return db.rows(sql\`SELECT * FROM jobs\`); }
      async function helper(db: Database, caller: Caller, id: number) { return readView(caller, db, id); }
      export async function scoped(db: Database, caller: Caller, id: number) { return (await helper(db, caller, id)).id; }
      export const admin = async (caller: Caller) => { requireAdmin(caller); };`;
    expect(unscopedUseCases(functionsOf('lib/jobs/fixture.ts', fixture), ['jobs'])).toEqual([
      'lib/jobs/fixture.ts:leaky',
    ]);
  });

  it("reads the caller's data views only in the scope (and where identity builds them)", () => {
    const rule = /\.dataViews\s*(===|!==|\.has\b)|dataViews as (Set|ReadonlySet)/;
    const readers = libFiles.filter(
      (f) => f !== SCOPE && !f.startsWith('lib/identity/') && rule.test(texts.get(f)!),
    );
    expect(readers).toEqual([]);
  });
});
