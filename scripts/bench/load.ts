/**
 * Load and series build speed: a hotel-revenue-sized view (≈4,000 series × 3 years, 2.1 M source rows)
 * and a wide one (≈100,000 series × 1 year, sparse leaves), each loaded from a PostgreSQL source
 * through the pgsql connector into the service database on PGlite and on PostgreSQL, against a bare
 * INSERT … SELECT … GROUP BY GROUPING SETS over the same rows. Writes its section of docs/performance.md.
 * `DATABASE_URL=postgres://… npm run bench -- load [--views hotel,wide] [--targets pglite,postgres] [--no-write]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { loadConfig } from '../../lib/config/config';
import { openSource } from '../../lib/connectors/index';
import { codeColumn, createDataset, dictKey, ident, schemaNameFor } from '../../lib/dataset/ddl';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';
import { dataViews } from '../../lib/db/tables/dataviews';
import type { JobRow } from '../../lib/jobs/repository';
import { groupingSets } from '../../lib/pipeline/grouping';
import { runLoad } from '../../lib/pipeline/load';
import { logger, setLogLevel } from '../../lib/shared/logger';
import { writeSection } from './report';

interface ViewSpec {
  key: string;
  title: string;
  table: string;
  fill: string;
  loadQuery: string;
  categories: Array<{ name: string; parent?: string }>;
}

const VIEWS: ViewSpec[] = [
  {
    key: 'hotel',
    title: 'hotel revenue: 6 countries → 24 cities → 190 hotels × 5 channels × 2 room types, 3 years daily',
    table: `CREATE TABLE hotel_revenue (stay_day integer, country text, city text, hotel text, channel text, room text, revenue double precision, nights integer)`,
    fill: `INSERT INTO hotel_revenue
      SELECT to_char(d, 'YYYYMMDD')::int, 'Country ' || (h % 24) % 6, 'City ' || h % 24, 'Hotel ' || h, 'Channel ' || c, 'Room ' || r,
        round((40 + random() * 400)::numeric, 2)::float8, 1 + (h + c + r) % 5
      FROM generate_series(date '2022-01-01', date '2024-12-31', interval '1 day') d,
        generate_series(0, 189) h, generate_series(1, 5) c, generate_series(1, 2) r`,
    loadQuery:
      'SELECT stay_day AS day, country, city, hotel, channel, room, revenue AS amount, nights FROM hotel_revenue',
    categories: [
      { name: 'country' },
      { name: 'city', parent: 'country' },
      { name: 'hotel', parent: 'city' },
      { name: 'channel' },
      { name: 'room' },
    ],
  },
  {
    key: 'wide',
    title:
      'wide: 20 regions → 2,000 stores × 49 product lines, 1 year daily, a leaf sells on about 1 day in 4',
    table: `CREATE TABLE store_sales (sale_day integer, region text, store text, line text, revenue double precision, nights integer)`,
    fill: `INSERT INTO store_sales
      SELECT to_char(d, 'YYYYMMDD')::int, 'Region ' || s % 20, 'Store ' || s, 'Line ' || l, round((5 + random() * 95)::numeric, 2)::float8, 1
      FROM generate_series(date '2024-01-01', date '2024-12-30', interval '1 day') d, generate_series(0, 1999) s, generate_series(1, 49) l
      WHERE random() < 0.25`,
    loadQuery: 'SELECT sale_day AS day, region, store, line, revenue AS amount, nights FROM store_sales',
    categories: [{ name: 'region' }, { name: 'store', parent: 'region' }, { name: 'line' }],
  },
];

const seconds = (ms: number) => (ms / 1000).toFixed(1);

interface Result {
  view: string;
  target: string;
  rows: number;
  series: number;
  dataRows: number;
  filledRows: number;
  streamMs: number;
  buildMs: number;
  bareCodedMs: number;
  bareTextMs: number;
}

/** Times a bare INSERT … SELECT … GROUP BY GROUPING SETS over int (codes) and over a text copy of it. */
async function bare(db: Database, schema: string, spec: ViewSpec): Promise<{ coded: number; text: number }> {
  const s = ident(schema);
  const sets = groupingSets(spec.categories);
  const k = spec.categories.map((c) => codeColumn(c.name));
  const t = spec.categories.map((c) => ident(`t_${c.name}`));
  const setsOf = (cols: string[]) =>
    sets.map((g) => `(day${g.members.map((i) => `, ${cols[i]}`).join('')})`).join(', ');
  const workMem = db.kind === 'pglite' ? '64MB' : '256MB';
  const time = async (build: (tx: Database) => Promise<void>) =>
    db.tx(async (tx) => {
      await tx.rows(sql.raw(`SET LOCAL work_mem = '${workMem}'`));
      const t0 = performance.now();
      await build(tx);
      return performance.now() - t0;
    });
  const coded = await time(async (tx) => {
    await tx.rows(
      sql.raw(`CREATE TABLE ${s}.bare (day int, ${k.map((c) => `${c} int`).join(', ')}, v float8, n float8)`),
    );
    await tx.rows(
      sql.raw(
        `INSERT INTO ${s}.bare SELECT day, ${k.join(', ')}, sum(value), sum(cnt) FROM ${s}."int" GROUP BY GROUPING SETS (${setsOf(k)})`,
      ),
    );
  });
  // The text copy is set up outside the timing: it is what a load without codes would have in int.
  const joins = spec.categories
    .map((c, i) => `JOIN ${s}.dict d${i} ON d${i}.category = '${dictKey(c.name)}' AND d${i}.code = i.${k[i]}`)
    .join(' ');
  await db.rows(
    sql.raw(
      `CREATE TABLE ${s}.int_text AS SELECT i.day, ${t.map((c, i) => `d${i}.value AS ${c}`).join(', ')}, i.value, i.cnt FROM ${s}."int" i ${joins}`,
    ),
  );
  await db.rows(sql.raw(`ANALYZE ${s}.int_text`));
  const text = await time(async (tx) => {
    await tx.rows(
      sql.raw(
        `CREATE TABLE ${s}.bare_text (day int, ${t.map((c) => `${c} text`).join(', ')}, v float8, n float8)`,
      ),
    );
    await tx.rows(
      sql.raw(
        `INSERT INTO ${s}.bare_text SELECT day, ${t.join(', ')}, sum(value), sum(cnt) FROM ${s}.int_text GROUP BY GROUPING SETS (${setsOf(t)})`,
      ),
    );
  });
  await db.rows(sql.raw(`DROP TABLE ${s}.int_text, ${s}.bare, ${s}.bare_text`));
  return { coded, text };
}

