import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs every file on the embedded PGlite. With DATABASE_URL (PostgreSQL) it runs the files whose
 * outcome can depend on the database — integration, end-to-end, fault and deploy tests, and the unit files
 * that open one — and leaves out those that never reach it or reach it only through the HTTP API that the
 * end-to-end files already drive on both backends: the pure unit tests, the CLI process and the browser.
 * Each of those runs once, in the PGlite run; `TEST_EVERY_FILE=1` runs them on PostgreSQL too.
 */
const onServer = Boolean(process.env.DATABASE_URL) && !process.env.TEST_EVERY_FILE;
const opensDatabase = ['test/unit/pipeline/stage-append.test.ts'];

export default defineConfig({
  test: {
    include: onServer
      ? [
          'test/integration/**/*.test.ts',
          'test/e2e/**/*.test.ts',
          'test/fault/**/*.test.ts',
          'test/deploy/**/*.test.ts',
          ...opensDatabase,
        ]
      : ['test/**/*.test.ts', 'lib/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    // Hooks start services, load views and run detection: minutes on a machine loaded by other work.
    hookTimeout: 300_000,
    pool: 'forks',
    // Two files at a time on PGlite, where the database runs in each test process and the cores are busy;
    // three on PostgreSQL, whose server does the database work beside them (TEST_WORKERS overrides).
    maxWorkers: Number(process.env.TEST_WORKERS) || (onServer ? 3 : 2),
    reporters: ['default'],
  },
});
