/**
 * Layer rules that fail the build (`npm run lint`): entrypoints import lib/, never the reverse; the
 * modules of lib/ keep the module order written in docs/architecture.md (read from there, so the page
 * and the rule cannot disagree); the pure domain imports no database, queue or secrets code;
 * each table's drizzle file is imported by its owner only (the "Table owners" table of the same page); no cycles, counting type-only imports. test/unit/architecture/dependency-rules.test.ts shows each rule failing on a
 * deliberately bad fixture.
 */
const fs = require('node:fs');
const path = require('node:path');

/**
 * The floors of lib/, from the ground up, as the "Module order" table of docs/architecture.md lists
 * them: each row a floor number and the modules (folders of lib/) standing on it, in backquotes.
 */
function readModuleOrder() {
  const page = path.join(__dirname, 'docs/architecture.md');
  const section = fs
    .readFileSync(page, 'utf8')
    .split(/^## /m)
    .find((s) => s.startsWith('Module order'));
  const floors = [];
  for (const line of (section ?? '').split('\n')) {
    const row = /^\|\s*(\d+)\s*\|([^|]*)\|/.exec(line);
    if (row)
      floors.push({
        floor: Number(row[1]),
        modules: [...row[2].matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]),
      });
  }
  if (floors.length === 0)
    throw new Error(`${page}: no "## Module order" table to read the floors of lib/ from`);
  return floors.sort((a, b) => a.floor - b.floor).map((f) => f.modules);
}

/** The section of docs/architecture.md that starts with the heading `title`. */
function pageSection(title) {
  const page = path.join(__dirname, 'docs/architecture.md');
  const section = fs
    .readFileSync(page, 'utf8')
    .split(/^## /m)
    .find((s) => s.startsWith(title));
  if (!section) throw new Error(`${page}: no "## ${title}" section`);
  return section;
}

/**
 * The drizzle table files of lib/db/tables and the module of lib/ that owns each, as the "Table owners"
 * table of docs/architecture.md lists them (`| \`table\` | \`owner\` | \`file.ts\` |`).
 */
function readTableOwners() {
  const owners = new Map();
  for (const line of pageSection('Table owners').split('\n')) {
    const row = /^\|\s*`([a-z_]+)`\s*\|\s*`([a-z0-9-]+)`\s*\|\s*`([a-z0-9-]+)\.ts`\s*\|/.exec(line);
    if (row) owners.set(row[3], row[2]);
  }
  if (owners.size === 0) throw new Error('docs/architecture.md: the "Table owners" table lists no table');
  return owners;
}

/** Only the owner imports a table's drizzle file for its values (a type, such as a row's shape, may travel). */
const tableOwnerRules = [...readTableOwners()].map(([file, owner]) => ({
  name: 'table-has-one-owner',
  comment: `lib/${owner} owns the tables of lib/db/tables/${file}.ts (docs/architecture.md, Table owners): other modules ask it.`,
  severity: 'error',
  from: { path: '^(lib|functions|cli)/', pathNot: `^lib/(${owner}|db)/` },
  to: { path: `^lib/db/tables/${file}\\.ts$`, dependencyTypesNot: ['type-only'] },
}));

const FLOORS = readModuleOrder();
const ALL_MODULES = FLOORS.flat();
const anyOf = (modules) => `^lib/(${modules.join('|')})/`;

/** A module imports no module on a floor above its own. */
const moduleOrderRules = FLOORS.slice(0, -1).map((floor, i) => ({
  name: 'module-order',
  comment: `lib/${floor.join(', lib/')} stand(s) on floor ${i + 1} of the module order (docs/architecture.md): no import of a module above.`,
  severity: 'error',
  from: { path: anyOf(floor) },
  to: { path: anyOf(FLOORS.slice(i + 1).flat()) },
}));

/** Modules on one floor stand side by side: neither imports the other. */
const sideBySideRules = FLOORS.filter((floor) => floor.length > 1).map((floor) => ({
  name: 'modules-side-by-side',
  comment: `lib/${floor.join(', lib/')} stand on one floor of the module order (docs/architecture.md): none imports another.`,
  severity: 'error',
  from: { path: `^lib/(${floor.join('|')})/` },
  to: { path: anyOf(floor), pathNot: '^lib/$1/' },
}));

/** Folders and files that hold pure domain code: computations over values, no I/O. */
const PURE_DOMAIN = [
  '^lib/detection/',
  '^lib/calendar/',
  '^lib/dataviews/definition/',
  '^lib/filters/(rank|aggregate|aggregate-graph|aggregate-hierarchical|union-find|events|select|time-range|types)\\.ts$',
  '^lib/comments/(matching|categories|rules)\\.ts$',
];

/** Database, queue and secrets code: lib adapters and the driver packages behind them. */
const IO_CODE = [
  '^lib/(db|queue|secrets|dataset|connectors|app|config)/',
  '(^|/)node_modules/(drizzle-orm|postgres|@electric-sql|@aws-sdk|mssql|oracledb|snowflake-sdk)/',
];

module.exports = {
  forbidden: [
    {
      name: 'lib-is-not-an-entrypoint',
      comment: 'lib/ holds the domain and adapters; it never imports handlers, scripts, the CLI or tests.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(functions|scripts|cli|test|web)/' },
    },
    {
      name: 'functions-import-lib-only',
      comment:
        'Lambda handlers import lib/ (and each other: the route registry, the container), nothing else of ours.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { dependencyTypes: ['local'], pathNot: '^(functions|lib)/' },
    },
    {
      name: 'cli-talks-http',
      comment: 'The CLI is an HTTP client: it never reaches into lib/ database code or handlers.',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^(functions|lib/db|test)/' },
    },
    {
      name: 'pure-domain-does-no-io',
      comment:
        'Detectors, the calendar, ranking and aggregation, comment matching and the definition checks import no database, queue or secrets code.',
      severity: 'error',
      from: { path: PURE_DOMAIN },
      to: { path: IO_CODE },
    },
    ...tableOwnerRules,
    ...moduleOrderRules,
    ...sideBySideRules,
    {
      name: 'module-in-order',
      comment: 'Every folder of lib/ has its floor in the module order of docs/architecture.md.',
      severity: 'error',
      from: { path: '^lib/[^/]+/', pathNot: anyOf(ALL_MODULES) },
      to: {},
    },
    {
      name: 'no-folder-cycle',
      comment:
        'No two folders of lib/ import each other, directly or round a loop (the module order already forbids it; this says so by name).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^lib/[^/]+$' },
      to: { path: '^lib/[^/]+$', circular: true },
    },
    {
      name: 'no-circular',
      comment: 'No cycles, type-only imports included (tsPreCompilationDeps).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle through `import type` is still a cycle of the design.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
    exclude: { path: '(node_modules|\\.esbuild|web/dist)' },
  },
};
