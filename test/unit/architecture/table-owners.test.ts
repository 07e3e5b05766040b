/**
 * Every table of the service database has one owning module (docs/architecture.md, "Table owners"): the
 * migrations create no table the page does not list, each listed table has its drizzle table in the
 * owner's file of lib/db/tables, and no SQL outside the owner (and the migrations) names it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Owned {
  table: string;
  owner: string;
  /** The file of lib/db/tables that holds the drizzle table. */
  file: string;
}

/** The rows of the "Table owners" table of docs/architecture.md. */
function tableOwners(page: string): Owned[] {
  const section = page.split(/^## /m).find((s) => s.startsWith('Table owners')) ?? '';
  const rows: Owned[] = [];
  for (const line of section.split('\n')) {
    const row = /^\|\s*`([a-z_]+)`\s*\|\s*`([a-z0-9-]+)`\s*\|\s*`([a-z0-9-]+\.ts)`\s*\|/.exec(line);
    if (row) rows.push({ table: row[1], owner: row[2], file: row[3] });
  }
  return rows;
}

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** SQL that names `table`: a statement reading, writing, locking or altering it. */
const namesTable = (table: string) =>
  new RegExp(`\\b(FROM|JOIN|UPDATE|INTO|TABLE|TRUNCATE|REFERENCES)\\s+(ONLY\\s+)?("?)${table}\\3(?![\\w.])`);

/** `file:table` for each file outside a table's owner (and lib/db) whose SQL names that table. */
function foreignSql(texts: ReadonlyMap<string, string>, owned: readonly Owned[]): string[] {
  const found: string[] = [];
  for (const { table, owner } of owned) {
    const rule = namesTable(table);
    for (const [file, text] of texts) {
      if (file.startsWith(`lib/${owner}/`) || file.startsWith('lib/db/')) continue;
      if (rule.test(text)) found.push(`${file}:${table}`);
    }
  }
  return found.sort();
}

const owned = tableOwners(read('docs/architecture.md'));
const libTexts = new Map(tsFiles('lib').map((f) => [f, read(f)]));

describe('table owners', () => {
  it('lists every table the migrations create, each once', () => {
    const created = new Set<string>();
    for (const file of tsFiles('lib/db/migrations'))
      for (const m of read(file).matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)\s*\(/g))
        created.add(m[1]);
    expect(created.size).toBeGreaterThan(10);
    const listed = owned.map((o) => o.table);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...created].sort());
  });

  it("keeps each table's drizzle table in its owner's file of lib/db/tables", () => {
    const modules = new Set([...libTexts.keys()].map((f) => f.split('/')[1]));
    const missing = owned.filter(
      (o) =>
        !modules.has(o.owner) ||
        !new RegExp(`pgTable\\(\\s*'${o.table}'`).test(read(`lib/db/tables/${o.file}`)),
    );
    expect(missing).toEqual([]);
  });

  it('finds no SQL naming a table outside its owner', () => {
    expect(foreignSql(libTexts, owned)).toEqual([]);
  });

  it('flags SQL on a table in a module that does not own it, and lets the owner and lookalike words pass', () => {
    const texts = new Map([
      ['lib/alerts/bad.ts', 'sql`SELECT s.id FROM alert_subscriptions s JOIN users u ON u.id = s.user_id`'],
      ['lib/pipeline/bad.ts', 'sql`SELECT status FROM jobs WHERE id = $1 FOR UPDATE`'],
      ['lib/identity/ok.ts', 'sql`SELECT email FROM users WHERE id = $1`'],
      ['lib/jobs/ok.ts', "sql`SELECT 1 FROM jobs_view`; // the word 'from jobs' in a sentence"],
    ]);
    const fixture: Owned[] = [
      { table: 'users', owner: 'identity', file: 'identity.ts' },
      { table: 'jobs', owner: 'jobs', file: 'jobs.ts' },
      { table: 'alert_subscriptions', owner: 'alerts', file: 'alerts.ts' },
    ];
    expect(foreignSql(texts, fixture)).toEqual(['lib/alerts/bad.ts:users', 'lib/pipeline/bad.ts:jobs']);
  });
});
