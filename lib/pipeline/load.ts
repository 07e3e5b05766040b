/**
 * The load job: stream the source query in batches, check every row against the source query rules,
 * stage the coded rows, then in ONE transaction replace `int` (full: everything; incremental: the days
 * from the batch's minimum day; custom load: the days the batch holds) and rebuild the series.
 * A failure anywhere before the commit leaves the previous data untouched.
 */
import { sql } from 'drizzle-orm';
import { ident } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { DataViewDefinition } from '../dataviews/definition/types';
import { readDeployedView } from '../dataviews/scope';
import type { DataViewRecord } from '../dataviews/views';
import { systemCaller } from '../identity/caller';
import { dayToDate } from '../dataset/summary';
import { type JobRow, mergeJobDetail } from '../jobs/repository';
import { ConflictError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { buildSeries } from './build-series';
import { type ColumnMap, checkRow, resolveColumns, type RowShape } from './rows';
import type { OpenSource } from './source';
import {
  appendStage,
  type CodedBatch,
  createStage,
  Dictionary,
  dropStage,
  emptyBatch,
  readDictionary,
  STAGE_TABLE,
  writeDictionary,
} from './stage';

export interface LoadDeps {
  db: Database;
  log: Logger;
  openSource: OpenSource;
  batchSize: number;
  /**
   * How often (ms) the rows read so far are written into the job record's `detail.progress` while the
   * source streams (default LOAD_PROGRESS_EVERY_MS; 0: after every batch).
   */
  progressEveryMs?: number;
}

/** Default throttle of the load's progress writes into its job record. */
export const LOAD_PROGRESS_EVERY_MS = 2000;

/** A running load's progress as its job record holds it (lib/jobs/progress.ts reads it). */
export interface LoadProgress {
  /** Source rows read and staged so far. */
  done: number;
  /** The rows expected: the last finished load of this kind, or `done` while unknown. */
  total: number;
  unit: 'rows';
  phase: 'reading' | 'building';
}

/** Writes a load's progress into its job record (a failure is logged, never fails the load). */
async function writeProgress(deps: LoadDeps, jobId: number, p: LoadProgress): Promise<void> {
  try {
    await mergeJobDetail(deps.db, jobId, { progress: p });
  } catch (e) {
    deps.log.warn('load progress not written', { jobId, error: e });
  }
}

/**
 * On the embedded database (PGlite) one transaction holds every other connection until it commits
 * (scripts/local/pglite-sequence-lock.ts), so the lease renewals of this job wait behind the series
 * build; a build longer than the lease (a hotel-size view on a busy machine) looked like a lost worker
 * and was started again, three times, then failed. Before the build the lease is extended to the
 * worker's time limit; the renewals that follow the commit bring it back to the usual length.
 */
export const PGLITE_BUILD_LEASE_SECONDS = 900;

async function holdLeaseOverBuild(deps: LoadDeps, job: JobRow): Promise<void> {
  if (deps.db.kind !== 'pglite') return;
  const until = new Date(Date.now() + PGLITE_BUILD_LEASE_SECONDS * 1000).toISOString();
  try {
    await deps.db.rows(
      sql`UPDATE jobs SET lease_until = ${until}::timestamptz
        WHERE id = ${job.id} AND status = 'running' AND lease_until IS NOT NULL AND lease_until < ${until}::timestamptz`,
    );
  } catch (e) {
    deps.log.warn('lease not extended over the series build', { jobId: job.id, error: e });
  }
}

/** Rows of the last finished load of the same kind and view: the expected total of this one. */
async function expectedRows(db: Database, job: JobRow): Promise<number | null> {
  try {
    const [r] = await db.rows<{ n: unknown }>(
      sql`SELECT (detail->>'rows')::bigint AS n FROM jobs WHERE data_view_id = ${job.dataViewId}
        AND kind = ${job.kind} AND status = 'finished' AND id <> ${job.id}
        ORDER BY finished_at DESC NULLS LAST LIMIT 1`,
    );
    const n = Number(r?.n);
    return Number.isFinite(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/**
 * An incremental batch may drop at most this many loaded days it does not bring back (days from its
 * minimum day on that the source no longer returns); more fails the load unless `source.allowEmptyLoad`.
 */
export const MAX_DROPPED_DAYS = 7;

/** How `int` is replaced: spec rule 7 for loads; a custom load replaces exactly the days it returns. */
export type ReplaceMode = 'full' | 'incremental' | 'days';

export interface LoadResult {
  mode: ReplaceMode;
  rows: number;
  /** Days replaced from (incremental), or how many days were replaced (custom load). */
  fromDate?: string | null;
  replacedDays?: number;
  series: number;
  dataRows: number;
  filledRows: number;
  firstDate: string | null;
  lastDate: string | null;
  streamMs: number;
  buildMs: number;
  /** Milliseconds of each step of the build. */
  buildSteps: Record<string, number>;
}

/** Streams, checks and stages the rows; returns how many and which days they cover. */
async function stageRows(
  deps: LoadDeps,
  def: DataViewDefinition,
  schema: string,
  query: { sql: string; name: string },
  dict: Dictionary,
  signal: AbortSignal,
  progress: (rows: number) => Promise<void> | undefined,
): Promise<{ rows: number; minDay: number | null; days: Set<number> }> {
  const shape: RowShape = {
    dateColumn: def.source.dateColumn,
    valueColumn: def.source.valueColumn,
    countColumn: def.source.countColumn,
    categories: def.categories.map((c) => c.name),
  };
  const dataset = { categories: def.categories };
  let map: ColumnMap | undefined;
  let rows = 0;
  let minDay: number | null = null;
  const days = new Set<number>();
  const source = await deps.openSource(def.source.connector);
  // One insert in flight while the next batch is read and checked: source and service database work at once.
  let inFlight: Promise<void> = Promise.resolve();
  try {
    for await (const batch of source.stream(query.sql, { batchSize: deps.batchSize, signal })) {
      if (batch.length === 0) continue;
      map ??= resolveColumns(shape, Object.keys(batch[0]), query.name);
      const coded: CodedBatch = emptyBatch(shape.categories.length);
      for (const raw of batch) {
        const r = checkRow(raw, map, shape, ++rows, query.name);
        coded.days.push(r.day);
        for (let i = 0; i < r.categories.length; i++) coded.codes[i].push(dict.code(i, r.categories[i]));
        coded.values.push(r.value);
        coded.cnts.push(r.cnt);
        if (minDay === null || r.day < minDay) minDay = r.day;
        days.add(r.day);
      }
      await inFlight;
      const read = rows;
      const staging = appendStage(deps.db, schema, dataset, coded);
      // The progress write follows the batch's insert, so it never counts rows not staged yet.
      inFlight = staging.then(() => progress(read));
      inFlight.catch(() => {}); // observed by the next await; never an unhandled rejection
      signal.throwIfAborted();
    }
    await inFlight;
  } catch (e) {
    throw signal.aborted ? signal.reason : e;
  } finally {
    await inFlight.catch(() => {});
    await source.close().catch(() => {});
  }
  return { rows, minDay, days };
}

/** Replaces `int` with the staged rows as the mode says (inside the transaction). */
async function replaceInt(
  db: Database,
  schema: string,
  mode: ReplaceMode,
  minDay: number | null,
  rows: number,
): Promise<void> {
  const s = ident(schema);
  const stage = `${s}.${STAGE_TABLE}`;
  if (mode === 'full') {
    // The staging table becomes int: no copy of the rows.
    await db.rows(sql.raw(`DROP TABLE ${s}."int"`));
    await db.rows(sql.raw(`ALTER TABLE ${stage} RENAME TO "int"`));
    await db.rows(sql.raw(`CREATE INDEX int_day ON ${s}."int" (day)`));
  } else if (rows > 0) {
    const where =
      mode === 'incremental' ? `day >= ${Number(minDay)}` : `day IN (SELECT DISTINCT day FROM ${stage})`;
    await db.rows(sql.raw(`DELETE FROM ${s}."int" WHERE ${where}`));
    await db.rows(sql.raw(`INSERT INTO ${s}."int" SELECT * FROM ${stage}`));
  }
  await db.rows(sql.raw(`ANALYZE ${s}."int"`));
}

/**
 * Empty sources never erase history: a full load of no rows (an upstream outage, a broken filter) or an
 * incremental batch that would drop more than MAX_DROPPED_DAYS loaded days fails, leaving the data and the
 * anomalies as they are, unless the definition sets `source.allowEmptyLoad`.
 */
async function refuseDataLoss(
  db: Database,
  view: DataViewRecord,
  def: DataViewDefinition,
  schema: string,
  mode: ReplaceMode,
  staged: { rows: number; minDay: number | null; days: Set<number> },
): Promise<void> {
  if (def.source.allowEmptyLoad) return;
  const name = `${view.domain}/${view.name}`;
  if (mode === 'full' && staged.rows === 0) {
    throw new ConflictError(
      `The load query of ${name} returned no rows; the previous data and anomalies are kept. ` +
        'If the source is empty on purpose, set source.allowEmptyLoad: true in the definition.',
    );
  }
  if (mode === 'incremental' && staged.rows > 0) {
    const [r] = await db.rows<{ n: number }>(
      sql.raw(
        `SELECT count(DISTINCT day)::int AS n FROM ${ident(schema)}."int" WHERE day >= ${Number(staged.minDay)}`,
      ),
    );
    const dropped = Number(r?.n ?? 0) - staged.days.size;
    if (dropped > MAX_DROPPED_DAYS) {
      throw new ConflictError(
        `The incremental load of ${name} from ${dayToDate(staged.minDay)} would remove ${dropped} loaded days it does not bring back ` +
          `(at most ${MAX_DROPPED_DAYS} allowed); the previous data and anomalies are kept. ` +
          'If that is intended, set source.allowEmptyLoad: true in the definition or run a full load.',
      );
    }
  }
}

/** Runs a Load or CustomLoad job to its committed end; throws (and changes nothing) otherwise. */
export async function runLoad(
  deps: LoadDeps,
  job: JobRow,
  signal: AbortSignal,
): Promise<{ view: DataViewRecord; result: LoadResult }> {
  const view = await readDeployedView(systemCaller(), deps.db, job.dataViewId);
  const def = view.definition;
  const custom = job.kind === 'CustomLoad';
  const text = custom ? def.source.customLoadQuery : def.source.loadQuery;
  if (!text?.trim())
    throw new ConflictError(`Data view ${view.domain}/${view.name} has no custom load query.`);
  const mode: ReplaceMode = custom ? 'days' : def.source.loadMode;
  const schema = view.schema;
  const dataset = { categories: def.categories };
  const dict = new Dictionary(
    def.categories.map((c) => c.name),
    await readDictionary(deps.db, schema),
  );
  const t0 = Date.now();
  const expected = await expectedRows(deps.db, job);
  const every = deps.progressEveryMs ?? LOAD_PROGRESS_EVERY_MS;
  let lastWrite = t0;
  const progress = (rows: number) => {
    if (Date.now() - lastWrite < every) return undefined;
    lastWrite = Date.now();
    const total = Math.max(rows, expected ?? 0);
    return writeProgress(deps, job.id, { done: rows, total, unit: 'rows', phase: 'reading' });
  };
  await createStage(deps.db, schema, dataset);
  try {
    const staged = await stageRows(
      deps,
      def,
      schema,
      { sql: text, name: custom ? 'custom load query' : 'load query' },
      dict,
      signal,
      progress,
    );
    const t1 = Date.now();
    signal.throwIfAborted();
    // Reading is over: the job record says the rows read and that the series are being built.
    await writeProgress(deps, job.id, {
      done: staged.rows,
      total: staged.rows,
      unit: 'rows',
      phase: 'building',
    });
    await refuseDataLoss(deps.db, view, def, schema, mode, staged);
    await holdLeaseOverBuild(deps, job);
    const built = await deps.db.tx(async (tx) => {
      await tx.rows(sql.raw(`SET LOCAL work_mem = '${tx.kind === 'pglite' ? '64MB' : '256MB'}'`));
      const t = Date.now();
      await writeDictionary(tx, schema, dict.newEntries());
      await replaceInt(tx, schema, mode, staged.minDay, staged.rows);
      const intMs = Date.now() - t;
      const b = await buildSeries(tx, schema, def.categories, def.analysis?.fillGapMethod ?? 'zero');
      return { ...b, steps: { int: intMs, ...b.steps } };
    });
    const result: LoadResult = {
      mode,
      rows: staged.rows,
      ...(mode === 'incremental' ? { fromDate: dayToDate(staged.minDay) } : {}),
      ...(mode === 'days' ? { replacedDays: staged.days.size } : {}),
      series: built.series,
      dataRows: built.dataRows,
      filledRows: built.filledRows,
      firstDate: dayToDate(built.firstDay),
      lastDate: dayToDate(built.lastDay),
      streamMs: t1 - t0,
      buildMs: Date.now() - t1,
      buildSteps: built.steps,
    };
    deps.log.info('load committed', { dataViewId: view.id, ...result });
    return { view, result };
  } finally {
    await dropStage(deps.db, schema).catch(() => {});
  }
}
