/**
 * The per-view tables (the `dv_<id>` schemas) have one owner each (docs/architecture.md, "Per-view
 * tables"): only the owner's files name such a table in SQL. SQL text is invisible to
 * dependency-cruiser, so this checker reads the string and template literals of lib/ and functions/ with
 * the TypeScript parser and reports each literal that names a per-view table outside its owner (and
 * outside the files the page lists as the schema's DDL). `npm run lint` runs it;
 * test/unit/architecture/table-refs.test.ts runs it over a tree of deliberately bad files.
 *
 *   tsx scripts/lint/table-refs.ts [root]      exit 1 and one `file:line: table (owner)` per reference
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface PerViewTables {
  /** Table name to the module of lib/ that owns it. */
  owners: Map<string, string>;
  /** Files (paths from the root) that may name every per-view table: the schema's DDL, the migrations. */
  ddl: string[];
}

/** The "Per-view tables" section of docs/architecture.md: `| \`table\` | \`owner\` | …` rows, and the DDL files. */
export function readPerViewTables(page: string): PerViewTables {
  const section = page.split(/^## /m).find((s) => s.startsWith('Per-view tables')) ?? '';
  const owners = new Map<string, string>();
  for (const line of section.split('\n')) {
    const row = /^\|\s*`([a-z_]+)`\s*\|\s*`([a-z0-9-]+)`\s*\|/.exec(line);
    if (row) owners.set(row[1], row[2]);
  }
  if (owners.size === 0)
    throw new Error('docs/architecture.md: the "Per-view tables" section lists no table');
  const ddlLine = section.split('\n').find((l) => l.startsWith('DDL:')) ?? '';
  const ddl = [...ddlLine.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return { owners, ddl };
}

/**
 * A literal names `table` when the table is schema-qualified (`${schema}.cat_map`: the piece of a template
 * after a substitution starts with `.cat_map`; `"dv_1".days`; an alias's column, `st.days`, passes), follows
 * an SQL keyword that takes a table (`FROM cat_map`), or, for a name with an underscore, stands quoted in
 * SQL text (`table_name = 'all_anomalies'`). A literal that is only the name (`'cat_map'`: a step's label,
 * the suffix of a build table) is not SQL and passes.
 */
function namesTable(table: string): RegExp {
  return new RegExp(
    `(${table.includes('_') ? "'|" : ''}^\\.|"\\.|\\b(?:FROM|JOIN|UPDATE|INTO|TABLE|TRUNCATE|REFERENCES)\\s+(?:ONLY\\s+)?)"?${table}"?(?![\\w(])`,
    'i',
  );
}

/** The text of every string and template literal of a source, with its line. */
function literals(file: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push({ line, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `file:line: table (owner module)` for each literal outside a table's owner that names it. */
export function foreignTableRefs(texts: ReadonlyMap<string, string>, tables: PerViewTables): string[] {
  const rules = [...tables.owners].map(([table, owner]) => ({ table, owner, re: namesTable(table) }));
  const found: string[] = [];
  for (const [file, text] of texts) {
    if (tables.ddl.some((d) => (d.endsWith('/') ? file.startsWith(d) : file === d))) continue;
    const mine = rules.filter((r) => !file.startsWith(`lib/${r.owner}/`));
    if (!mine.some((r) => text.includes(r.table))) continue;
    for (const lit of literals(file, text))
      for (const r of mine)
        if (r.re.test(lit.text)) found.push(`${file}:${lit.line}: ${r.table} (owned by lib/${r.owner})`);
  }
  return found.sort();
}

/** The .ts/.tsx files under `dirs` of `root`, as paths from the root with `/`. */
export function sourceTexts(root: string, dirs: readonly string[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const dir of dirs) {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (!e.isFile() || !/\.tsx?$/.test(e.name)) continue;
      const rel = path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/');
      texts.set(rel, readFileSync(path.join(root, rel), 'utf8'));
    }
  }
  return texts;
}

/** Checks `root` (its docs/architecture.md, lib/ and functions/); the references found. */
export function checkTree(root: string): string[] {
  const tables = readPerViewTables(readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
  return foreignTableRefs(sourceTexts(root, ['lib', 'functions']), tables);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const found = checkTree(path.resolve(process.argv[2] ?? '.'));
  for (const f of found)
    console.error(`${f}: name it through its owner (docs/architecture.md, Per-view tables)`);
  if (found.length) process.exit(1);
}
