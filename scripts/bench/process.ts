/**
 * The whole process job on PostgreSQL: read the series of a deployed view in shards, run the full
 * default detector set, stage the anomalies, replace all_anomalies and compute SIN/SIM, with the
 * time of each phase and the peak memory for two shard sizes. The view (about 10,000 series ×
 * 3 years: country → region, and product) is written straight into its dataset tables.
 * Options: --url postgres://… (default DATABASE_URL or the local test server), --products N (89 → 9,990
 * series), --days N (1096), --shards 2000,1000,250, --keep (keep the database for the next run),
 * --db-prefix NAME (the database's prefix, default bench).
 * `--hotel`: the end-to-end bench's hotel cube instead (scripts/synthetic/cube.ts, 3,978 series × 1,096 days,
 * value and count), loaded through the pgsql connector and the load job, with the e2e's detectors (dod, wow,
 * spike, dt, changepoint, gap on their defaults); the view is kept between runs (--fresh loads it again).
 */
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { epochDayToYyyymmdd, toEpochDay } from '../../lib/calendar/days';
import { openSource } from '../../lib/connectors/index';
import type { JobRow } from '../../lib/jobs/repository';
import { runLoad } from '../../lib/pipeline/load';
import { CUBE_CATEGORIES, CUBE_SOURCE_DDL, cubeCopyLines, generateCube, HOTEL_CUBE } from '../synthetic/cube';
import { createDataset, schemaNameFor } from '../../lib/dataset/ddl';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';
import { dataViews } from '../../lib/db/tables/dataviews';
import { DETECTOR_TYPES, withDefaults } from '../../lib/dataviews/definition/detector-params';
import { type DataViewRecord, type DataViewRow, toDataView } from '../../lib/dataviews/views';
import { runViewDetection } from '../../lib/process-job/run';
import { intArrayLiteral } from '../../lib/dataset/ddl';
import { type ChunkRow, packSeries } from '../../lib/dataset/series-chunks';
import { writeChunks } from '../../lib/dataset/series-writer';
import { logger } from '../../lib/shared/logger';

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const URL_ = opt('--url') ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:55432/postgres';
const PRODUCTS = Number(opt('--products') ?? 89);
const DAYS = Number(opt('--days') ?? 1096);
const SHARDS = (opt('--shards') ?? '2000,1000,250').split(',').map(Number);
const KEEP = argv.includes('--keep');
const HOTEL = argv.includes('--hotel');
const FRESH = argv.includes('--fresh');
// --db-prefix names the bench's database (default bench).
const DB_PREFIX = opt('--db-prefix') ?? 'bench';
const DB_NAME = HOTEL ? `${DB_PREFIX}_process_hotel` : `${DB_PREFIX}_detection_${PRODUCTS}_${DAYS}`;
const HOTEL_DETECTORS = ['dod', 'wow', 'spike', 'dt', 'changepoint', 'gap'] as const;
const CATEGORIES = [
  { name: 'country', label: 'Country' },
  { name: 'region', label: 'Region', parent: 'country' },
  { name: 'product', label: 'Product' },
];

/** Every series of 10 countries × 10 regions each, and PRODUCTS products, with its parent (lib/pipeline/grouping.ts). */
function catMap() {
  const rows: Array<{ id: number; c: number; r: number; p: number; level: number; key: string }> = [];
  for (let c = 0; c <= 10; c++)
    for (let r = 0; r <= (c === 0 ? 0 : 10); r++)
      for (let p = 0; p <= PRODUCTS; p++) {
        const region = r === 0 ? 0 : (c - 1) * 10 + r;
        rows.push({
          id: 0,
          c,
          r: region,
          p,
          level: (c ? 1 : 0) + (r ? 1 : 0) + (p ? 1 : 0),
          key: `[${c},${region},${p}]`,
        });
      }
  rows.sort((a, b) => a.level - b.level || a.key.localeCompare(b.key));
  rows.forEach((row, i) => {
    row.id = i + 1;
  });
  const byKey = new Map(rows.map((row) => [`${row.c},${row.r},${row.p}`, row.id]));
  const parent = (x: (typeof rows)[number]) =>
    x.p ? byKey.get(`${x.c},${x.r},0`) : x.r ? byKey.get(`${x.c},0,0`) : x.c ? byKey.get('0,0,0') : null;
  return rows.map((x) => ({ ...x, parent: parent(x) ?? null }));
}

