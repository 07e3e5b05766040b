/**
 * The per-view tables have one owner each (docs/architecture.md, "Per-view tables"): the checker that
 * `npm run lint` runs (scripts/lint/table-refs.ts) finds no reference outside the owners in the project,
 * and reports each file of a tree of deliberately bad files while it spares the owners, the DDL and words
 * that only look like a table.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTree, readPerViewTables } from '../../../scripts/lint/table-refs';

const root = path.resolve(import.meta.dirname, '../../..');

const PAGE = `# Architecture

## Per-view tables

DDL: \`lib/dataset/ddl.ts\`, \`lib/db/migrations/\`

| Table | Owner | What it holds |
|---|---|---|
| \`all_anomalies\` | \`process-job\` | records |
| \`cat_map\` | \`dataset\` | catalog |
| \`days\` | \`dataset\` | days |
| \`incidents\` | \`incidents\` | incidents |

## Next section
`;

/** `$` + `{`: the fixture sources hold template literals as text. */
const S = '$';

const FILES: Record<string, string> = {
  'docs/architecture.md': PAGE,
  // Schema-qualified in a template, after a substitution.
  'lib/anomalies/bad-records.ts': `export const q = (s: string) => \`SELECT id FROM ${S}{s}.all_anomalies WHERE series_id = 1\`;\n`,
  // A quoted schema in a plain string.
  'lib/series-explorer/bad-catalog.ts': `export const q = 'SELECT * FROM "dv_1".cat_map';\n`,
  // In a tagged template (drizzle's sql), after a join.
  'lib/filters/bad-join.ts': `import { sql } from 'drizzle-orm';\nexport const q = (t: string) => sql\`SELECT 1 FROM x JOIN ${S}{sql.raw(t)}.incidents i ON true\`;\n`,
  // Named in quotes inside SQL text (a catalog lookup).
  'lib/replay/bad-column-check.ts':
    "export const q = `SELECT 1 FROM information_schema.columns WHERE table_name = 'all_anomalies'`;\n",
  // A handler.
  'functions/http/bad-days.ts': `export const q = (s: string) => \`SELECT day FROM ${S}{s}.days\`;\n`,
  // The owners, and the DDL.
  'lib/process-job/records.ts': `export const t = (s: string) => \`${S}{s}.all_anomalies\`;\n`,
  'lib/dataset/catalog.ts': `export const t = (s: string) => \`${S}{s}.cat_map\`;\n`,
  'lib/dataset/ddl.ts': `export const d = (s: string) => \`CREATE TABLE ${S}{s}.incidents (id int)\`;\n`,
  'lib/db/migrations/0001-x.ts': 'export const m = `ALTER TABLE dv_1.all_anomalies ADD x int`;\n',
  // Lookalikes: a comment, a step's label, an alias's column, a property.
  'lib/pipeline/ok.ts': [
    `// reads FROM ${S}{s}.cat_map through lib/dataset`,
    "export const step = 'cat_map';",
    'export const q = `SELECT st.days, a.incidents FROM stats st`;',
    'export const n = (o: { days: number }) => o.days;',
    '',
  ].join('\n'),
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'table-refs-'));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('per-view table owners', () => {
  it('reads the owners and the DDL files from docs/architecture.md', () => {
    const tables = readPerViewTables(readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
    expect(tables.owners.get('all_anomalies')).toBe('process-job');
    expect(tables.owners.get('cat_map')).toBe('dataset');
    expect(tables.owners.get('incidents')).toBe('incidents');
    expect(tables.ddl).toContain('lib/dataset/ddl.ts');
  });

  it('finds no per-view table named outside its owner in the project', () => {
    expect(checkTree(root)).toEqual([]);
  });

  it('reports each deliberately bad file, and spares the owners, the DDL and lookalikes', () => {
    const found = checkTree(dir);
    expect(found.map((f) => f.replace(/:\d+:/, ':'))).toEqual([
      'functions/http/bad-days.ts: days (owned by lib/dataset)',
      'lib/anomalies/bad-records.ts: all_anomalies (owned by lib/process-job)',
      'lib/filters/bad-join.ts: incidents (owned by lib/incidents)',
      'lib/replay/bad-column-check.ts: all_anomalies (owned by lib/process-job)',
      'lib/series-explorer/bad-catalog.ts: cat_map (owned by lib/dataset)',
    ]);
  });
});
