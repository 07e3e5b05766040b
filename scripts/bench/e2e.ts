/**
 * End to end, as a user meets it: a deterministic hotel-chain source (scripts/synthetic/cube.ts:
 * district → hotel, room type, channel; sparse leaves, seasonality, injected anomalies) in a source
 * table, the service started as `npm start` starts it (scripts/start.ts, a temporary DATA_DIR and a free
 * port; DATABASE_URL for PostgreSQL, none for the embedded PGlite), then through HTTP only: a connector,
 * a data view (dod, wow, spike, dt, changepoint, gap on their defaults), POST load, and the times to
 * load finished, detection finished and the first Top 100 answer, with the latency of status and
 * anomaly queries polled while the jobs run. The floor is measured in the same run on the source
 * server: COPY of the source table out and in, and a bare GROUPING SETS cube over integer codes.
 *
 * `DATABASE_URL=postgres://… npm run bench -- e2e --scale small|hotel|big-10k|big [--targets postgres,pglite]
 *   [--fan-out on,off] [--shard-size N] [--load-split off,ROWS:CHUNKS] [--db-prefix NAME] [--no-floor] [--no-write] [--daily N]`
 * Without DATABASE_URL the source is a PGlite served on 127.0.0.1 and only the embedded target runs.
 * `--fan-out on,off` runs each target once per setting (DETECTION_FAN_OUT of the service: `off` = one worker
 * detects every shard one after another; `on` = one shard message, hence one worker, per shard), both on the
 * same source; `--shard-size` sets DETECTION_SHARD_SIZE; `--load-split off,1:2` runs each once per load setting
 * (LOAD_SPLIT_ROWS:LOAD_PART_CHUNKS: a full load of more rows runs in parts of that many 112-day chunks). Memory per worker comes from the workers' own
 * "worker memory" log lines (functions/workers/memory-probe.ts: the isolate's heap and external memory).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { fromEpochDay, toEpochDay } from '../../lib/calendar/days';
import { MAX_CUSTOM_RANGE_DAYS } from '../../lib/filters/time-range';
import { groupingSets } from '../../lib/pipeline/grouping';
import {
  DAILY_DAYS,
  DAILY_HEADER,
  type DailyCycle,
  dailyCycles,
  dailyRows,
  dailyUsageLines,
} from './e2e-daily';
import { cycleUsage, readUsage, settledUsage, usageLine } from './e2e-usage';
import type { Usage } from '../local/billing';
import { numpyReferenceSeconds, type TargetRun, targetLines } from './e2e-targets';
import { writeSection } from './report';
import { servePglite } from '../local/pglite-server';
import {
  CUBE_CATEGORIES,
  CUBE_SOURCE_DDL,
  cubeCopyLines,
  type Cube,
  type CubeOptions,
  generateCube,
  HOTEL_CUBE,
  SMALL_CUBE,
} from '../synthetic/cube';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * small ≈198 series × 1 year; hotel ≈3,978 series × 3 years (2.15 M rows); big 100,008 series × 1 year
 * (54,550 leaves, ≈14.6 M source rows); big-10k, the same shape at a tenth (10,008 series), to check the
 * path first. The cube knows five channels (a sixth and above get no bookings), so the series are
 * 18 × (1 + districts + hotels): the total, the districts and the hotels, each alone, by room type (2),
 * by channel (5) and by both (10).
 */
export const SCALES: Record<string, CubeOptions> = {
  small: SMALL_CUBE,
  hotel: HOTEL_CUBE,
  'big-10k': {
    seed: 13,
    districts: 10,
    hotels: 545,
    roomTypes: 2,
    channels: 5,
    days: 365,
    start: '2024-01-01',
    injections: 100,
  },
  big: {
    seed: 13,
    districts: 100,
    hotels: 5455,
    roomTypes: 2,
    channels: 5,
    days: 365,
    start: '2024-01-01',
    injections: 1000,
  },
  // The big shape over 3 years (issue 30: 100,000 series × 3 years, about 110 M series-days).
  big3y: {
    seed: 13,
    districts: 100,
    hotels: 5455,
    roomTypes: 2,
    channels: 5,
    days: 1096,
    start: '2022-01-01',
    injections: 3000,
  },
};

const DETECTORS = ['dod', 'wow', 'spike', 'dt', 'changepoint', 'gap'];
const TABLE = 'hotel_bookings';
const ADMIN = { email: 'admin@example.com', password: 'bench-e2e-admin-pw' };

type FanOutMode = 'on' | 'off' | 'default';

/** One service run's detection setting: DETECTION_FAN_OUT ('default': not set) and DETECTION_SHARD_SIZE. */
interface FanOut {
  mode: FanOutMode;
  shardSize: number | undefined;
  /** LOAD_SPLIT_ROWS and LOAD_PART_CHUNKS of the run (undefined: not set, the load runs whole). */
  loadSplit?: { rows: number; chunks: number };
}