async function createView(db: Database): Promise<DataViewRecord> {
  const existing = (await db.orm.select().from(dataViews)) as DataViewRow[];
  if (existing.length) return toDataView(existing[0]);
  const definition = {
    schemaVersion: 3,
    metadata: { name: 'bench', domain: 'bench' },
    source: {
      connector: 'none',
      dateColumn: 'day',
      valueColumn: 'amount',
      loadMode: 'full',
      trigger: 'api',
      loadQuery: 'SELECT 1',
    },
    categories: CATEGORIES,
    analysis: {
      fillGapMethod: 'zero',
      ignoreLastNDays: 0,
      scanInLastNDays: 0,
      detectors: DETECTOR_TYPES.map((type) => ({ type, params: withDefaults(type) })),
      specialDates: [],
      recurringRules: [],
      specialPeriods: [],
    },
  };
  const [row] = (await db.orm
    .insert(dataViews)
    .values({ name: 'bench', domain: 'bench', connector: 'none', definition, deployed: true, enabled: true })
    .returning()) as DataViewRow[];
  const schema = schemaNameFor(row.id);
  await db.tx((tx) => createDataset(tx, schema, { categories: CATEGORIES }));
  const map = catMap();
  const s = `"${schema}"`;
  await db.rows(sql`INSERT INTO ${sql.raw(`${s}.cat_map`)} (series_id, k_country, k_region, k_product, c_country, c_region, c_product, level, parent_series_id, series_key)
    SELECT u.id, u.c, u.r, u.p, nullif('c' || u.c, 'c0'), nullif('r' || u.r, 'r0'), nullif('p' || u.p, 'p0'), u.level, nullif(u.parent, 0), u.key
    FROM unnest(${intArrayLiteral(map.map((x) => x.id))}::int[], ${intArrayLiteral(map.map((x) => x.c))}::int[],
      ${intArrayLiteral(map.map((x) => x.r))}::int[], ${intArrayLiteral(map.map((x) => x.p))}::int[],
      ${intArrayLiteral(map.map((x) => x.level))}::int[], ${intArrayLiteral(map.map((x) => x.parent ?? 0))}::int[],
      ${`{${map.map((x) => `"${x.key}"`).join(',')}}`}::text[]) AS u(id, c, r, p, level, parent, key)`);
  // Weekly profile, a yearly wave, 5 % noise, a spike or a drop on about one day in 1000 each, a missing day in 1000.
  const day0 = toEpochDay('2022-01-01');
  const weekday = [1.0, 1.05, 1.05, 1.1, 1.2, 0.65, 0.45]; // Monday first
  const values = new Float64Array(DAYS);
  const present = new Uint8Array(DAYS);
  const perDay = new Int32Array(DAYS);
  const totals: Array<[number, number, number]> = [];
  let rows: ChunkRow[] = [];
  for (const x of map) {
    let total = 0;
    let days = 0;
    for (let t = 0; t < DAYS; t++) {
      const u = Math.random();
      const v = Math.random();
      const date = new Date((day0 + t) * 86_400_000);
      const doy = Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 0)) / 86_400_000);
      present[t] = u < 0.001 ? 0 : 1;
      values[t] =
        u < 0.001
          ? 0
          : Math.round(
              (50 + (x.id % 97)) *
                weekday[(date.getUTCDay() + 6) % 7] *
                (1 + 0.1 * Math.sin(doy / 58)) *
                (1 + 0.05 * (v - 0.5) * 3.4) *
                (u > 0.999 ? 2 : u > 0.998 ? 0.4 : 1) *
                100,
            ) / 100;
      if (present[t]) {
        total += values[t];
        days++;
        perDay[t]++;
      }
    }
    totals.push([x.id, days, total]);
    rows.push(...packSeries(x.id, day0, values, new Float64Array(DAYS), present));
    if (rows.length >= 20_000) {
      await writeChunks(db, schema, 'data', rows);
      rows = [];
    }
  }
  await writeChunks(db, schema, 'data', rows);
  const ymd = (t: number) => epochDayToYyyymmdd(day0 + t);
  await db.rows(
    sql.raw(`INSERT INTO ${s}.all_series (series_id, first_day, last_day, days, total_value)
      SELECT u.id, ${ymd(0)}, ${ymd(DAYS - 1)}, u.days, u.total FROM unnest('${intArrayLiteral(totals.map((x) => x[0]))}'::int[],
        '${intArrayLiteral(totals.map((x) => x[1]))}'::int[], '{${totals.map((x) => x[2]).join(',')}}'::float8[]) AS u(id, days, total)`),
  );
  await db.rows(
    sql.raw(
      `INSERT INTO ${s}.days (day, series) SELECT * FROM unnest('${intArrayLiteral(
        Array.from({ length: DAYS }, (_, t) => ymd(t)),
      )}'::int[], '${intArrayLiteral(perDay)}'::int[])`,
    ),
  );
  await db.rows(sql.raw(`ANALYZE ${s}.data`));
  return toDataView(row);
}

