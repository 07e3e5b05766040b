/**
 * The read phase of a load alone: the hotel cube of scripts/synthetic/cube.ts (as bench-e2e writes it) in a
 * PostgreSQL source table, read through the pgsql connector (1) bare, counting rows (`stream`), (2) checked and coded (`code`), and (3) as a
 * load reads it (`stage`): every row checked against the source query rules, categories coded, batches appended to a
 * staging table in a second database on the same server. Prints seconds, rows/s and the
 * bench process's CPU seconds (the reader's own work, apart from the servers') per step.
 * `DATABASE_URL=postgres://… npm run bench -- read [--steps stream,code,stage] [--runs 2] [--refill] [--db-prefix bench]
 *   [--read columns|rows]`
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { openSource } from '../../lib/connectors/index';
import { connectDatabase } from '../../lib/db/connect';
import { codedBatches } from '../../lib/pipeline/read-coded';
import { type RowShape, tallyDays } from '../../lib/pipeline/rows';
import { appendStage, createStage, Dictionary, dropStage, stageWriter } from '../../lib/pipeline/stage';
import { CUBE_CATEGORIES, CUBE_SOURCE_DDL, cubeCopyLines, generateCube, HOTEL_CUBE } from '../synthetic/cube';

const TABLE = 'hotel_bookings';
const QUERY = `SELECT day, district, hotel, room_type, channel, revenue, bookings FROM ${TABLE}`;
const BATCH = 10_000;

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
// --db-prefix names the bench's two databases (default bench: bench_read_source, bench_read_service).
const DB_PREFIX = opt('--db-prefix') ?? 'bench';
const SOURCE_DB = `${DB_PREFIX}_read_source`;
const SERVICE_DB = `${DB_PREFIX}_read_service`;
// --read columns (default: the load's columnar read where the connector has one) or rows (row objects).
const READ = opt('--read') ?? 'columns';

function dbUrl(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function ensureSource(base: string, refill: boolean): Promise<number> {
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  const exists = await admin`SELECT 1 FROM pg_database WHERE datname = ${SOURCE_DB}`;
  if (!exists.length) await admin.unsafe(`CREATE DATABASE ${SOURCE_DB}`);
  const hasService = await admin`SELECT 1 FROM pg_database WHERE datname = ${SERVICE_DB}`;
  if (!hasService.length) await admin.unsafe(`CREATE DATABASE ${SERVICE_DB}`);
  await admin.end({ timeout: 1 });
  const src = postgres(dbUrl(base, SOURCE_DB), { max: 1, onnotice: () => {} });
  try {
    const [t] = await src`SELECT to_regclass(${TABLE}) IS NOT NULL AS ok`;
    if (t.ok && !refill) return Number((await src.unsafe(`SELECT count(*)::int AS n FROM ${TABLE}`))[0].n);
    const cube = generateCube(HOTEL_CUBE);
    await src.unsafe(`DROP TABLE IF EXISTS ${TABLE}`);
    await src.unsafe(`CREATE TABLE ${TABLE} ${CUBE_SOURCE_DDL}`);
    await pipeline(cubeCopyLines(cube), await src.unsafe(`COPY ${TABLE} FROM STDIN`).writable());
    await src.unsafe(`ANALYZE ${TABLE}`);
    return cube.rows;
  } finally {
    await src.end({ timeout: 1 });
  }
}

async function streamOnly(conn: string): Promise<number> {
  const source = openSource('pgsql', { conn_string: conn }, { timeoutMs: 10_000, queryTimeoutMs: 600_000 });
  let n = 0;
  try {
    for await (const b of source.stream(QUERY, { batchSize: BATCH })) n += b.length;
  } finally {
    await source.close();
  }
  return n;
}

async function staged(conn: string, serviceUrl: string, stage = true): Promise<number> {
  const db = await connectDatabase({ databaseUrl: serviceUrl });
  const schema = 'bench_read';
  await db.rows(postgresRaw(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
  const dataset = { categories: CUBE_CATEGORIES };
  const shape: RowShape = {
    dateColumn: 'day',
    valueColumn: 'revenue',
    countColumn: 'bookings',
    categories: CUBE_CATEGORIES.map((c) => c.name),
  };
  const dict = new Dictionary(shape.categories, []);
  await createStage(db, schema, dataset);
  const source = openSource('pgsql', { conn_string: conn }, { timeoutMs: 10_000, queryTimeoutMs: 600_000 });
  let rows = 0;
  let minDay: number | null = null;
  const dayRows = new Map<number, number>();
  // as lib/pipeline/load.ts stages: COPY binary on PostgreSQL, the insert from arrays otherwise
  const stager = stageWriter(db, schema, dataset, (b) => appendStage(db, schema, dataset, b));
  let inFlight: Promise<void> = Promise.resolve();
  let waited = 0;
  try {
    // --read rows: the row objects' path (a connector without a columnar read), for comparison.
    const from = READ === 'rows' ? { stream: source.stream, close: source.close } : source;
    for await (const coded of codedBatches(from, QUERY, { batchSize: BATCH }, shape, dict)) {
      rows += coded.days.length;
      minDay = tallyDays(coded.days, dayRows, minDay);
      if (!stage) continue;
      const w0 = performance.now();
      await inFlight;
      waited += performance.now() - w0;
      inFlight = stager.append(coded).then(() => {});
    }
    const w0 = performance.now();
    await inFlight;
    if (stage) await stager.flush();
    waited += performance.now() - w0;
    if (stage) console.log(`  waited for appends ${(waited / 1000).toFixed(2)} s`);
  } finally {
    await source.close();
    await dropStage(db, schema);
    await db.close();
  }
  return rows;
}

async function postgresRawModule() {
  return (await import('drizzle-orm')).sql;
}
let rawSql: Awaited<ReturnType<typeof postgresRawModule>>;
const postgresRaw = (text: string) => rawSql.raw(text);

async function main() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL (a PostgreSQL server where databases can be created) is needed');
  rawSql = await postgresRawModule();
  const total = await ensureSource(base, args.includes('--refill'));
  const conn = dbUrl(base, SOURCE_DB);
  const steps = (opt('--steps') ?? 'stream,code,stage').split(',');
  const runs = Number(opt('--runs') ?? 2);
  console.log(
    `${new Date().toISOString()} hotel source ${total} rows; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  for (let r = 0; r < runs; r++) {
    for (const step of steps) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const n =
        step === 'stream'
          ? await streamOnly(conn)
          : await staged(conn, dbUrl(base, SERVICE_DB), step === 'stage');
      const s = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      const cpu = (c.user + c.system) / 1e6;
      console.log(
        `${step.padEnd(6)} ${n} rows ${s.toFixed(2)} s ${Math.round(n / s).toLocaleString('en')} rows/s, this process's CPU ${cpu.toFixed(2)} s (load ${os.loadavg()[0].toFixed(1)})`,
      );
    }
  }
}

await main();