interface Opts {
  scale: string;
  targets: Array<'postgres' | 'pglite'>;
  /** DETECTION_FAN_OUT per run ('default': not set). */
  fanOut: FanOut[];
  shardSize: number | undefined;
  floor: boolean;
  write: boolean;
  /** Prefixes the bench's databases (two benches on one server never drop each other's). */
  dbPrefix: string;
  pollMs: number;
  timeoutMs: number;
  /** Daily cycles after the first detection (`--daily N`, default 2). */
  dailyRuns: number;
}

function dbPrefix(text: string | undefined): string {
  if (text === undefined) return '';
  if (!/^[a-z][a-z0-9_]*$/.test(text)) throw new Error(`--db-prefix takes [a-z][a-z0-9_]*: not ${text}`);
  return `${text}_`;
}

function parse(args: string[]): Opts {
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const scale = opt('--scale') ?? 'small';
  if (!SCALES[scale]) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`);
  const targets = (opt('--targets') ?? (process.env.DATABASE_URL ? 'postgres,pglite' : 'pglite'))
    .split(',')
    .map((t) => t.trim()) as Opts['targets'];
  for (const t of targets) if (t !== 'postgres' && t !== 'pglite') throw new Error(`unknown target ${t}`);
  if (targets.includes('postgres') && !process.env.DATABASE_URL)
    throw new Error('the postgres target needs DATABASE_URL (a server where databases can be created)');
  const size = (text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!(Number.isInteger(n) && n > 0))
      throw new Error(`a shard size must be a positive integer: not ${text}`);
    return n;
  };
  const shardSize = size(opt('--shard-size'));
  // `--fan-out off,on:12500`: each setting, optionally with its own shard size.
  const fanOut = (opt('--fan-out') ?? 'default').split(',').map((item): FanOut => {
    const [mode, n] = item.trim().split(':');
    if (mode !== 'on' && mode !== 'off' && mode !== 'default')
      throw new Error(`--fan-out takes on, off (each optionally :shard size): not ${item}`);
    return { mode, shardSize: size(n) ?? shardSize };
  });
  // `--load-split off,1:2`: each fan-out setting once per load setting (rows above which a full load runs
  // in parts, and chunks of 112 days per part).
  const splits = (opt('--load-split') ?? 'off').split(',').map((item) => {
    if (item.trim() === 'off') return undefined;
    const [rows, chunks] = item.trim().split(':').map(Number);
    if (!(Number.isInteger(rows) && rows > 0 && Number.isInteger(chunks ?? 2) && (chunks ?? 2) > 0))
      throw new Error(`--load-split takes off or <rows>:<chunks a part>: not ${item}`);
    return { rows, chunks: chunks ?? 2 };
  });
  const runs = fanOut.flatMap((f) => splits.map((loadSplit) => (loadSplit ? { ...f, loadSplit } : f)));
  return {
    scale,
    targets,
    fanOut: runs,
    shardSize,
    floor: !args.includes('--no-floor'),
    dbPrefix: dbPrefix(opt('--db-prefix')),
    write: !args.includes('--no-write'),
    pollMs: Number(opt('--poll-ms') ?? 200),
    dailyRuns: Number(opt('--daily') ?? 2),
    timeoutMs: Number(opt('--timeout-s') ?? 1800) * 1000,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const s1 = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '–' : (ms / 1000).toFixed(1);
const load1 = () => os.loadavg()[0].toFixed(1);

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
  return { n: s.length, p50: q(0.5), p95: q(0.95), max: s.at(-1) ?? Number.NaN };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------- the source

function dayInt(cube: Cube, i: number): number {
  return Number(fromEpochDay(cube.day0 + i).replaceAll('-', ''));
}

interface Source {
  /** The connector's connection string (as the service's connector stores it). */
  connString: string;
  sql: postgres.Sql;
  close(): Promise<void>;
}

/** A fresh database on the server of DATABASE_URL. */
async function serverDatabase(url: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end({ timeout: 1 });
    },
  };
}

export async function openSourceDb(dir: string, prefix = ''): Promise<Source> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const db = await serverDatabase(url, `${prefix}bench_e2e_source`);
    const client = postgres(db.url, { max: 2, onnotice: () => {} });
    return {
      connString: db.url,
      sql: client,
      close: async () => {
        await client.end({ timeout: 1 });
        await db.drop();
      },
    };
  }
  const served = await servePglite(path.join(dir, 'source-db'));
  const client = postgres(served.url, { max: 1, onnotice: () => {} });
  return {
    connString: `Host=127.0.0.1;Port=${served.port};Database=postgres;Username=postgres;Password=pw;SSL Mode=disable`,
    sql: client,
    close: async () => {
      await client.end({ timeout: 1 });
      await served.close();
    },
  };
}

/** Writes the cube into the source table (COPY on a server, batched inserts on PGlite). */
export async function fillSource(src: Source, cube: Cube): Promise<number> {
  const t0 = performance.now();
  await src.sql.unsafe(`DROP TABLE IF EXISTS ${TABLE}`);
  await src.sql.unsafe(`CREATE TABLE ${TABLE} ${CUBE_SOURCE_DDL}`);
  if (process.env.DATABASE_URL) {
    const own = postgres(src.connString, { max: 1, onnotice: () => {} });
    try {
      const stream = await own.unsafe(`COPY ${TABLE} FROM STDIN`).writable();
      await pipeline(cubeCopyLines(cube), stream);
    } finally {
      await own.end({ timeout: 1 });
    }
  } else {
    const step = 20_000;
    const days = Array.from({ length: cube.days }, (_, i) => dayInt(cube, i));
    for (let r0 = 0; r0 < cube.rows; r0 += step) {
      const cols: Array<Array<string | number>> = [[], [], [], [], [], [], []];
      for (let r = r0; r < Math.min(cube.rows, r0 + step); r++) {
        const l = cube.leaves[cube.rowLeaf[r]];
        cols[0].push(days[cube.rowDay[r]]);
        cols[1].push(l.district);
        cols[2].push(l.hotel);
        cols[3].push(l.room_type);
        cols[4].push(l.channel);
        cols[5].push(cube.rowAmount[r]);
        cols[6].push(cube.rowCount[r]);
      }
      await src.sql.unsafe(
        `INSERT INTO ${TABLE} SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::int[])`,
        cols as never,
      );
    }
  }
  await src.sql.unsafe(`ANALYZE ${TABLE}`);
  return performance.now() - t0;
}

/** The floor on the source server: COPY out + in of the source table; a bare GROUPING SETS over integer codes. */
async function measureFloor(
  src: Source,
): Promise<{ copyMs: number; copyHow: string; cubeMs: number; cubeRows: number }> {
  await src.sql.unsafe(`DROP TABLE IF EXISTS floor_copy, floor_codes, floor_cube`);
  await src.sql.unsafe(`CREATE TABLE floor_copy ${CUBE_SOURCE_DDL}`);
  let copyMs = Number.NaN;
  let copyHow = 'none';
  if (process.env.DATABASE_URL) {
    // Server-side files when allowed (the server's own cost, as psql's COPY to a local file would see it);
    // else streamed through this process, each leg on its own connection.
    try {
      const [d] = await src.sql.unsafe(`SELECT current_setting('data_directory') AS d`);
      const file = `${d.d}/bench_e2e_copy.txt`;
      const t0 = performance.now();
      await src.sql.unsafe(`COPY ${TABLE} TO '${file}'`);
      await src.sql.unsafe(`COPY floor_copy FROM '${file}'`);
      copyMs = performance.now() - t0;
      copyHow = 'server file';
      await src.sql.unsafe(`COPY (SELECT 1 WHERE false) TO '${file}'`);
    } catch {
      await src.sql.unsafe('TRUNCATE floor_copy');
      const from = postgres(src.connString, { max: 1, onnotice: () => {} });
      const into = postgres(src.connString, { max: 1, onnotice: () => {} });
      try {
        const t0 = performance.now();
        const out = await from.unsafe(`COPY ${TABLE} TO STDOUT`).readable();
        const sink = await into.unsafe('COPY floor_copy FROM STDIN').writable();
        await pipeline(out, sink);
        copyMs = performance.now() - t0;
        copyHow = 'streamed';
      } finally {
        await from.end({ timeout: 1 });
        await into.end({ timeout: 1 });
      }
    }
  }
  // Integer codes per category, set up outside the timing (a load's coding happens while it streams).
  const cats = CUBE_CATEGORIES.map((c) => c.name);
  // Each category's distinct values numbered, then joined (hash joins on small tables): a window rank
  // per category over the whole table sorted 14.6 M rows four times (7+ minutes on the big scale).
  await src.sql.begin(async (tx) => {
    await tx.unsafe(`SET LOCAL work_mem = '256MB'`);
    await tx.unsafe(`CREATE TABLE floor_codes AS SELECT s.day,
      ${cats.map((c) => `c_${c}.k AS k_${c}`).join(', ')}, s.revenue, s.bookings FROM ${TABLE} s
      ${cats
        .map(
          (c) =>
            `JOIN (SELECT v, (row_number() OVER (ORDER BY v))::int AS k FROM (SELECT DISTINCT ${c} AS v FROM ${TABLE}) d) c_${c} ON c_${c}.v = s.${c}`,
        )
        .join('\n      ')}`);
  });
  console.log(`  floor: COPY out + in ${s1(copyMs)} s (${copyHow}); integer codes set up`);
  await src.sql.unsafe('ANALYZE floor_codes');
  const sets = groupingSets(CUBE_CATEGORIES)
    .map((g) => `(day${g.members.map((i) => `, k_${cats[i]}`).join('')})`)
    .join(', ');
  const t1 = performance.now();
  const [r] = await src.sql.begin(async (tx) => {
    await tx.unsafe(`SET LOCAL work_mem = '256MB'`);
    await tx.unsafe(`CREATE TABLE floor_cube AS SELECT day, ${cats.map((c) => `k_${c}`).join(', ')},
      sum(revenue) AS v, sum(bookings) AS n FROM floor_codes GROUP BY GROUPING SETS (${sets})`);
    return tx.unsafe('SELECT count(*)::int AS n FROM floor_cube');
  });
  const cubeMs = performance.now() - t1;
  await src.sql.unsafe(`DROP TABLE IF EXISTS floor_copy, floor_codes, floor_cube`);
  return { copyMs, copyHow, cubeMs, cubeRows: Number(r.n) };
}

// ---------------------------------------------------------------- the service

interface Service {
  url: string;
  child: ChildProcess;
  dataDir: string;
  /** Stops the service; resolves to its log (serverless-offline's output, the functions' JSON lines). */
  stop(): Promise<string>;
}

async function startService(
  target: 'postgres' | 'pglite',
  databaseUrl: string | undefined,
  extraEnv: Record<string, string>,
): Promise<Service> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `bench-e2e-${target}-`));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    DEMO: 'off',
    WEB_BUILD: 'skip',
    SEED_ADMIN_PASSWORD: ADMIN.password,
    SEED_USER_PASSWORD: 'bench-e2e-user-pw',
    // Its own esbuild folder: another `npm start` on this checkout builds into the default one.
    ESBUILD_WORK_FOLDER: `.esbuild-bench-e2e-${process.pid}`,
    ...extraEnv,
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/start.ts')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 180_000;
  while (!out.includes('Anomaly monitor is running')) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
    if (Date.now() > until) throw new Error(`npm start did not come up in 180 s:\n${out}`);
    await sleep(200);
  }
  return {
    url,
    child,
    dataDir,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(10_000)]);
      }
      // The service log is kept for a look at what happened (the data folder goes).
      const kept = path.join(os.tmpdir(), `bench-e2e-${target}-service.log`);
      let log = '';
      try {
        log = readFileSync(path.join(dataDir, 'service.log'), 'utf8');
        writeFileSync(kept, log);
        console.log(`  service log: ${kept}`);
      } catch {
        // no log written
      }
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(path.join(root, env.ESBUILD_WORK_FOLDER!), { recursive: true, force: true });
      return log;
    },
  };
}

type Reply = { status: number; body: any; ms: number };
type Call = (method: string, p: string, body?: unknown) => Promise<Reply>;

function client(url: string, token?: string): Call {
  return async (method, p, body) => {
    const t0 = performance.now();
    const res = await fetch(url + p, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed, ms };
  };
}

function must(r: Reply, what: string): any {
  if (r.status >= 300) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Peak resident memory (VmHWM, MiB) of a process and its descendants. */
function peakRss(pid: number): number {
  let total = 0;
  const walk = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const m = /VmHWM:\s+(\d+) kB/.exec(status);
      if (m) total += Number(m[1]) / 1024;
      for (const t of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/))
        if (t) walk(Number(t));
    } catch {
      // gone
    }
  };
  walk(pid);
  return total;
}

/** One worker invocation's "worker memory" line (functions/workers/memory-probe.ts). */
export interface WorkerMemory {
  worker: string;
  kind?: string;
  jobId?: number;
  shard?: number;
  of?: number;
  ms: number;
  thread: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  processRssMiB: number;
}

/** The "worker memory" lines of a service log. */
export function workerMemory(log: string): WorkerMemory[] {
  const out: WorkerMemory[] = [];
  for (const line of log.split('\n')) {
    if (!line.includes('"worker memory"')) continue;
    try {
      const j = JSON.parse(line.slice(line.indexOf('{')));
      if (j.message === 'worker memory') out.push(j as WorkerMemory);
    } catch {
      // a line cut by another writer
    }
  }
  return out;
}

interface Latency {
  kind: 'status' | 'top100';
  phase: 'load' | 'detection';
  ms: number;
  status: number;
}

export interface E2eResult {
  target: 'postgres' | 'pglite';
  fanOut: FanOut;
  workers: WorkerMemory[];
  sourceRows: number;
  series: number | null;
  anomalies: number | null;
  /** Milliseconds from POST load. */
  loadFinished: number | null;
  detectionFinished: number | null;
  firstTop100: number | null;
  loadMs: number | null;
  streamMs: number | null;
  buildMs: number | null;
  buildSteps: Record<string, number> | null;
  detectionMs: number | null;
  processDetail: Record<string, unknown> | null;
  latencies: Latency[];
  hierarchicalMs: number | null;
  failures: string[];
  after: { status: number; ms: number } | null;
  peakRssMiB: number;
  loadAvg: [string, string];
  /** The daily cycles after the first detection: the last DAILY_DAYS days again, then detection. */
  daily: DailyCycle[];
  /** The first load and detection as AWS would bill the workers (GB-s per function; DATA_DIR/usage.json). */
  firstUsage: Usage | null;
}

async function runTarget(
  target: 'postgres' | 'pglite',
  fanOut: FanOut,
  source: Source,
  cube: Cube,
  o: Opts,
): Promise<E2eResult> {
  const la0 = load1();
  const svcDb =
    target === 'postgres'
      ? await serverDatabase(process.env.DATABASE_URL!, `${o.dbPrefix}bench_e2e_service`)
      : undefined;
  const extraEnv: Record<string, string> = {};
  if (fanOut.mode !== 'default') extraEnv.DETECTION_FAN_OUT = fanOut.mode;
  if (fanOut.shardSize !== undefined) extraEnv.DETECTION_SHARD_SIZE = String(fanOut.shardSize);
  if (fanOut.loadSplit) {
    extraEnv.LOAD_SPLIT_ROWS = String(fanOut.loadSplit.rows);
    extraEnv.LOAD_PART_CHUNKS = String(fanOut.loadSplit.chunks);
  }
  const svc = await startService(target, svcDb?.url, extraEnv);
  const failures: string[] = [];
  let result: Omit<E2eResult, 'workers'>;
  let log = '';
  try {
    const anon = client(svc.url);
    const token = must(await anon('POST', '/api/v1/auth/token', ADMIN), 'signing in').accessToken;
    const call = client(svc.url, token);
    must(
      await call('POST', '/api/v1/connectors', {
        name: 'bench_source',
        type: 'pgsql',
        description: 'bench-e2e source',
        configuration: { conn_string: source.connString },
      }),
      'creating the connector',
    );
    const last = fromEpochDay(cube.day0 + cube.days - 1);
    // A Custom range covers at most MAX_CUSTOM_RANGE_DAYS: the Top 100 reads the last two years.
    const from = fromEpochDay(Math.max(cube.day0, cube.day0 + cube.days - MAX_CUSTOM_RANGE_DAYS));
    const view = must(
      await call('POST', '/api/v1/dataviews', {
        schemaVersion: 3,
        metadata: { name: 'hotel_e2e', domain: 'bench', description: 'bench-e2e hotel cube', enabled: true },
        source: {
          connector: 'bench_source',
          dateColumn: 'day',
          valueColumn: 'revenue',
          countColumn: 'bookings',
          loadMode: 'full',
          trigger: 'api',
          loadQuery: `SELECT day, district, hotel, room_type, channel, revenue, bookings FROM ${TABLE}`,
          // The daily cycle: the last DAILY_DAYS days again.
          customLoadQuery: `SELECT day, district, hotel, room_type, channel, revenue, bookings FROM ${TABLE} WHERE day >= ${dayInt(cube, cube.days - DAILY_DAYS)}`,
        },
        categories: CUBE_CATEGORIES.map((c) => ({ ...c, label: c.name })),
        analysis: { fillGapMethod: 'zero', detectors: DETECTORS.map((type) => ({ type })) },
      }),
      'creating the data view',
    );
    const id = view.id as number;
    must(await call('POST', `/api/v1/dataviews/${id}/deploy`), 'deploying');
    must(await call('POST', `/api/v1/dataviews/${id}/enable`), 'enabling');
    const filter = (extra: Record<string, unknown>) =>
      call('POST', '/api/v1/anomaly-filters', {
        timeRange: 'Custom',
        dateFrom: from,
        dateTo: last,
        dataViews: 'bench / hotel_e2e',
        sortBy: 'SIN',
        limit: 100,
        ...extra,
      });
    const top = must(await filter({ name: 'bench top 100' }), 'creating the Top 100 filter').id;
    const hier = must(
      await filter({
        name: 'bench hierarchical',
        isAggregated: true,
        aggregationMode: 'Hierarchical',
        minCommonCategories: 1,
      }),
      'creating the hierarchical filter',
    ).id;

    // POST load, then poll the jobs; two readers poll status and the Top 100 while the jobs run.
    const t0 = Date.now();
    const usage0 = readUsage(svc.dataDir);
    const job = must(await call('POST', `/api/v1/dataviews/${id}/jobs/load`), 'POST load');
    const latencies: Latency[] = [];
    let phase: 'load' | 'detection' = 'load';
    let running = true;
    let peak = 0;
    const reader = async (kind: Latency['kind'], p: string) => {
      while (running) {
        const r = await call('GET', p).catch((e) => ({ status: 0, ms: Number.NaN, body: String(e) }));
        if (!running) break;
        latencies.push({ kind, phase, ms: r.ms, status: r.status });
        if (r.status !== 200 && failures.length < 20)
          failures.push(`${kind} during ${phase}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        peak = Math.max(peak, peakRss(svc.child.pid!));
        await sleep(o.pollMs);
      }
    };
    const readers = [
      reader('status', `/api/v1/dataviews/${id}/status`),
      reader('top100', `/api/v1/anomalies/by-filter/${top}`),
    ];
    const until = t0 + o.timeoutMs;
    const waitJob = async (jobId: number) => {
      for (;;) {
        const r = await call('GET', `/api/v1/jobs/${jobId}`).catch(() => undefined);
        const j = r?.status === 200 ? r.body : undefined;
        if (j && (j.status === 'finished' || j.status === 'failed')) return j;
        if (Date.now() > until) return j ?? { status: 'timeout' };
        if (svc.child.exitCode !== null) return { ...(j ?? {}), status: 'service exited' };
        await sleep(250);
      }
    };
    const since = (iso: string | null | undefined) => (iso ? Date.parse(iso) - t0 : null);
    const loaded = await waitJob(job.id);
    let detected: any = null;
    if (loaded.status !== 'finished') failures.push(`load ${loaded.status}: ${loaded.error ?? ''}`);
    else if (typeof loaded.detail?.processJobId === 'number') {
      phase = 'detection';
      detected = await waitJob(loaded.detail.processJobId);
      if (detected.status !== 'finished')
        failures.push(`detection ${detected.status}: ${detected.error ?? ''}`);
    }
    running = false;
    await Promise.all(readers);
    // The first Top 100 answer with rows after detection.
    let firstTop100: number | null = null;
    if (detected?.status === 'finished') {
      for (let i = 0; i < 100; i++) {
        const r = await call('GET', `/api/v1/anomalies/by-filter/${top}`);
        const rows = Array.isArray(r.body) ? r.body : (r.body?.anomalies ?? r.body?.items ?? r.body?.rows);
        if (r.status === 200 && Array.isArray(rows) && rows.length > 0) {
          firstTop100 = Date.now() - t0;
          break;
        }
        await sleep(100);
      }
    }
    let hierarchicalMs: number | null = null;
    if (detected?.status === 'finished') {
      const h = await call('GET', `/api/v1/anomalies/by-filter/${hier}`);
      hierarchicalMs = h.ms;
      if (h.status !== 200)
        failures.push(`hierarchical: ${h.status} ${JSON.stringify(h.body).slice(0, 200)}`);
    }
    const firstUsage =
      detected?.status === 'finished' ? cycleUsage(usage0, await settledUsage(svc.dataDir)) : null;
    const daily =
      detected?.status === 'finished'
        ? await dailyCycles(call, id, waitJob, failures, o.dailyRuns, svc.dataDir)
        : [];
    // After the jobs: the service still answers (no 500 until restart).
    const after = await call('GET', `/api/v1/dataviews/${id}/status`).catch(() => undefined);
    const status = after?.body;
    peak = Math.max(peak, peakRss(svc.child.pid!));
    result = {
      target,
      fanOut,
      sourceRows: cube.rows,
      series: loaded.detail?.series ?? null,
      anomalies: detected?.detail?.anomalies ?? status?.anomalies ?? null,
      loadFinished: since(loaded.finishedAt),
      detectionFinished: detected ? since(detected.finishedAt) : null,
      firstTop100,
      loadMs:
        loaded.startedAt && loaded.finishedAt
          ? Date.parse(loaded.finishedAt) - Date.parse(loaded.startedAt)
          : null,
      streamMs: loaded.detail?.streamMs ?? null,
      buildMs: loaded.detail?.buildMs ?? null,
      buildSteps: loaded.detail?.buildSteps ?? null,
      detectionMs:
        detected?.finishedAt && loaded.finishedAt
          ? Date.parse(detected.finishedAt) - Date.parse(loaded.finishedAt)
          : null,
      processDetail: detected?.detail ?? null,
      latencies,
      hierarchicalMs,
      failures,
      after: after ? { status: after.status, ms: after.ms } : null,
      peakRssMiB: peak,
      loadAvg: [la0, load1()],
      daily,
      firstUsage,
    };
  } finally {
    log = await svc.stop();
    await svcDb?.drop();
  }
  return { ...result, workers: workerMemory(log) };
}