async function benchOne(db: Database, sourceUrl: string, spec: ViewSpec, target: string): Promise<Result> {
  const definition = {
    schemaVersion: 3,
    metadata: { name: `bench_${spec.key}`, domain: 'bench' },
    source: {
      connector: 'bench',
      dateColumn: 'day',
      valueColumn: 'amount',
      countColumn: 'nights',
      loadMode: 'full',
      trigger: 'api',
      loadQuery: spec.loadQuery,
    },
    categories: spec.categories.map((c) => ({ ...c, label: c.name })),
    analysis: {
      fillGapMethod: 'zero',
      ignoreLastNDays: 0,
      scanInLastNDays: 0,
      detectors: [],
      specialDates: [],
      recurringRules: [],
      specialPeriods: [],
    },
  };
  const [view] = await db.orm
    .insert(dataViews)
    .values({
      name: definition.metadata.name,
      domain: 'bench',
      connector: 'bench',
      definition,
      deployed: true,
      enabled: true,
    })
    .returning();
  const id = view.id as number;
  await db.tx((tx) => createDataset(tx, schemaNameFor(id), { categories: spec.categories }));
  const open = async () =>
    openSource('pgsql', { conn_string: sourceUrl }, { timeoutMs: 30_000, queryTimeoutMs: 3_600_000 });
  const job = { id: 1, dataViewId: id, kind: 'Load' } as JobRow;
  const { result } = await runLoad(
    { db, log: logger, openSource: open, batchSize: 20_000 },
    job,
    new AbortController().signal,
  );
  console.log(
    `  ${target} ${spec.key}: ${result.rows} rows streamed in ${seconds(result.streamMs)} s, ${result.series} series built in ${seconds(result.buildMs)} s`,
  );
  console.log(`    build steps (ms): ${JSON.stringify(result.buildSteps)}`);
  const b = await bare(db, schemaNameFor(id), spec);
  console.log(
    `  ${target} ${spec.key}: bare GROUPING SETS ${seconds(b.coded)} s over codes, ${seconds(b.text)} s over text`,
  );
  return { view: spec.key, target, ...result, bareCodedMs: b.coded, bareTextMs: b.text };
}

