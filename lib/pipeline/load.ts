/**
 * The load job: stream the source query in batches, check every row against the source query rules,
 * stage the coded rows and sum them per leaf and day in memory as they come (leaf-cube.ts), then replace
 * `int` (full: everything; incremental: the days from the batch's minimum day; custom load: the days the
 * batch holds) and rebuild the series of the chunks of days it touches, keeping the stored chunks of
 * the others (build-series.ts). The new int, cat_map, data, days and all_series are built into tables of
 * their own and swapped in by one short transaction (with the new dictionary entries): a failure
 * anywhere before that commit leaves the previous data untouched, and readers see the old tables or the
 * new ones, never a half-built view. On the embedded PGlite, where one statement holds every other
 * connection, the build's statements are kept short so that status and the other queries answer
 * between them.
 * Two loads of one view never run together: one load job per view is pending or running (the unique
 * index jobs_one_active_load), an attempt owns it by its lease, and the swap checks that the job still
 * runs this attempt (a build of an attempt that lost its lease is thrown away); each attempt builds
 * into tables named after it, and a load starts by dropping what earlier attempts left.
 */
import { sql } from 'drizzle-orm';
import { epochDayToYyyymmdd, yyyymmddToEpochDay } from '../calendar/days';
import { codeColumn, dropBuildTables, ident, intColumnsDdl } from '../dataset/ddl';
import { CHUNK_DAYS, chunkOf, chunkStart } from '../dataset/series-chunks';
import type { Database } from '../db/database';
import type { DataViewDefinition } from '../dataviews/definition/types';
import { readDeployedView } from '../dataviews/scope';
import type { DataViewRecord } from '../dataviews/views';
import { systemCaller } from '../identity/caller';
import { dayToDate } from '../dataset/summary';
import { type JobRow, lastFinishedRows, lockJobAttempt, mergeJobDetail } from '../jobs/repository';
import { ConflictError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { type BuildRunner, CHUNK_TARGET_MS, type RunnerOptions } from './build-runner';
import { ChunkedBuildRunner } from './build-runner-chunked';
import { WholeBuildRunner } from './build-runner-whole';
import { buildSeries } from './build-series';
import { buildTable, type Kept } from '../dataset/build-sql';
import { dropBuild, swapSeries } from './build-swap';
import { readCodedRows } from './int-rows';
import { LeafCube } from './leaf-cube';
import { codedBatches } from './read-coded';
import { type RowShape, tallyDays } from './rows';
import type { OpenSource } from './source';
import {
  appendStage,
  type CodedBatch,
  createStage,
  Dictionary,
  dropStage,
  readDictionary,
  STAGE_TABLE,
  stageWriter,
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
  /**
   * Keep every statement of the build short (default on PGlite, where a statement holds every other
   * connection); tests run both ways.
   */
  buildChunked?: boolean;
  /** A chunked build: fixed rows (series, days) per statement instead of sizing by time (tests). */
  buildChunkRows?: number;
  /** Called at the start of each build step and before the swap (tests observe the build with it). */
  onBuildStep?: (step: string) => Promise<void> | void;
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
 * Inside the swap's transaction: the job still runs this attempt. An attempt that lost its lease (its
 * worker was taken for gone and the job claimed again), or whose job row clean or undeploy removed, must not
 * put its build in place. Jobs without an attempt number (benchmarks, tests) are not checked.
 */
export async function checkStillOurs(db: Database, job: JobRow): Promise<void> {
  if (typeof job.attempts !== 'number') return;
  const row = await lockJobAttempt(db, job.id);
  if (!row)
    throw new ConflictError(
      `Load job ${job.id} was removed (the view was cleaned or undeployed); this attempt's build is discarded.`,
    );
  if (row.status !== 'running' || row.attempts !== job.attempts) {
    throw new ConflictError(
      `Load job ${job.id} no longer runs attempt ${job.attempts} (${row.status}, attempt ${row.attempts}); this attempt's build is discarded.`,
    );
  }
}

/** Rows of the last finished load of the same kind and view: the expected total of this one. */
async function expectedRows(db: Database, job: JobRow): Promise<number | null> {
  try {
    return await lastFinishedRows(db, job);
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
  /** Chunk rows of data written (series × chunks of 112 days with data). */
  chunkRows: number;
  /** The build's statements: how many, the longest (ms) and its step, how many took 100 ms or more. */
  buildStatements?: number;
  longestStatementMs?: number;
  longestStatementStep?: string;
  longStatements?: number;
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
  cube: LeafCube,
): Promise<Staged> {
  const shape: RowShape = {
    dateColumn: def.source.dateColumn,
    valueColumn: def.source.valueColumn,
    countColumn: def.source.countColumn,
    categories: def.categories.map((c) => c.name),
  };
  const dataset = { categories: def.categories };
  const appendRows = deps.db.kind === 'pglite' ? PGLITE_APPEND_ROWS : Number.POSITIVE_INFINITY;
  let rows = 0;
  let minDay: number | null = null;
  const dayRows = new Map<number, number>();
  const source = await deps.openSource(def.source.connector);
  const stager = stageWriter(deps.db, schema, dataset, (b) =>
    appendInParts(deps.db, schema, dataset, b, appendRows),
  );
  // One insert in flight while the next batch is read and checked: source and service database work at once.
  let inFlight: Promise<void> = Promise.resolve();
  try {
    const opts = { batchSize: deps.batchSize, signal };
    for await (const coded of codedBatches(source, query.sql, opts, shape, dict, query.name)) {
      rows += coded.days.length;
      minDay = tallyDays(coded.days, dayRows, minDay);
      // Summed per leaf and day as it comes: the series build needs no second pass over the rows.
      if (!cube.add(coded)) throw new Error('the load does not fit in one worker'); // no bound set yet
      await inFlight;
      const read = rows;
      const staging = stager.append(coded);
      // The progress write follows the batch's insert (on PostgreSQL: its hand-over to the COPY writer,
      // which gathers about 8 MB per statement), so it never counts rows not checked and coded yet.
      inFlight = staging.then(() => progress(read));
      inFlight.catch(() => {}); // observed by the next await; never an unhandled rejection
      signal.throwIfAborted();
    }
    await inFlight;
    await stager.flush();
  } catch (e) {
    throw signal.aborted ? signal.reason : e;
  } finally {
    await inFlight.catch(() => {});
    await source.close().catch(() => {});
  }
  return {
    rows,
    minDay,
    days: new Set(dayRows.keys()),
    dayRows,
  };
}

interface Staged {
  rows: number;
  minDay: number | null;
  days: Set<number>;
  /** Rows staged per day. */
  dayRows: Map<number, number>;
}

/**
 * On PGlite one staging insert holds every other connection while it runs: batches are appended in
 * parts of this many rows (and by one statement each on PostgreSQL).
 */
export const PGLITE_APPEND_ROWS = 2_500;

/** Appends a coded batch in parts of at most `size` rows, one statement each. */
export async function appendInParts(
  db: Database,
  schema: string,
  dataset: { categories: Array<{ name: string }> },
  b: CodedBatch,
  size: number,
): Promise<void> {
  if (b.days.length <= size) return appendStage(db, schema, dataset, b);
  for (let i = 0; i < b.days.length; i += size) {
    const part: CodedBatch = {
      days: b.days.slice(i, i + size),
      codes: b.codes.map((c) => c.slice(i, i + size)),
      values: b.values.slice(i, i + size),
      cnts: b.cnts.slice(i, i + size),
    };
    await appendStage(db, schema, dataset, part);
  }
}

/**
 * Inside the swap's transaction on PostgreSQL: the replaced days of `int` deleted and the staged rows
 * inserted (incremental and custom loads; a full load's staging table becomes `int` by a rename).
 */
async function replaceIntDays(
  db: Database,
  schema: string,
  mode: ReplaceMode,
  minDay: number | null,
  rows: number,
): Promise<void> {
  const s = ident(schema);
  const stage = `${s}.${STAGE_TABLE}`;
  if (rows === 0) return;
  const where =
    mode === 'incremental' ? `day >= ${Number(minDay)}` : `day IN (SELECT DISTINCT day FROM ${stage})`;
  await db.rows(sql.raw(`DELETE FROM ${s}."int" WHERE ${where}`));
  await db.rows(sql.raw(`INSERT INTO ${s}."int" SELECT * FROM ${stage}`));
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
  staged: Staged,
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

/**
 * Which stored chunks a load keeps, and the days of `int` it must read back: the days of the chunks it
 * rebuilds that it does not replace (their rows are summed with the staged ones).
 */
export function rebuildPlan(
  mode: ReplaceMode,
  staged: Pick<Staged, 'rows' | 'minDay' | 'days'>,
): { kept: Kept; reread: number[]; rebuilt: number[] } {
  const stagedChunks = [...new Set([...staged.days].map((d) => chunkOf(yyyymmddToEpochDay(d))))].sort(
    (a, b) => a - b,
  );
  if (mode === 'full') return { kept: { kind: 'none' }, reread: [], rebuilt: stagedChunks };
  if (staged.rows === 0) return { kept: { kind: 'except', chunks: [] }, reread: [], rebuilt: [] };
  const calendar = (from: number, to: number) =>
    Array.from({ length: Math.max(0, to - from) }, (_, i) => epochDayToYyyymmdd(from + i));
  if (mode === 'incremental') {
    const min = yyyymmddToEpochDay(Number(staged.minDay));
    const first = chunkOf(min);
    const rebuilt = [...new Set([first, ...stagedChunks])].sort((a, b) => a - b);
    return { kept: { kind: 'before', chunk: first }, reread: calendar(chunkStart(first), min), rebuilt };
  }
  const reread = stagedChunks
    .flatMap((c) => calendar(chunkStart(c), chunkStart(c) + CHUNK_DAYS))
    .filter((d) => !staged.days.has(d));
  return { kept: { kind: 'except', chunks: stagedChunks }, reread, rebuilt: stagedChunks };
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
  const s = ident(schema);
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
  const chunked = deps.buildChunked ?? deps.db.kind === 'pglite';
  // Names this attempt's build tables (the time tells two loads of one job and attempt apart).
  const tag = `${job.id}_${typeof job.attempts === 'number' ? job.attempts : 0}_${Date.now().toString(36)}`;
  // What earlier attempts left (a stopped worker): an attempt still running on them fails at its next statement.
  await dropBuildTables(deps.db, schema);
  await createStage(deps.db, schema, dataset);
  // PGlite: the index on day kept up batch by batch (one CREATE INDEX afterwards would be one long statement).
  if (chunked)
    await deps.db.rows(sql.raw(`CREATE INDEX ${ident(STAGE_DAY_INDEX)} ON ${s}.${STAGE_TABLE} (day)`));
  let intReady: Promise<void> = Promise.resolve();
  try {
    const cube = new LeafCube(def.categories.length);
    const staged = await stageRows(
      deps,
      def,
      schema,
      { sql: text, name: custom ? 'custom load query' : 'load query' },
      dict,
      signal,
      progress,
      cube,
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
    const plan = rebuildPlan(mode, staged);
    const runnerOptions: RunnerOptions = {
      chunkRows: deps.buildChunkRows,
      signal,
      onStep: deps.onBuildStep,
      onLongStatement: (step, ms, statement) =>
        deps.log.debug('long build statement', { jobId: job.id, step, ms, statement }),
    };
    const r = chunked
      ? new ChunkedBuildRunner(deps.db, runnerOptions)
      : new WholeBuildRunner(deps.db, runnerOptions);
    // The next int: ready to be swapped in (PGlite, or any full load), or replaced in the swap (PostgreSQL).
    await r.enter('int');
    const codes = def.categories.map((c) => codeColumn(c.name));
    // The rows of the rebuilt chunks' days that this load does not replace (plan.reread holds only those).
    if (plan.reread.length > 0)
      await r.time(() =>
        readCodedRows(deps.db, schema, 'int', codes, plan.reread, 'true', (rows) => cube.add(rows), signal),
      );
    let next: { table: string; dayIndex: string } | undefined;
    // A full load on PostgreSQL: the next int's index and statistics are built beside the series.
    const aside = mode === 'full' && !chunked;
    intReady = aside ? indexStageAside(deps.db, s, r) : intReady;
    if (mode === 'full') next = { table: STAGE_TABLE, dayIndex: STAGE_DAY_INDEX };
    else if (chunked)
      next = await prepareInt(deps.db, schema, tag, mode, staged, dataset, signal, deps.buildChunkRows);
    if (next && !aside) await r.analyze(`${s}.${ident(next.table)}`);
    const newDict = buildTable(tag, 'dict');
    await r.run(
      `CREATE TABLE ${s}.${ident(newDict)} (category text NOT NULL, code integer NOT NULL, value text NOT NULL)`,
    );
    await r.time(() => writeDictionary(deps.db, schema, dict.newEntries(), { table: newDict, chunk: 2000 }));
    const built = await buildSeries(r, {
      schema,
      tag,
      categories: def.categories,
      hasCount: Boolean(def.source.countColumn),
      cube,
      kept: plan.kept,
      dict,
      seriesIdFloor: view.seriesIdFloor,
    });
    await r.enter('int_wait');
    await r.time(() => intReady);
    await r.enter('swap');
    await r.time(() =>
      deps.db.tx(async (tx) => {
        await checkStillOurs(tx, job);
        await tx.rows(
          sql.raw(
            `INSERT INTO ${s}.dict (category, code, value) SELECT category, code, value FROM ${s}.${ident(newDict)}`,
          ),
        );
        if (!next) await replaceIntDays(tx, schema, mode, staged.minDay, staged.rows);
        await swapSeries(tx, schema, tag, next);
      }),
    );
    if (!next) await r.analyze(`${s}."int"`);
    const result: LoadResult = {
      mode,
      rows: staged.rows,
      ...(mode === 'incremental' ? { fromDate: dayToDate(staged.minDay) } : {}),
      ...(mode === 'days' ? { replacedDays: staged.days.size } : {}),
      series: built.series,
      dataRows: built.dataRows,
      filledRows: built.filledRows,
      chunkRows: built.chunkRows,
      firstDate: dayToDate(built.firstDay),
      lastDate: dayToDate(built.lastDay),
      streamMs: t1 - t0,
      buildMs: Date.now() - t1,
      buildSteps: r.steps,
      buildStatements: r.statements,
      longestStatementMs: r.longestMs,
      longestStatementStep: r.longestStep,
      longStatements: r.longStatements,
    };
    deps.log.info('load committed', { dataViewId: view.id, ...result });
    return { view, result };
  } finally {
    await intReady.catch(() => {}); // its error, if any, failed the load at the swap
    await dropStage(deps.db, schema).catch(() => {});
    // The build's tables, and after a swap the old ones: outside the swap's transaction.
    await dropBuild(deps.db, schema, tag).catch((e) =>
      deps.log.warn('build tables not dropped (the next load drops them)', { schema, tag, error: e }),
    );
  }
}

/**
 * The staged rows' index on day and their statistics (the next int of a full load on PostgreSQL), on a
 * connection of their own while the build goes on: the server sorts the rows while Node rolls the series
 * up. Awaited before the swap (a failure fails the load there); its time is the build step `int`.
 */
function indexStageAside(db: Database, s: string, r: BuildRunner): Promise<void> {
  const t0 = Date.now();
  const done = (async () => {
    await db.rows(sql.raw(`CREATE INDEX ${ident(STAGE_DAY_INDEX)} ON ${s}.${STAGE_TABLE} (day)`));
    await db.rows(sql.raw(`ANALYZE ${s}.${STAGE_TABLE}`));
  })().finally(() => {
    r.steps.int = (r.steps.int ?? 0) + Date.now() - t0;
  });
  done.catch(() => {}); // awaited before the swap and in the load's finally
  return done;
}

/** The staging table's index on day, renamed to int_day when the stage becomes int. */
export const STAGE_DAY_INDEX = `${STAGE_TABLE}_day`;

/**
 * The next `int` of a chunked build, with its days and their (estimated) rows: the staged rows in full
 * mode; otherwise a build table filled day range by day range with the kept rows of `int` and the staged
 * rows (statements of about a chunk each). `int` itself is not touched before the swap.
 */
async function prepareInt(
  db: Database,
  schema: string,
  tag: string,
  mode: ReplaceMode,
  staged: Staged,
  dataset: { categories: Array<{ name: string }> },
  signal: AbortSignal,
  chunkRows: number | undefined,
): Promise<{ table: string; dayIndex: string; days: Array<{ day: number; rows: number }> }> {
  const stagedDays = [...staged.dayRows].map(([day, rows]) => ({ day, rows }));
  if (mode === 'full') {
    return { table: STAGE_TABLE, dayIndex: STAGE_DAY_INDEX, days: stagedDays.sort((a, b) => a.day - b.day) };
  }
  const s = ident(schema);
  const table = buildTable(tag, 'int');
  const dayIndex = `${table}_day`;
  await db.rows(sql.raw(`CREATE TABLE ${s}.${ident(table)} (${intColumnsDdl(dataset)})`));
  await db.rows(sql.raw(`CREATE INDEX ${ident(dayIndex)} ON ${s}.${ident(table)} (day)`));
  // The days of int (one index probe each) and its rows per day on average (catalog estimate).
  const intDays = (
    await db.rows<{ day: number }>(
      sql.raw(`WITH RECURSIVE d(day) AS (SELECT min(day) FROM ${s}."int"
        UNION ALL SELECT (SELECT min(day) FROM ${s}."int" WHERE day > d.day) FROM d WHERE d.day IS NOT NULL)
        SELECT day FROM d WHERE day IS NOT NULL`),
    )
  ).map((r) => Number(r.day));
  const [est] = await db.rows<{ n: number }>(
    sql.raw(`SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = '${s}."int"'::regclass`),
  );
  const perDay = Math.max(1, Math.round(Number(est?.n ?? 0) / Math.max(1, intDays.length)));
  const kept = (day: number) =>
    mode === 'incremental' ? day < Number(staged.minDay) : !staged.days.has(day);
  const days = [
    ...intDays.filter((d) => staged.rows === 0 || kept(d)).map((day) => ({ day, rows: perDay })),
    ...stagedDays,
  ].sort((a, b) => a.day - b.day);
  const cols = ['day', ...dataset.categories.map((c) => codeColumn(c.name)), 'value', 'cnt'].join(', ');
  const keptWhere =
    staged.rows === 0
      ? 'true'
      : mode === 'incremental'
        ? `day < ${Number(staged.minDay)}`
        : `NOT EXISTS (SELECT 1 FROM ${s}.${STAGE_TABLE} st WHERE st.day = i.day)`;
  const target = CHUNK_TARGET_MS;
  let budget = chunkRows ?? 4_000;
  for (let i = 0; i < days.length; ) {
    signal.throwIfAborted();
    let j = i;
    let w = 0;
    do w += days[j++].rows;
    while (j < days.length && w + days[j].rows <= budget);
    const lo = days[i].day;
    const hi = days[j - 1].day;
    const t0 = Date.now();
    await db.rows(
      sql.raw(`INSERT INTO ${s}.${ident(table)} (${cols})
        SELECT ${cols} FROM ${s}."int" i WHERE day BETWEEN ${lo} AND ${hi} AND ${keptWhere}
        UNION ALL SELECT ${cols} FROM ${s}.${STAGE_TABLE} WHERE day BETWEEN ${lo} AND ${hi}`),
    );
    const ms = Math.max(1, Date.now() - t0);
    if (!chunkRows) budget = Math.min(budget * 4, Math.max(budget / 4, (target * w) / ms, 1));
    i = j;
  }
  return { table, dayIndex, days };
}
