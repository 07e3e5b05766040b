/**
 * Filter speed on PostgreSQL: 1,000,000 anomalies in 10 data views; by-filter Top 100 (p50/p95) per time range
 * and sortBy, through the use case and over HTTP, and aggregation of 10,000 anomalies. Writes its section of
 * docs/performance.md. `DATABASE_URL=postgres://… npm run bench -- filters [--fresh] [--no-write]`
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { sql } from 'drizzle-orm';
import { httpFunctions } from '../../functions/http/registry';
import { anomaliesByFilter } from '../../lib/anomalies/use-cases';
import { setContainer } from '../../functions/container';
import { buildContainer } from '../../lib/app/container';
import { loadConfig } from '../../lib/config/config';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';
import { createDataset, ident, schemaNameFor } from '../../lib/dataset/ddl';
import { createFilter } from '../../lib/filters/service';
import type { FilterDefinition, SortBy } from '../../lib/filters/types';
import type { Caller } from '../../lib/identity/caller';
import { generateMasterKey } from '../../lib/secrets/index';
import { fixedClock } from '../../lib/shared/clock';
import { setLogLevel } from '../../lib/shared/logger';
import { type Measure, writeFiltersSection } from './filters-report';
import { startGateway } from '../local/gateway';

const VIEWS = 10;
const PER_VIEW = 100_000;
const SERIES = 2_000;
const RUNS = 40;
const NOW = '2025-01-01T06:00:00Z';
const clock = fixedClock(NOW);

async function openBenchDatabase(serverUrl: string, fresh: boolean): Promise<{ db: Database; url: string }> {
  const { default: postgres } = await import('postgres');
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const exists = (await admin`SELECT 1 FROM pg_database WHERE datname = 'bench_filters'`).length > 0;
  if (exists && fresh) await admin.unsafe('DROP DATABASE bench_filters WITH (FORCE)');
  if (!exists || fresh) await admin.unsafe('CREATE DATABASE bench_filters');
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = '/bench_filters';
  return {
    db: await connectDatabase({ databaseUrl: url.toString(), migrate: true, maxConnections: 5 }),
    url: url.toString(),
  };
}

/** Ten deployed views, each with 2,000 series over 4 categories and 100,000 anomalies over 2023-2024. */
async function generate(db: Database): Promise<void> {
  const [{ n }] = await db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM data_views`);
  if (n === VIEWS) return;
  const categories = ['Region', 'Country', 'Product', 'Channel'].map((name) => ({ name, label: name }));
  for (let v = 1; v <= VIEWS; v++) {
    const started = performance.now();
    const definition = { schemaVersion: 3, metadata: { domain: 'bench', name: `view${v}` }, categories };
    const [row] = await db.rows<{
      id: number;
    }>(sql`INSERT INTO data_views (name, domain, connector, definition)
      VALUES (${`view${v}`}, 'bench', 'demo', ${JSON.stringify(definition)}::jsonb) RETURNING id`);
    const schema = schemaNameFor(Number(row.id));
    const s = ident(schema);
    await db.tx(async (tx) => {
      await createDataset(tx, schema, { categories });
      await tx.rows(sql.raw(`SELECT setseed(${v / 100})`));
      await tx.rows(
        sql.raw(`INSERT INTO ${s}.cat_map (series_id, c_region, c_country, c_product, c_channel, level, series_key)
        SELECT g, r, c, p, h, (r IS NOT NULL)::int + (c IS NOT NULL)::int + (p IS NOT NULL)::int + (h IS NOT NULL)::int,
               json_build_array(r, c, p, h)::text || g
        FROM (SELECT g,
                CASE WHEN random() < 0.1 THEN NULL ELSE 'R' || floor(random() * 5)::int END AS r,
                CASE WHEN random() < 0.2 THEN NULL ELSE 'C' || floor(random() * 30)::int END AS c,
                CASE WHEN random() < 0.3 THEN NULL ELSE 'P' || floor(random() * 100)::int END AS p,
                CASE WHEN random() < 0.3 THEN NULL ELSE 'H' || floor(random() * 4)::int END AS h
              FROM generate_series(1, ${SERIES}) g) x`),
      );
      await tx.rows(
        sql.raw(`INSERT INTO ${s}.all_anomalies (series_id, type, start_date, end_date, duration, actual_value,
          predicted_value, change, change_pct, change_cum, share_pct, recurrence, result, sin, sim)
        SELECT series_id, type, start_date, start_date + (dur - 1), dur, actual, predicted, actual - predicted,
               100 * (actual - predicted) / predicted, (actual - predicted) * dur, share, rec,
               CASE WHEN actual >= predicted THEN 'Positive' ELSE 'Negative' END,
               2 * share / 100 + abs(actual - predicted) / predicted + 1.5 * dur / 14.0,
               (share / 100) * (abs(actual - predicted) / predicted) * (dur / 14.0) / (1 + ln(rec + 1))
        FROM (SELECT 1 + floor(random() * ${SERIES})::int AS series_id,
                (ARRAY['DOD', 'WOW', 'MOM', 'Spike', 'Gap', 'ChangePoint'])[1 + floor(random() * 6)::int] AS type,
                DATE '2023-01-01' + floor(random() * 731)::int AS start_date,
                1 + floor(random() * random() * 14)::int AS dur,
                p AS predicted, p * (0.3 + random() * 1.4) AS actual,
                random() * 100 AS share, floor(random() * 5)::int AS rec
              FROM (SELECT 100 + random() * 1000 AS p FROM generate_series(1, ${PER_VIEW})) g) x`),
      );
      await tx.rows(
        sql`UPDATE data_views SET deployed = true, enabled = true, schema_name = ${schema} WHERE id = ${row.id}`,
      );
    });
    await db.rows(sql.raw(`ANALYZE ${s}.all_anomalies`));
    await db.rows(sql.raw(`ANALYZE ${s}.cat_map`));
    console.log(`view ${v}: ${PER_VIEW} anomalies in ${Math.round(performance.now() - started)} ms`);
  }
}

async function benchCaller(db: Database): Promise<Caller> {
  await db.rows(
    sql`INSERT INTO users (email, role) VALUES ('bench@example.com', 'admin') ON CONFLICT DO NOTHING`,
  );
  const [u] = await db.rows<{ id: number }>(sql`SELECT id FROM users WHERE email = 'bench@example.com'`);
  return {
    userId: Number(u.id),
    email: 'bench@example.com',
    role: 'admin',
    permissions: new Set(['read', 'process', 'admin']),
    via: 'token',
    dataViews: 'all',
  };
}

/** Median ms to INSERT one view's 100,000 anomalies into a copy with the original indexes, and with all of them. */
async function indexWriteCost(db: Database): Promise<{ before: number; after: number }> {
  const [{ schema_name: schema }] = await db.rows<{ schema_name: string }>(
    sql`SELECT schema_name FROM data_views ORDER BY id LIMIT 1`,
  );
  const source = `${ident(schema)}.all_anomalies`;
  const once = async (all: boolean) => {
    await db.rows(sql.raw('DROP TABLE IF EXISTS bench_write'));
    if (all) await db.rows(sql.raw(`CREATE TABLE bench_write (LIKE ${source} INCLUDING ALL)`));
    else {
      await db.rows(sql.raw(`CREATE TABLE bench_write (LIKE ${source} INCLUDING DEFAULTS)`));
      await db.rows(sql.raw('ALTER TABLE bench_write ADD PRIMARY KEY (id)'));
      await db.rows(sql.raw('CREATE INDEX ON bench_write (start_date)'));
      await db.rows(sql.raw('CREATE INDEX ON bench_write (series_id)'));
    }
    const t0 = performance.now();
    await db.rows(sql.raw(`INSERT INTO bench_write SELECT * FROM ${source}`));
    return performance.now() - t0;
  };
  const median = async (all: boolean) => {
    const times = [await once(all), await once(all), await once(all)].sort((a, b) => a - b);
    return times[1];
  };
  const result = { before: await median(false), after: await median(true) };
  await db.rows(sql.raw('DROP TABLE IF EXISTS bench_write'));
  console.log(
    `INSERT 100,000 anomalies: ${result.before.toFixed(0)} ms before, ${result.after.toFixed(0)} ms with the filter indexes`,
  );
  return result;
}

const percentile = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];

async function time(label: string, runs: number, fn: () => Promise<number>): Promise<Measure> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    rows = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const m = { label, p50: percentile(times, 0.5), p95: percentile(times, 0.95), rows };
  console.log(
    `${label.padEnd(62)} p50 ${m.p50.toFixed(1).padStart(7)} ms  p95 ${m.p95.toFixed(1).padStart(7)} ms  (${rows})`,
  );
  return m;
}

const TOP_CASES: Array<[string, Partial<FilterDefinition>]> = [
  ['Yesterday', { timeRange: 'Yesterday' }],
  ['Last 7 Days', { timeRange: 'Last 7 Days' }],
  ['Last 30 Days', { timeRange: 'Last 30 Days' }],
  ['Previous Month', { timeRange: 'Previous Month' }],
  ['This Year (1 day)', { timeRange: 'This Year' }],
  ['Previous Year (half the data)', { timeRange: 'Previous Year' }],
  [
    'Custom 2023-01-01..2024-12-31 (all 1,000,000)',
    { timeRange: 'Custom', dateFrom: '2023-01-01', dateTo: '2024-12-31' },
  ],
  [
    'Last 30 Days, Negative, Country=C7, change % ≥ 20',
    {
      timeRange: 'Last 30 Days',
      anomalyResult: 'Negative',
      categoriesFilter: 'Country=C7',
      changePctFrom: 20,
    },
  ],
];
const SORTS: SortBy[] = ['SIN', 'Date', 'Change %', 'Category Share %'];

/** The bench (`npm run bench -- filters [--fresh] [--no-write]`); needs DATABASE_URL. */
export async function benchFilters(args: string[]): Promise<void> {
  setLogLevel('warn');
  const serverUrl = loadConfig().databaseUrl;
  if (!serverUrl)
    throw new Error('the filters benchmark needs DATABASE_URL (it creates database bench_filters there)');
  const { db, url } = await openBenchDatabase(serverUrl, args.includes('--fresh'));
  await generate(db);
  const loadBefore = loadavg()[0];
  const caller = await benchCaller(db);
  const deps = { db, clock, timeZone: 'UTC' };
  const save = async (name: string, body: Partial<FilterDefinition>) =>
    (await createFilter(db, caller, { name, ...body })).id;

  const top: Measure[] = [];
  for (const [label, body] of TOP_CASES) {
    for (const sortBy of label.startsWith('Last 30 Days') || label.startsWith('Custom')
      ? SORTS
      : (['SIN'] as SortBy[])) {
      const id = await save(`${label} by ${sortBy}`, { ...body, sortBy, limit: 100 });
      top.push(
        await time(
          `${label}, ${sortBy}`,
          RUNS,
          async () => (await anomaliesByFilter(deps, caller, id)).anomalies.length,
        ),
      );
    }
  }

  const aggregation: Measure[] = [];
  const window = { timeRange: 'Custom', dateFrom: '2024-06-01', dateTo: '2024-06-04' } as const;
  for (const mode of ['Hierarchical', 'Graph'] as const) {
    // limit 10000 returns every aggregate, so their members add up to the anomalies aggregated.
    const id = await save(`aggregate ${mode}`, {
      ...window,
      isAggregated: true,
      aggregationMode: mode,
      minCommonCategories: 2,
      limit: 10_000,
    });
    aggregation.push(
      await time(`by-filter with ${mode} aggregation, 2024-06-01..04`, 10, async () => {
        const a = await anomaliesByFilter(deps, caller, id);
        return (a.aggregates ?? []).reduce((n, g) => n + g.n, 0);
      }),
    );
  }

  const http: Measure[] = [];
  const container = await buildContainer(
    loadConfig({
      DATABASE_URL: url,
      JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256',
      MASTER_KEY: generateMasterKey(),
      LOG_LEVEL: 'silent',
    }),
    { db, clock, queue: { backend: 'local', send: async () => {}, redeliver: async () => {} } },
  );
  setContainer(container);
  const gateway = await startGateway(httpFunctions);
  const token = await container.tokens.issue({ id: caller.userId, email: caller.email, role: 'admin' });
  const httpCases = TOP_CASES.filter(([label]) => label === 'Last 30 Days' || label.startsWith('Custom'));
  for (const [label, body] of httpCases) {
    const id = await save(`http ${label}`, { ...body, sortBy: 'SIN', limit: 100 });
    http.push(
      await time(`HTTP GET by-filter: ${label}, SIN`, RUNS, async () => {
        const res = await fetch(`${gateway.url}/api/v1/anomalies/by-filter/${id}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return ((await res.json()) as { anomalies: unknown[] }).anomalies.length;
      }),
    );
  }
  await gateway.close();
  const writes = await indexWriteCost(db);
  const load = `${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
  setContainer(undefined);
  await db.rows(sql`DELETE FROM filters`);
  await db.close();

  if (!args.includes('--no-write')) {
    const machine = `${execSync('nproc').toString().trim()} cores, ${execSync("lscpu | grep 'Model name' | sed 's/.*: *//'").toString().trim()}`;
    const { default: postgres } = await import('postgres');
    const client = postgres(serverUrl, { max: 1 });
    const server = (await client`SHOW server_version`)[0].server_version as string;
    await client.end();
    writeFiltersSection(
      { machine, server, load, writes, runs: RUNS, top, aggregation, http },
      { views: VIEWS, perView: PER_VIEW, series: SERIES, now: NOW },
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchFilters(process.argv.slice(2)).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