async function withServerDatabase<T>(url: string, name: string, fn: (url: string) => Promise<T>): Promise<T> {
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  try {
    return await fn(u.toString());
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

function markdown(
  results: Result[],
  started: Date,
  load: { start: number; end: number; server: string },
): string {
  const row = (r: Result) =>
    `| ${r.view} | ${r.target} | ${r.rows.toLocaleString('en')} | ${r.series.toLocaleString('en')} | ${(r.dataRows + r.filledRows).toLocaleString('en')} (${r.filledRows.toLocaleString('en')} filled) | ${seconds(r.streamMs)} | ${seconds(r.buildMs)} | **${seconds(r.streamMs + r.buildMs)}** | ${seconds(r.bareCodedMs)} / ${seconds(r.bareTextMs)} | ${(r.buildMs / r.bareTextMs).toFixed(2)} / ${(r.buildMs / r.bareCodedMs).toFixed(2)} |`;
  return [
    `Measured by \`npm run bench -- load\` (\`scripts/bench/load.ts\`) on ${started.toISOString().slice(0, 10)}: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${load.server} on the same machine with default settings, shared with other work (load average ${load.start.toFixed(1)} at the start, ${load.end.toFixed(1)} at the end). The source is a PostgreSQL database on that server, read through the pgsql connector in batches of 20,000 rows; PGlite runs in the benchmark's process on a data folder on disk. Times are one run each.`,
    '',
    ...VIEWS.filter((v) => results.some((r) => r.view === v.key)).map((v) => `- **${v.key}**: ${v.title}`),
    '',
    '| view | service database | source rows | series | data rows | stream + check + stage (s) | series build (s) | load total (s) | bare GROUPING SETS codes / text (s) | build ÷ bare text / codes |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(row),
  ].join('\n');
}

/** Runs the load benchmark; `args` as given after `npm run bench -- load`. */
export async function benchLoad(args: string[]): Promise<void> {
  setLogLevel('warn');
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const views = VIEWS.filter((v) => (opt('views') ?? 'hotel,wide').split(',').includes(v.key));
  const serverUrl = loadConfig().databaseUrl;
  if (!serverUrl)
    throw new Error(
      'the load benchmark needs DATABASE_URL (a PostgreSQL server for the source and the PostgreSQL run)',
    );
  const targets = (opt('targets') ?? 'postgres,pglite').split(',');
  const started = new Date();
  const loadStart = os.loadavg()[0];
  const version = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const [{ v }] = await version`SELECT split_part(version(), ' on ', 1) AS v`;
  await version.end();
  const results: Result[] = [];
  await withServerDatabase(serverUrl, 'bench_load_source', async (sourceUrl) => {
    const src = postgres(sourceUrl, { max: 1, onnotice: () => {} });
    for (const v of views) {
      const t0 = performance.now();
      await src.unsafe(v.table);
      await src.unsafe(v.fill);
      await src.unsafe(`ANALYZE`);
      console.log(`source ${v.key} generated in ${seconds(performance.now() - t0)} s`);
    }
    await src.end();
    for (const target of targets) {
      for (const v of views) {
        if (target === 'postgres') {
          results.push(
            await withServerDatabase(serverUrl, 'bench_load_service', async (url) => {
              const db = await connectDatabase({ databaseUrl: url, migrate: true });
              try {
                return await benchOne(db, sourceUrl, v, target);
              } finally {
                await db.close();
              }
            }),
          );
        } else {
          const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pglite-'));
          const db = await connectDatabase({ pgliteDir: dir, migrate: true });
          try {
            results.push(await benchOne(db, sourceUrl, v, target));
          } finally {
            await db.close();
            rmSync(dir, { recursive: true, force: true });
          }
        }
      }
    }
  });
  const text = markdown(results, started, { start: loadStart, end: os.loadavg()[0], server: String(v) });
  console.log(`\n${text}\n`);
  if (!args.includes('--no-write')) writeSection('bench-load', text, { heading: 'Load and series build' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchLoad(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