// ---------------------------------------------------------------- report

/** The run's name in the tables: the service database, and the fan-out setting when one was given. */
function label(r: E2eResult): string {
  const size =
    r.fanOut.shardSize === undefined ? '' : `, ${r.fanOut.shardSize.toLocaleString('en-US')} series a shard`;
  const split = r.fanOut.loadSplit ? `, load in parts of ${r.fanOut.loadSplit.chunks} chunks` : '';
  return r.fanOut.mode === 'default'
    ? `${r.target}${size}${split}`
    : `${r.target}, fan-out ${r.fanOut.mode}${size}${split}`;
}

const median = (xs: number[]) => stats(xs).p50;

/** Memory per worker and the shard times, from the workers' "worker memory" lines. */
function workerLines(r: E2eResult): string[] {
  const out: string[] = [];
  const proc = r.workers.filter((w) => w.worker === 'process');
  const shards = proc.filter((w) => w.shard !== undefined);
  const jobs = proc.filter((w) => w.shard === undefined);
  const load = r.workers.filter((w) => w.worker === 'load');
  const mem = (ws: WorkerMemory[]) => {
    if (ws.length === 0) return '–';
    const max = (k: keyof WorkerMemory) => Math.max(...ws.map((w) => Number(w[k])));
    return `heap used ≤ ${max('heapUsedMiB')} MiB, heap reserved ≤ ${max('heapTotalMiB')} MiB, external ≤ ${max('externalMiB')} MiB (array buffers ≤ ${max('arrayBuffersMiB')} MiB)`;
  };
  const times = (ws: WorkerMemory[]) => {
    const ms = ws.map((w) => w.ms);
    return `${s1(Math.min(...ms))} / ${s1(median(ms))} / ${s1(Math.max(...ms))} s`;
  };
  const loadJobs = load.filter((w) => w.shard === undefined);
  const parts = load.filter((w) => w.shard !== undefined);
  if (loadJobs.length)
    out.push(
      `  - load worker, job message${loadJobs.length > 1 ? 's' : ''} (${loadJobs.length}; ${times(loadJobs)} min / median / max): ${mem(loadJobs)}`,
    );
  for (const w of parts.sort((a, b) => (a.shard ?? 0) - (b.shard ?? 0)))
    out.push(`  - load worker, part ${(w.shard ?? 0) + 1} of ${w.of}: ${s1(w.ms)} s, ${mem([w])}`);
  if (jobs.length)
    out.push(
      `  - process worker, job message${jobs.length > 1 ? 's' : ''} (${jobs.length}; ${times(jobs)} min / median / max): ${mem(jobs)}`,
    );
  if (shards.length) {
    const threads = new Set(shards.map((w) => w.thread)).size;
    out.push(
      `  - process worker, shard messages (${shards.length} in ${threads} worker thread${threads > 1 ? 's' : ''}; ${times(shards)} min / median / max): ${mem(shards)}`,
    );
  }
  const rss = Math.max(0, ...r.workers.map((w) => w.processRssMiB));
  if (rss)
    out.push(`  - serverless-offline's process (every thread): RSS ≤ ${rss} MiB as the workers saw it`);
  return out;
}