/** The e2e bench's hotel view: the cube in a source table of the same database, loaded by the load job. */
async function createHotelView(db: Database, url: string): Promise<DataViewRecord> {
  const existing = (await db.orm.select().from(dataViews)) as DataViewRow[];
  if (existing.length) return toDataView(existing[0]);
  const cube = generateCube(HOTEL_CUBE);
  const src = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await src.unsafe(`DROP TABLE IF EXISTS public.hotel_bookings`);
    await src.unsafe(`CREATE TABLE public.hotel_bookings ${CUBE_SOURCE_DDL}`);
    await pipeline(cubeCopyLines(cube), await src.unsafe('COPY public.hotel_bookings FROM STDIN').writable());
    await src.unsafe('ANALYZE public.hotel_bookings');
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
    analysis: {
      fillGapMethod: 'zero',
      ignoreLastNDays: 0,
      scanInLastNDays: 0,
      detectors: HOTEL_DETECTORS.map((type) => ({ type, params: withDefaults(type) })),
      specialDates: [],
      recurringRules: [],
      specialPeriods: [],
    },
  };
  const [row] = (await db.orm
    .insert(dataViews)
    .values({ name: 'hotel', domain: 'bench', connector: 'bench', definition, deployed: true, enabled: true })
    .returning()) as DataViewRow[];
  await db.tx((tx) => createDataset(tx, schemaNameFor(row.id), { categories: CUBE_CATEGORIES }));
  const open = async () =>
    openSource('pgsql', { conn_string: url }, { timeoutMs: 30_000, queryTimeoutMs: 3_600_000 });
  const job = { id: 1, dataViewId: row.id, kind: 'Load' } as JobRow;
  const { result } = await runLoad(
    { db, log: logger, openSource: open, batchSize: 20_000 },
    job,
    new AbortController().signal,
  );
  console.log(
    `hotel cube loaded: ${result.rows} rows, ${result.series} series (stream ${result.streamMs} ms, build ${result.buildMs} ms; steps ${JSON.stringify(result.buildSteps)})`,
  );
  return toDataView(row);
}

async function main() {
  const admin = postgres(URL_, { max: 1, onnotice: () => {} });
  if (FRESH) await admin.unsafe(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  const exists = (await admin`SELECT 1 FROM pg_database WHERE datname = ${DB_NAME}`).length > 0;
  if (!exists) await admin.unsafe(`CREATE DATABASE ${DB_NAME}`);
  const url = new URL(URL_);
  url.pathname = `/${DB_NAME}`;
  const db = await connectDatabase({ databaseUrl: url.toString(), migrate: !exists });
  const t0 = performance.now();
  const view = HOTEL ? await createHotelView(db, url.toString()) : await createView(db);
  const setupSeconds = (performance.now() - t0) / 1000;
  const [{ series }] = await db.rows<{ series: number }>(
    sql.raw(`SELECT count(*)::int AS series FROM "${schemaNameFor(view.id)}".cat_map`),
  );
  const lines: string[] = [];
  for (const shardSize of SHARDS) {
    if (global.gc) global.gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().rss);
    };
    const timer = setInterval(sample, 20);
    const log = { ...logger, debug: sample } as typeof logger;
    const started = performance.now();
    const r = await runViewDetection({ db, log, shardSize }, view, 900_000 + shardSize);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    sample();
    const rate = (Number(series) * DAYS) / seconds;
    lines.push(
      `| ${shardSize} | ${r.shards} | ${seconds.toFixed(1)} | ${(r.readMs / 1000).toFixed(1)} | ${(r.detectMs / 1000).toFixed(1)} | ${(r.writeMs / 1000).toFixed(1)} | ${(r.publishMs / 1000).toFixed(1)} | ${r.anomalies} | ${(rate / 1e6).toFixed(2)} M | ${(peak / 2 ** 20).toFixed(0)} MiB | ${(before / 2 ** 20).toFixed(0)} MiB |`,
    );
  }
  await db.close();
  if (!KEEP && !HOTEL) await admin.unsafe(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.end();
  console.log(
    [
      '### Process job (detection) on PostgreSQL',
      '',
      `${series} series × ${DAYS} days = ${((Number(series) * DAYS) / 1e6).toFixed(2)} M series-days, ${HOTEL ? `the hotel cube (value and count), ${HOTEL_DETECTORS.join(', ')}` : 'all 13 detectors'} with the definition defaults; the view was written in ${setupSeconds.toFixed(0)} s${exists ? ' (reused)' : ''}. Node ${process.version}, one process.`,
      '',
      '| Shard size | Shards | Total (s) | Read (s) | Detect (s) | Stage write (s) | Publish + significance (s) | Anomalies | Series-days/s | Peak RSS | RSS before |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...lines,
    ].join('\n'),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
