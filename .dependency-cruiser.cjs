/**
 * Layer rules that fail the build (`npm run lint`): entrypoints import lib/, never the reverse; the
 * pure domain imports no database, queue or secrets code; lib/dataviews alone reads the data_views
 * table; no cycles, counting type-only imports. test/unit/architecture/dependency-rules.test.ts
 * shows each rule failing on a deliberately bad fixture.
 */

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
    {
      name: 'dataviews-own-their-table',
      comment:
        'Only lib/dataviews reads data_views: other modules use lib/dataviews/scope.ts (readers and the SQL scope).',
      severity: 'error',
      from: { path: '^(lib|functions|cli)/', pathNot: '^lib/(dataviews|db)/' },
      to: { path: '^lib/db/tables/dataviews\\.ts$' },
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