/** The figures the target verdict (scripts/bench/e2e-targets.ts) reads from one run. */
function targetRun(r: E2eResult): TargetRun {
  const p95: TargetRun['p95'] = [];
  for (const phase of ['load', 'detection'] as const)
    for (const kind of ['status', 'top100'] as const) {
      const xs = r.latencies
        .filter((l) => l.phase === phase && l.kind === kind && l.status === 200)
        .map((l) => l.ms);
      if (xs.length) p95.push({ what: `${kind} during ${phase}`, ms: stats(xs).p95 });
    }
  return {
    label: label(r),
    target: r.target,
    detectionFinishedMs: r.detectionFinished,
    detectionMs: r.detectionMs,
    p95,
  };
}

function latencyRows(r: E2eResult): string[] {
  const out: string[] = [];
  for (const phase of ['load', 'detection'] as const)
    for (const kind of ['status', 'top100'] as const) {
      const xs = r.latencies
        .filter((l) => l.phase === phase && l.kind === kind && l.status === 200)
        .map((l) => l.ms);
      const bad = r.latencies.filter((l) => l.phase === phase && l.kind === kind && l.status !== 200).length;
      const s = stats(xs);
      out.push(
        `| ${label(r)} | ${kind === 'status' ? 'GET status' : 'GET by-filter Top 100'} | during ${phase} | ${s.n} | ${bad} | ${s.p50.toFixed(0)} | ${s.p95.toFixed(0)} | ${s.max.toFixed(0)} |`,
      );
    }
  return out;
}

