/**
 * "What drove this change?" on a hotel-size view: GET /api/v1/dataviews/{id}/contributions through the
 * local gateway (Bearer token, JSON answer), on the hotel cube of scripts/synthetic/cube.ts (3,978 series ×
 * 1,096 days, value and count) loaded through the pgsql connector and the load job into database
 * bench_contributions_hotel (kept between runs; --fresh loads it again). Each case: 3 warm-up runs, then
 * --runs (40) timed requests; p50 and p95 go to docs/performance.md (--no-write prints only).
 * `DATABASE_URL=postgres://… npm run bench -- contributions [--fresh] [--runs N] [--no-write]`
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { setContainer } from '../../functions/container';
import { httpFunctions } from '../../functions/http/registry';
import { buildContainer } from '../../lib/app/container';
import { loadConfig } from '../../lib/config/config';
import { openSource } from '../../lib/connectors/index';
import { createDataset, schemaNameFor } from '../../lib/dataset/ddl';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';
import type { JobRow } from '../../lib/jobs/repository';
import { runLoad } from '../../lib/pipeline/load';
import { generateMasterKey } from '../../lib/secrets/index';
import { logger, setLogLevel } from '../../lib/shared/logger';
import { startGateway } from '../local/gateway';
import { CUBE_CATEGORIES, CUBE_SOURCE_DDL, cubeCopyLines, generateCube, HOTEL_CUBE } from '../synthetic/cube';
import { writeSection } from './report';

const DB_NAME = 'bench_contributions_hotel';

/** The hotel view (loaded once): its id. */
async function hotelView(db: Database, url: string): Promise<number> {
  const [existing] = await db.rows<{ id: number }>(sql`SELECT id FROM data_views ORDER BY id LIMIT 1`);
  if (existing) return Number(existing.id);
  const src = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await src.unsafe('DROP TABLE IF EXISTS public.hotel_bookings');
    await src.unsafe(`CREATE TABLE public.hotel_bookings ${CUBE_SOURCE_DDL}`);
    const cube = generateCube(HOTEL_CUBE);
    await pipeline(cubeCopyLines(cube), await src.unsafe('COPY public.hotel_bookings FROM STDIN').writable());
  } finally {
    await src.end({ timeout: 1 });
  }
  const definition = {
    schemaVersion: 3,
    metadata: { name: 'hotel', domain: 'bench' },
    source: {
      connector: 'bench',
      dateColumn: 'day',
      valueColumn: 'revenue',
      countColumn: 'bookings',
      loadMode: 'full',
      trigger: 'api',
      loadQuery:
        'SELECT day, district, hotel, room_type, channel, revenue, bookings FROM public.hotel_bookings',
    },
    categories: CUBE_CATEGORIES.map((c) => ({ ...c, label: c.name })),
    analysis: { fillGapMethod: 'zero', detectors: [] },
  };
  const [row] = await db.rows<{
    id: number;
  }>(sql`INSERT INTO data_views (name, domain, connector, definition, deployed, enabled)
    VALUES ('hotel', 'bench', 'bench', ${JSON.stringify(definition)}::jsonb, true, true) RETURNING id`);
  const id = Number(row.id);
  await db.tx((tx) => createDataset(tx, schemaNameFor(id), { categories: CUBE_CATEGORIES }));
  await db.rows(sql`UPDATE data_views SET schema_name = ${schemaNameFor(id)} WHERE id = ${id}`);
  const open = async () =>
    openSource('pgsql', { conn_string: url }, { timeoutMs: 30_000, queryTimeoutMs: 3_600_000 });
  const t0 = performance.now();
  const { result } = await runLoad(
    { db, log: logger, openSource: open, batchSize: 20_000 },
    { id: 1, dataViewId: id, kind: 'Load' } as JobRow,
    new AbortController().signal,
  );
  console.log(
    `hotel cube loaded: ${result.rows} rows, ${result.series} series in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  return id;
}

interface Measure {
  label: string;
  leaves: number;
  p50: number;
  p95: number;
}

const percentile = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];

/** 30-day windows ending on the cube's last day, from the total down to one hotel. */
const CASES: Array<[string, string]> = [
  ['the whole view (every leaf), value', 'from=2024-12-02&to=2024-12-31'],
  ['the whole view, count', 'from=2024-12-02&to=2024-12-31&measure=count'],
  ['one district', 'from=2024-12-02&to=2024-12-31&categories=district=D01'],
  ['one channel (a fifth of the leaves)', 'from=2024-12-02&to=2024-12-31&categories=channel=C1'],
  ['one hotel', 'from=2024-12-02&to=2024-12-31&categories=hotel=H001'],
];

/** A hotel's series carries its district (the hotel's parent): `hotel=H001` becomes `district=D..;hotel=H001`. */
async function withParents(db: Database, id: number, query: string): Promise<string> {
  const m = /categories=hotel=(H\d+)/.exec(query);
  if (!m) return query;
  const [row] = await db.rows<{ d: string }>(
    sql.raw(`SELECT c_district AS d FROM "${schemaNameFor(id)}".cat_map WHERE c_hotel = '${m[1]}' LIMIT 1`),
  );
  return query.replace(m[0], `categories=district=${row.d};hotel=${m[1]}`);
}

export async function benchContributions(args: string[]): Promise<void> {
  setLogLevel('warn');
  const serverUrl = loadConfig().databaseUrl;
  if (!serverUrl)
    throw new Error(`the contributions benchmark needs DATABASE_URL (it creates ${DB_NAME} there)`);
  const runs = Number(args[args.indexOf('--runs') + 1]) || 40;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  if (args.includes('--fresh')) await admin.unsafe(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  const exists = (await admin`SELECT 1 FROM pg_database WHERE datname = ${DB_NAME}`).length > 0;
  if (!exists) await admin.unsafe(`CREATE DATABASE ${DB_NAME}`);
  const server = (await admin`SHOW server_version`)[0].server_version as string;
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${DB_NAME}`;
  const db = await connectDatabase({ databaseUrl: url.toString(), migrate: true, maxConnections: 5 });
  const id = await hotelView(db, url.toString());
  const [{ series }] = await db.rows<{ series: number }>(
    sql.raw(`SELECT count(*)::int AS series FROM "${schemaNameFor(id)}".cat_map`),
  );
  await db.rows(
    sql`INSERT INTO users (email, role) VALUES ('bench@example.com', 'admin') ON CONFLICT DO NOTHING`,
  );
  const [u] = await db.rows<{ id: number }>(sql`SELECT id FROM users WHERE email = 'bench@example.com'`);
  const container = await buildContainer(
    loadConfig({
      DATABASE_URL: url.toString(),
      JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256',
      MASTER_KEY: generateMasterKey(),
      LOG_LEVEL: 'silent',
    }),
    { db, queue: { backend: 'local', send: async () => {}, redeliver: async () => {} } },
  );
  setContainer(container);
  const gateway = await startGateway(httpFunctions);
  const token = await container.tokens.issue({ id: Number(u.id), email: 'bench@example.com', role: 'admin' });
  const loadBefore = loadavg()[0];
  const measures: Measure[] = [];
  for (const [label, asked] of CASES) {
    const query = await withParents(db, id, asked);
    let leaves = 0;
    const once = async () => {
      const res = await fetch(`${gateway.url}/api/v1/dataviews/${id}/contributions?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as { leaves?: number; detail?: string };
      if (res.status !== 200) throw new Error(`${label}: ${res.status} ${body.detail}`);
      leaves = body.leaves ?? 0;
    };
    for (let i = 0; i < 3; i++) await once();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await once();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const m = { label, leaves, p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
    measures.push(m);
    console.log(
      `${label.padEnd(40)} ${String(leaves).padStart(5)} leaves  p50 ${m.p50.toFixed(1)} ms  p95 ${m.p95.toFixed(1)} ms`,
    );
  }
  const load = `${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
  await gateway.close();
  setContainer(undefined);
  await db.close();
  if (args.includes('--no-write')) return;
  const machine = `${execSync('nproc').toString().trim()} cores, ${execSync("lscpu | grep 'Model name' | sed 's/.*: *//'").toString().trim()}`;
  const section = [
    '## Contributions: "What drove this change?" on a hotel-size view',
    '',
    `Measured by \`npm run bench -- contributions\` (\`scripts/bench/contributions.ts\`) on ${new Date().toISOString().slice(0, 10)}:`,
    `${machine}; PostgreSQL ${server} on the same machine, shared with other work (load average ${load}); Node ${process.version}.`,
    `Data: the hotel cube (scripts/synthetic/cube.ts), ${series} series × ${HOTEL_CUBE.days} days, loaded through the pgsql`,
    'connector and the load job. Each line: `GET /api/v1/dataviews/{id}/contributions` for a 30-day window',
    '(2024-12-02..2024-12-31, baseline 4 weeks) through the local gateway with a Bearer token, 3 warm-up runs then',
    `${runs} timed requests. Leaves = the leaf series under the asked series that were read (only the window and its`,
    'baseline days). Target (issue 28): p95 under 300 ms.',
    '',
    '| Series asked about | leaves | p50 ms | p95 ms |',
    '| --- | ---: | ---: | ---: |',
    ...measures.map((m) => `| ${m.label} | ${m.leaves} | ${m.p50.toFixed(1)} | ${m.p95.toFixed(1)} |`),
  ].join('\n');
  writeSection('bench-contributions', section);
}
