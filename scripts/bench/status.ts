/**
 * How fast GET /dataviews/{id}/status answers while a large load runs: the status use case is called
 * every 100 ms on its own connection pool during a load (stream, stage, then the series build that drops
 * and renames tables under exclusive locks), next to the former way of counting (count(*) of every data
 * table and the dataset summary's scans) and a `SELECT 1` baseline. The load runs in a child process, as
 * it does in its own worker function in the service. Prints the latencies and a Markdown table.
 * `--db pglite`: the service database is the embedded PGlite served as `npm start` serves it
 * (scripts/local/pglite-server.ts, in a process of its own, every client through the socket), the source
 * stays on the PostgreSQL server (a source on the same PGlite would hold it for the whole read: the pgsql
 * connector reads in one transaction); the former counting is left out there (it would hold the one
 * embedded session for seconds and slow every other reader).
 * `DATABASE_URL=postgres://… npm run bench -- status [--db postgres|pglite] [--scale small|hotel] [--hotels 95] [--days 730]`
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openSource } from '../../lib/connectors/index';
import { createDataset, DATA_TABLES, ident, schemaNameFor } from '../../lib/dataset/ddl';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';
import { dataViews } from '../../lib/db/tables/dataviews';
import { getDataViewStatus } from '../../lib/jobs/view-status';
import { systemCaller } from '../../lib/identity/caller';
import type { JobRow } from '../../lib/jobs/repository';
import { runLoad } from '../../lib/pipeline/load';
import { systemClock } from '../../lib/shared/clock';
import { logger, setLogLevel } from '../../lib/shared/logger';

const argv = process.argv.slice(2);
const opt = (name: string, d: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : d;
};
const URL_ = process.env.DATABASE_URL;
/** small: 12 hotels × 1 year (43,800 rows); hotel: 190 hotels × 3 years (2.08 M rows, as bench-load's hotel view). */
const SCALES: Record<string, { hotels: number; days: number }> = {
  small: { hotels: 12, days: 365 },
  hotel: { hotels: 190, days: 1096 },
};
const SCALE = SCALES[opt('--scale', '')] ?? { hotels: 95, days: 730 };
const HOTELS = Number(opt('--hotels', String(SCALE.hotels)));
const DAYS = Number(opt('--days', String(SCALE.days)));
const TARGET = opt('--db', 'postgres') === 'pglite' ? 'pglite' : 'postgres';
const DB_NAME = 'bench_status';

/** The child that serves a PGlite data folder as `npm start` does; prints its URL, stops when its stdin closes. */
async function childServe(dir: string): Promise<void> {
  const { servePglite } = await import('../local/pglite-server');
  const served = await servePglite(dir);
  console.log(`URL ${served.url}`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void served.close().then(() => process.exit(0));
  });
}

function serveInChild(dir: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--child-serve', dir], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /URL (\S+)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.on('exit', (code) => reject(new Error(`PGlite server child exited ${code}`)));
  });
}

/** The way status counted before: count(*) per data table and the summary's min/max/count scans. */
async function formerCounts(db: Database, schema: string): Promise<void> {
  const s = ident(schema);
  for (const t of DATA_TABLES) await db.rows(sql.raw(`SELECT count(*)::bigint AS n FROM ${s}.${ident(t)}`));
  await db.rows(
    sql.raw(`SELECT (SELECT min(first_day) FROM ${s}.all_series), (SELECT max(last_day) FROM ${s}.all_series),
      (SELECT count(*) FROM ${s}.all_series), (SELECT count(*) FROM ${s}.all_anomalies)`),
  );
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { n: s.length, p50: q(0.5), p95: q(0.95), max: s[s.length - 1] ?? 0 };
}

/** The child: one load of view `id` as job `jobId` in the database at `url` from the source at `sourceUrl`; prints its result as JSON. */
async function childLoad(url: string, sourceUrl: string, id: number, jobId: number): Promise<void> {
  setLogLevel('warn');
  const db = await connectDatabase({ databaseUrl: url, maxConnections: 4 });
  const open = async () =>
    openSource('pgsql', { conn_string: sourceUrl }, { timeoutMs: 30_000, queryTimeoutMs: 3_600_000 });
  const { result } = await runLoad(
    { db, log: logger, openSource: open, batchSize: 20_000 },
    { id: jobId, dataViewId: id, kind: 'Load', attempts: 1, detail: {} } as unknown as JobRow,
    new AbortController().signal,
  );
  console.log(JSON.stringify(result));
  await db.close();
}