function markdown(
  o: Opts,
  cube: Cube,
  floor: Awaited<ReturnType<typeof measureFloor>>,
  results: E2eResult[],
  fillMs: number,
  numpyS: number | null,
): string {
  const date = new Date().toISOString().slice(0, 10);
  const floorMs = floor.copyMs + floor.cubeMs;
  const lines = [
    `Measured by \`npm run bench -- e2e --scale ${o.scale}\` (\`scripts/bench/e2e.ts\`) on ${date}: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.env.DATABASE_URL ? 'PostgreSQL on the same machine (default settings), ' : ''}shared with other work; ` +
      `the load average (1 min) is given per run. Source: ${cube.rows.toLocaleString('en-US')} rows (${cube.seriesCount.toLocaleString('en-US')} series × ${cube.days} days; ` +
      `${cube.leaves.length.toLocaleString('en-US')} leaves), written in ${s1(fillMs)} s; detectors ${DETECTORS.join(', ')} on their defaults; detection shard size 1,000 (the default) unless the run names another. ` +
      'Times from POST load, through HTTP to the service started as `npm start` does.',
    '',
    `Floor (same run, on the source server): COPY out + in of the source table ${s1(floor.copyMs)} s (${floor.copyHow}); bare GROUPING SETS over integer codes ${s1(floor.cubeMs)} s (${floor.cubeRows.toLocaleString('en-US')} rows); together ${s1(floorMs)} s.`,
    '',
    '| service database | load finished (s) | detection finished (s) | first Top 100 (s) | load (s): read / build | load ÷ floor | detection + publish (s) | hierarchical, whole span (s) | series | anomalies | peak RSS (MiB) | load avg start / end |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${label(r)} | ${s1(r.loadFinished)} | **${s1(r.detectionFinished)}** | ${s1(r.firstTop100)} | ${s1(r.loadMs)}: ${s1(r.streamMs)} / ${s1(r.buildMs)} | ${r.loadMs ? (r.loadMs / floorMs).toFixed(2) : '–'} | ${s1(r.detectionMs)} | ${s1(r.hierarchicalMs)} | ${r.series ?? '–'} | ${r.anomalies ?? '–'} | ${r.peakRssMiB.toFixed(0)} | ${r.loadAvg.join(' / ')} |`,
    ),
    '',
    `Targets (issue 30; NumPy reference: DOD + WOW of scripts/bench/numpy_periods.py over ${cube.seriesCount.toLocaleString('en-US')} × ${cube.days} generated values, best of 3, same run):`,
    '',
    ...targetLines(results.map(targetRun), numpyS),
    '',
    '| service database | query | while | calls | not 200 | p50 ms | p95 ms | max ms |',
    '|---|---|---|---:|---:|---:|---:|---:|',
    ...results.flatMap(latencyRows),
    '',
    ...DAILY_HEADER,
    ...results.flatMap((r) => dailyRows(label(r), r.daily)),
    '',
    'What the workers would be billed on AWS (billed duration × configured memory, per function; docs/deploy.md, "What it costs"):',
    '',
    ...results.flatMap((r) => [
      `- ${label(r)}, first load and detection: ${usageLine(r.firstUsage)}`,
      ...dailyUsageLines(label(r), r.daily),
    ]),
    '',
    ...results.flatMap((r) => [
      `- ${label(r)}: build steps ${JSON.stringify(r.buildSteps)}; detection ${JSON.stringify(
        Object.fromEntries(
          Object.entries(r.processDetail ?? {}).filter(([k, v]) => typeof v === 'number' || k.endsWith('Ms')),
        ),
      )}${r.failures.length ? `; failures: ${r.failures.slice(0, 3).join(' | ')}` : ''}; after the jobs status answered ${r.after?.status ?? '–'} in ${r.after ? r.after.ms.toFixed(0) : '–'} ms.`,
      ...workerLines(r),
    ]),
  ];
  return lines.join('\n');
}

