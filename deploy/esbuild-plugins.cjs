/**
 * esbuild plugins of serverless-esbuild (serverless.yml `custom.esbuild.plugins`); serverless-esbuild calls
 * this with the resolved service and builds each function's bundle on its own (package.individually).
 *
 * `source-drivers-only-where-used`: on AWS stages the source database drivers (mssql with tedious, oracledb,
 * snowflake-sdk: about 20 MiB unpacked) go only into the functions of `custom.sourceFunctions`, the ones that
 * open sources. Every other function reaches the connector code only through imports it never runs there
 * (the route tables of the OpenAPI document in `system`; the job workers, which only the worker entrypoints
 * bundle (functions/container.ts `withWorkers`), carry the load job's source reading into processWorker and
 * deadLetters), so its bundle gets a stub in place of each driver. The connectors import their driver lazily
 * (`await import('mssql')`), so a stub is only evaluated if such a function ever tried to open a source, and
 * then fails with a clear error instead of a missing module.
 * The local stage keeps the drivers everywhere (one build for `npm start`; bundle sizes do not matter there).
 * test/deploy/package.test.ts checks which bundles carry the drivers and their sizes.
 */
const path = require('node:path');

/** The drivers as lib/connectors/sources/* import them (and mssql's own tedious). */
const DRIVER = /^(mssql|tedious|oracledb|snowflake-sdk)(\/.*)?$/;

/** `functions/http/system.handler` → `functions/http/system` */
const entryOf = (handler) => handler.replace(/\.[^.]+$/, '');

const normalize = (entry) =>
  path
    .relative(process.cwd(), path.resolve(String(typeof entry === 'object' ? entry.in : entry)))
    .split(path.sep)
    .join('/')
    .replace(/\.[cm]?[jt]s$/, '');

function sourceDriversOnlyWhereUsed(serverless) {
  const service = serverless?.service ?? {};
  const stage = service.provider?.stage;
  const profile = service.custom?.serviceStage?.[stage] ?? 'aws';
  const functions = service.functions ?? {};
  const allowed = new Set(
    (service.custom?.sourceFunctions ?? []).map((name) => {
      if (!functions[name]?.handler) throw new Error(`custom.sourceFunctions: no function '${name}'`);
      return entryOf(functions[name].handler);
    }),
  );
  return {
    name: 'source-drivers-only-where-used',
    setup(build) {
      if (profile === 'local') return;
      const entries = [].concat(build.initialOptions.entryPoints ?? []).map(normalize);
      if (entries.some((e) => allowed.has(e))) return;
      build.onResolve({ filter: DRIVER }, (args) => ({ path: args.path, namespace: 'no-source-driver' }));
      build.onLoad({ filter: /.*/, namespace: 'no-source-driver' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(
          `The source driver '${args.path}' is not packaged with this function (serverless.yml custom.sourceFunctions)`,
        )});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * `moment-timezone-1970-2030`: the public-holiday library (date-holidays, lib/calendar/holidays.ts) reaches
 * moment-timezone only to place equinox holidays in a country's zone; its full zone history is 0.7 MiB of
 * every bundle that computes holidays. Its own build with the zones' rules of 1970-2030 (0.14 MiB) gives the
 * same dates for those years (and the last rules after them).
 */
function momentTimezoneCompact() {
  const compact = require.resolve('moment-timezone/builds/moment-timezone-with-data-1970-2030.js');
  return {
    name: 'moment-timezone-1970-2030',
    setup(build) {
      build.onResolve({ filter: /^moment-timezone$/ }, () => ({ path: compact }));
    },
  };
}

/**
 * `no-holidays-in-system`: `system` reaches the holiday calendars (lib/calendar/holidays.ts) only through the
 * route tables of the OpenAPI document and never computes a holiday; it gets a stub of the library (about
 * 1.5 MiB), which fails only if it were ever used there (lib/calendar makes no instance at import).
 */
const NO_HOLIDAYS = new Set(['functions/http/system']);
function noHolidaysInSystem() {
  return {
    name: 'no-holidays-in-system',
    setup(build) {
      const entries = [].concat(build.initialOptions.entryPoints ?? []).map(normalize);
      if (!entries.some((e) => NO_HOLIDAYS.has(e))) return;
      build.onResolve({ filter: /^date-holidays$/ }, (args) => ({
        path: args.path,
        namespace: 'no-holidays',
      }));
      build.onLoad({ filter: /.*/, namespace: 'no-holidays' }, () => ({
        contents:
          "export default class Holidays { constructor() { throw new Error('The holiday library is not packaged with this function (deploy/esbuild-plugins.cjs)'); } }",
        loader: 'js',
      }));
    },
  };
}

module.exports = (serverless) => [
  sourceDriversOnlyWhereUsed(serverless),
  momentTimezoneCompact(),
  noHolidaysInSystem(),
];
module.exports.DRIVER = DRIVER;