function loadInChild(url: string, sourceUrl: string, id: number, jobId: number): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', import.meta.filename, '--child-load', url, sourceUrl, String(id), String(jobId)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()!))
        : reject(new Error(`load child exited ${code}`)),
    );
  });
}

async function main() {
  const child = argv.indexOf('--child-load');
  if (child >= 0)
    return childLoad(argv[child + 1], argv[child + 2], Number(argv[child + 3]), Number(argv[child + 4]));
  const serve = argv.indexOf('--child-serve');
  if (serve >= 0) return childServe(argv[serve + 1]);
  if (!URL_)
    throw new Error('set DATABASE_URL to a PostgreSQL server (this measures concurrent connections)');
  setLogLevel('warn');
  const admin = postgres(URL_, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${DB_NAME}`);
  const u = new URL(URL_);
  u.pathname = `/${DB_NAME}`;
  const sourceUrl = u.toString();
  const loadAvg = [os.loadavg()[0]];
  const dir = TARGET === 'pglite' ? mkdtempSync(path.join(os.tmpdir(), 'bench-status-')) : undefined;
  const served = dir ? await serveInChild(dir) : undefined;
  const url = served?.url ?? sourceUrl;
  try {
    const src = postgres(sourceUrl, { max: 1, onnotice: () => {} });
    const db = await connectDatabase({ databaseUrl: url, migrate: true, maxConnections: 4 });
    const reader = await connectDatabase({ databaseUrl: url, maxConnections: 5 }); // as a function container
    const former = served ? undefined : await connectDatabase({ databaseUrl: url, maxConnections: 1 });
    const baseline = await connectDatabase({ databaseUrl: url, maxConnections: 1 });
    await src.unsafe(`CREATE TABLE hotel_revenue (stay_day integer, country text, city text, hotel text, channel text, room text, revenue double precision, nights integer);
      INSERT INTO hotel_revenue
        SELECT to_char(d, 'YYYYMMDD')::int, 'Country ' || (h % 24) % 6, 'City ' || h % 24, 'Hotel ' || h, 'Channel ' || c, 'Room ' || r,
          round((40 + random() * 400)::numeric, 2)::float8, 1 + (h + c + r) % 5
        FROM generate_series(date '2023-01-01', date '2023-01-01' + ${DAYS - 1}, interval '1 day') d,
          generate_series(0, ${HOTELS - 1}) h, generate_series(1, 5) c, generate_series(1, 2) r`);
    await src.end();
    const categories = [
      { name: 'country' },
      { name: 'city', parent: 'country' },
      { name: 'hotel', parent: 'city' },
      { name: 'channel' },
      { name: 'room' },
    ];
    const definition = {
      schemaVersion: 3,
      metadata: { name: 'bench_status', domain: 'bench' },
      source: {
        connector: 'bench',
        dateColumn: 'day',
        valueColumn: 'amount',
        countColumn: 'nights',
        loadMode: 'full',
        trigger: 'api',
        loadQuery:
          'SELECT stay_day AS day, country, city, hotel, channel, room, revenue AS amount, nights FROM hotel_revenue',
      },
      categories: categories.map((c) => ({ ...c, label: c.name })),
      analysis: {
        fillGapMethod: 'zero',
        detectors: [],
        specialDates: [],
        recurringRules: [],
        specialPeriods: [],
      },
    };
    const [view] = await db.orm
      .insert(dataViews)
      .values({
        name: 'bench_status',
        domain: 'bench',
        connector: 'bench',
        definition,
        deployed: true,
        enabled: true,
      })
      .returning();
    const id = view.id as number;
    const schema = schemaNameFor(id);
    await db.orm.update(dataViews).set({ schemaName: schema }).where(sql`id = ${id}`);
    await db.tx((tx) => createDataset(tx, schema, { categories }));
    const [inserted] = await db.rows<{ id: number }>(
      sql`INSERT INTO jobs (data_view_id, kind, status, trigger, attempts, started_at) VALUES (${id}, 'Load', 'running', 'api', 1, now()) RETURNING *`,
    );
    const open = async () =>
      openSource('pgsql', { conn_string: sourceUrl }, { timeoutMs: 30_000, queryTimeoutMs: 3_600_000 });

    // Two loads: the first fills the tables (so the second replaces real data), the second is measured.
    const load = () =>
      runLoad(
        { db, log: logger, openSource: open, batchSize: 20_000 },
        {
          id: Number(inserted.id),
          dataViewId: id,
          kind: 'Load',
          attempts: 1,
          detail: {},
        } as unknown as JobRow,
        new AbortController().signal,
      );
    await load();
    const statusMs: number[] = [];
    const formerMs: number[] = [];
    const baselineMs: number[] = [];
    let running = true;
    const t0 = performance.now();
    const loading = loadInChild(url, sourceUrl, id, Number(inserted.id)).finally(() => {
      running = false;
    });
    const poll = async (into: number[], fn: () => Promise<unknown>) => {
      while (running) {
        const t = performance.now();
        await fn();
        into.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const deps = { db: reader, clock: systemClock, config: { timeZone: 'UTC' } };
    await Promise.all([
      poll(statusMs, () => getDataViewStatus(deps, systemCaller(), id)),
      former ? poll(formerMs, () => formerCounts(former, schema)) : undefined,
      poll(baselineMs, () => baseline.rows(sql`SELECT 1`)),
      loading,
    ]);
    const result = await loading;
    const loadMs = performance.now() - t0;
    loadAvg.push(os.loadavg()[0]);
    const a = stats(statusMs);
    const b = stats(formerMs);
    const c = stats(baselineMs);
    const f = (x: number) => x.toFixed(x < 10 ? 1 : 0);
    const lines = [
      `Measured by \`scripts/bench/status.ts --db ${TARGET}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${os.cpus().length} cores, Node ${process.version}, ${served ? 'the embedded PGlite served as `npm start` serves it (source on PostgreSQL)' : 'PostgreSQL on the same machine'}, shared with other work (load average ${loadAvg[0].toFixed(1)} → ${loadAvg[1].toFixed(1)}). A full load of ${result.rows.toLocaleString('en')} source rows into ${result.series.toLocaleString('en')} series (${(result.dataRows + result.filledRows).toLocaleString('en')} data rows) replacing the same data, ${(loadMs / 1000).toFixed(1)} s; the load runs in its own process (as in its worker function) and each reader polls every 100 ms on its own connections while it runs.`,
      '',
      '| reader | calls during the load | p50 (ms) | p95 (ms) | max (ms) |',
      '|---|---|---|---|---|',
      `| status use case (job records, pg_class estimates) | ${a.n} | ${f(a.p50)} | ${f(a.p95)} | ${f(a.max)} |`,
      ...(former
        ? [
            `| former counting (count(*) per table, summary scans) | ${b.n} | ${f(b.p50)} | ${f(b.p95)} | ${f(b.max)} |`,
          ]
        : []),
      `| baseline: \`SELECT 1\` (what the loaded machine allows) | ${c.n} | ${f(c.p50)} | ${f(c.p95)} | ${f(c.max)} |`,
      '',
      `Load: read ${(result.streamMs / 1000).toFixed(1)} s, build ${(result.buildMs / 1000).toFixed(1)} s; build steps (ms): ${JSON.stringify(result.buildSteps)}` +
        (result.buildStatements
          ? `; ${result.buildStatements.toLocaleString('en')} build statements, ${result.longStatements} of them ≥ 100 ms, the longest ${result.longestStatementMs} ms (${result.longestStatementStep})`
          : ''),
    ];
    console.log(lines.join('\n'));
    await reader.close();
    await former?.close();
    await baseline.close();
    await db.close();
  } finally {
    if (served) {
      served.child.stdin!.end();
      await new Promise((r) => served.child.once('exit', r));
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