/** One section per scale and service database set, so a PostgreSQL run and an embedded run both stay. */
function writeE2eSection(scale: string, targets: string[], fanOut: FanOut[], text: string): void {
  const fan = fanOut
    .filter((f) => f.mode !== 'default' || f.shardSize !== undefined || f.loadSplit)
    .map(
      (f) =>
        `${f.mode}${f.shardSize === undefined ? '' : `-${f.shardSize}`}${f.loadSplit ? `-split-${f.loadSplit.chunks}` : ''}`,
    );
  const key = `${scale}-${targets.join('-')}${fan.length ? `-fan-out-${fan.join('-')}` : ''}`;
  const heading = `### End to end: ${scale}, ${targets.map((t) => (t === 'pglite' ? 'embedded PGlite' : 'PostgreSQL')).join(' and ')}`;
  writeSection(`bench-e2e-${key}`, `${heading}\n\n${text}`);
}

export async function benchE2e(args: string[]): Promise<void> {
  const o = parse(args);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-e2e-'));
  const tg = performance.now();
  const cube = generateCube(SCALES[o.scale]);
  console.log(
    `scale ${o.scale}: ${cube.rows.toLocaleString('en-US')} source rows, ${cube.seriesCount} series × ${cube.days} days (generated in ${s1(performance.now() - tg)} s); load average ${load1()}`,
  );
  const source = await openSourceDb(dir, o.dbPrefix);
  try {
    const fillMs = await fillSource(source, cube);
    console.log(`source table written in ${s1(fillMs)} s`);
    const floor = o.floor
      ? await measureFloor(source)
      : { copyMs: Number.NaN, copyHow: 'not measured', cubeMs: Number.NaN, cubeRows: 0 };
    console.log(
      `floor: COPY out + in ${s1(floor.copyMs)} s, bare GROUPING SETS over codes ${s1(floor.cubeMs)} s`,
    );
    const numpyS = o.floor
      ? numpyReferenceSeconds(cube.seriesCount, cube.days, toEpochDay(SCALES[o.scale].start))
      : null;
    console.log(
      `NumPy reference (DOD + WOW): ${numpyS === null ? 'not measured' : `${numpyS.toFixed(2)} s`}`,
    );
    const results: E2eResult[] = [];
    for (const target of o.targets)
      for (const fanOut of o.fanOut) {
        console.log(
          `-- ${target}, fan-out ${fanOut.mode}, shard size ${fanOut.shardSize ?? 'default'}: starting the service… (load average ${load1()})`,
        );
        const r = await runTarget(target, fanOut, source, cube, o);
        results.push(r);
        console.log(
          `${label(r)}: load finished ${s1(r.loadFinished)} s, detection finished ${s1(r.detectionFinished)} s, first Top 100 ${s1(r.firstTop100)} s (load avg ${r.loadAvg.join(' → ')})`,
        );
        for (const f of r.failures) console.log(`  ! ${f}`);
        for (const l of workerLines(r)) console.log(l);
        for (const l of dailyRows(label(r), r.daily)) console.log(`daily cycle ${l}`);
        console.log(`billed, first load and detection: ${usageLine(r.firstUsage)}`);
        for (const l of dailyUsageLines(label(r), r.daily)) console.log(`billed${l.slice(1)}`);
      }
    const text = markdown(o, cube, floor, results, fillMs, numpyS);
    for (const l of targetLines(results.map(targetRun), numpyS)) console.log(l);
    console.log(`\n${text}`);
    if (o.write) writeE2eSection(o.scale, o.targets, o.fanOut, text);
  } finally {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  benchE2e(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
