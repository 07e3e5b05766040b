/** Layer rules that fail the build: entrypoints import lib/, never the reverse; no cycles. */
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
      name: 'functions-stay-thin',
      comment: 'Lambda handlers import lib/ and each other, not scripts, the CLI or tests.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(scripts|cli|test|web)/' },
    },
    {
      name: 'cli-talks-http',
      comment: 'The CLI is an HTTP client: it never reaches into lib/ database code or handlers.',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^(functions|lib/db|test)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
    exclude: { path: '(node_modules|\\.esbuild|web/dist)' },
  },
};
