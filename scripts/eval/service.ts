/**
 * The service's own path for the evaluation: a source database (PGlite behind the pgsql wire
 * protocol), a source table per dataset, a deployed data view reading it through the `pgsql`
 * connector, the real load job, the real process job (runDetection) and the stored all_anomalies,
 * all in this process over an in-memory PGlite service database (or DATABASE_URL's server).
 */
import { eq, sql } from 'drizzle-orm';
import type { Container } from '../../lib/app/container';
import { loadConfig } from '../../lib/config/config';
import { schemaNameFor } from '../../lib/dataset/ddl';
import type { Database } from '../../lib/db/database';
import { dataViews } from '../../lib/db/tables/dataviews';
import type { DataViewAnalysis, DataViewDefinition } from '../../lib/dataviews/definition/types';
import { runDetection } from '../../lib/process-job/start';
import { setLogLevel } from '../../lib/shared/logger';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSource } from '../../lib/connectors/index';
import { connectDatabase } from '../../lib/db/connect';
import { servePglite } from '../local/pglite-server';
import { createTestDatabase, serverUrl, type TestDatabase } from '../../test/support/db';
import { loadView } from '../../test/support/detection-fixture';
import { createDeployedView } from '../../test/support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../test/support/pipeline-source';

export interface ServiceEnv {
  db: Database;
  source: TestSource;
  container: Container;
  stop(): Promise<void>;
}

/**
 * The service database and the source. `onDisk`: both PGlite databases keep their data in folders
 * under the system temp folder (removed on stop) instead of memory, for the hotel-size cube.
 * DATABASE_URL (a PostgreSQL server) takes precedence.
 */
export async function openServiceEnv(opts: { onDisk?: boolean; keepDir?: string } = {}): Promise<ServiceEnv> {
  setLogLevel('silent');
  const disk = opts.onDisk && !serverUrl ? await diskDatabases(opts.keepDir) : null;
  const t: TestDatabase = disk?.t ?? (await createTestDatabase());
  const source = disk?.source ?? (await createTestSource());
  const container = { db: t.db, config: loadConfig({ LOG_LEVEL: 'silent' }) } as unknown as Container;
  return {
    db: t.db,
    source,
    container,
    async stop() {
      await source.stop();
      await t.drop();
      if (disk && !opts.keepDir) rmSync(disk.dir, { recursive: true, force: true });
    },
  };
}

/** The two PGlite databases in `keep` (kept after stop, reopened when there) or a new temporary folder. */
async function diskDatabases(keep?: string): Promise<{ t: TestDatabase; source: TestSource; dir: string }> {
  if (keep) mkdirSync(keep, { recursive: true });
  const dir = keep ?? mkdtempSync(path.join(tmpdir(), 'anomaly-eval-'));
  const db = await connectDatabase({ pgliteDir: path.join(dir, 'service'), migrate: true });
  const served = await servePglite(path.join(dir, 'source'));
  const connString = `Host=127.0.0.1;Port=${served.port};Database=postgres;Username=postgres;Password=pw;SSL Mode=disable`;
  return {
    dir,
    t: { db, drop: () => db.close() },
    source: {
      connString,
      exec: async (text) => void (await served.db.exec(text)),
      open: async () => openSource('pgsql', { conn_string: connString }, { timeoutMs: 60_000 }),
      stop: () => served.close(),
    },
  };
}

export interface SourceTable {
  /** Table and data view name (lower-case identifier). */
  name: string;
  categories: Array<{ name: string; parent?: string }>;
  /** Row count; row(i) returns [day YYYYMMDD, ...category values, amount, count]. */
  rows: number;
  row(i: number): (number | string)[];
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Writes the source table `<name>` (day, categories…, amount, cnt) in batches. */
export async function writeSourceTable(source: TestSource, t: SourceTable, batch = 20_000): Promise<void> {
  const cats = t.categories.map((c) => c.name);
  await source.exec(
    `DROP TABLE IF EXISTS ${t.name}; CREATE TABLE ${t.name} (day integer, ${cats
      .map((c) => `${c} text`)
      .join(', ')}, amount double precision, cnt double precision);`,
  );
  for (let from = 0; from < t.rows; from += batch) {
    const parts: string[] = [];
    for (let i = from; i < Math.min(t.rows, from + batch); i++) {
      const r = t.row(i);
      parts.push(`(${r.map((x) => (typeof x === 'string' ? quote(x) : String(x))).join(',')})`);
    }
    await source.exec(`INSERT INTO ${t.name} VALUES ${parts.join(',')};`);
  }
}

export interface ViewSpec {
  name: string;
  categories: Array<{ name: string; parent?: string }>;
  /** SELECT list for the count column: 'cnt' (the table's) or '1' (constant). */
  countExpr: string;
  detectors: Array<{ type: string; params?: Record<string, unknown> }>;
  analysis?: Partial<DataViewAnalysis>;
}

/** A deployed data view over the source table with loadMode full, the detectors and analysis settings. */
export async function createView(db: Database, spec: ViewSpec): Promise<number> {
  const cats = spec.categories.map((c) => c.name);
  const id = await createDeployedView(db, {
    name: spec.name,
    domain: 'eval',
    loadQuery: `SELECT day, ${cats.join(', ')}, amount, ${spec.countExpr} AS cnt FROM ${spec.name}`,
    categories: spec.categories,
    countColumn: 'cnt',
    loadMode: 'full',
  });
  const [row] = await db.orm.select().from(dataViews).where(eq(dataViews.id, id));
  const stored = row.definition as unknown as DataViewDefinition;
  stored.analysis = {
    ...stored.analysis,
    ...spec.analysis,
    detectors: spec.detectors as unknown as DataViewAnalysis['detectors'],
  };
  await db.orm
    .update(dataViews)
    .set({ definition: stored as unknown as Record<string, unknown> })
    .where(eq(dataViews.id, id));
  return id;
}

/** Runs the load job, then the process job's detection; returns how long the detection took (ms). */
export async function loadAndDetect(env: ServiceEnv, viewId: number, jobId = 1): Promise<number> {
  await loadView(env.db, env.source, viewId);
  const t0 = performance.now();
  await runDetection(env.container, viewId, jobId);
  return performance.now() - t0;
}

/** Runs the load job, then the process job of the view; returns the process job's detail. */
export async function loadAndProcess(
  env: ServiceEnv,
  viewId: number,
  jobId = 1,
): Promise<Record<string, unknown>> {
  await loadView(env.db, env.source, viewId);
  return runDetection(env.container, viewId, jobId);
}

export interface StoredRow {
  id: number;
  seriesId: number;
  /** Category values of the series (null = all). */
  categories: Record<string, string | null>;
  measure: string;
  type: string;
  startDate: string;
  endDate: string;
  changePct: number | null;
  result: 'Positive' | 'Negative';
  sin: number | null;
}

/** Every stored anomaly of the view with its series' category values. */
export async function readAnomalies(
  db: Database,
  viewId: number,
  categories: string[],
): Promise<StoredRow[]> {
  const s = schemaNameFor(viewId);
  const hasMeasure =
    (
      await db.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = ${s} AND table_name = 'all_anomalies' AND column_name = 'measure'`,
      )
    )[0].n > 0;
  const rows = await db.rows<Record<string, unknown>>(
    sql.raw(`SELECT a.id, a.series_id, ${hasMeasure ? 'a.measure' : `'value'`} AS measure, a.type,
      to_char(a.start_date, 'YYYY-MM-DD') AS start_date, to_char(a.end_date, 'YYYY-MM-DD') AS end_date,
      a.change_pct, a.result, a.sin, ${categories.map((c) => `m.c_${c}`).join(', ')}
      FROM ${s}.all_anomalies a JOIN ${s}.cat_map m USING (series_id) ORDER BY a.id`),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    seriesId: Number(r.series_id),
    categories: Object.fromEntries(categories.map((c) => [c, (r[`c_${c}`] as string | null) ?? null])),
    measure: String(r.measure),
    type: String(r.type),
    startDate: String(r.start_date),
    endDate: String(r.end_date),
    changePct: r.change_pct === null ? null : Number(r.change_pct),
    result: r.result as 'Positive' | 'Negative',
    sin: r.sin === null ? null : Number(r.sin),
  }));
}

/** Series of the view (their category values) with the number of days of data. */
export async function seriesCount(db: Database, viewId: number): Promise<number> {
  const s = schemaNameFor(viewId);
  const [r] = await db.rows<{ n: number }>(sql.raw(`SELECT count(*)::int AS n FROM ${s}.cat_map`));
  return Number(r.n);
}
