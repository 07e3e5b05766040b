/**
 * The load job: stream the source query in batches, check every row against the source query rules,
 * stage the coded rows, then replace `int` (full: everything; incremental: the days from the batch's
 * minimum day; custom load: the days the batch holds) and rebuild the series. The new int, cat_map, data
 * and all_series are built into tables of their own and swapped in by one short transaction (with the
 * new dictionary entries): a failure anywhere before that commit leaves the previous data untouched, and
 * readers see the old tables or the new ones, never a half-built view.
 * On PostgreSQL the build runs in one transaction (other sessions run beside it); on the embedded PGlite,
 * where one transaction holds every other connection, it runs as short statements of their own
 * (lib/pipeline/build-series.ts), so that status and the other queries answer between them.
 * Two loads of one view never run together: one load job per view is pending or running (the unique
 * index jobs_one_active_load), an attempt owns it by its lease, and the swap checks that the job still
 * runs this attempt (a build of an attempt that lost its lease is thrown away); each attempt builds
 * into tables named after it, and a load starts by dropping what earlier attempts left.
 */
import { sql } from 'drizzle-orm';
import { codeColumn, dropBuildTables, ident, intColumnsDdl } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { DataViewDefinition } from '../dataviews/definition/types';
import { readDeployedView } from '../dataviews/scope';
import type { DataViewRecord } from '../dataviews/views';
import { systemCaller } from '../identity/caller';
import { dayToDate } from '../dataset/summary';
import { type JobRow, mergeJobDetail } from '../jobs/repository';
import { ConflictError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import {
  type BuildStats,
  buildSeries,
  buildTable,
  CHUNK_TARGET_MS,
  CHUNKED_STATISTICS_TARGET,
  dropBuild,
  swapSeries,
} from './build-series';
import { type ColumnMap, codeBatch, resolveColumns, type RowShape, tallyDays } from './rows';
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
   * Build the series in the load's one transaction (default on PostgreSQL) or in short statements of
   * their own (default on PGlite); tests run both ways.
   */
  buildInOneTransaction?: boolean;
  /** A build in statements of their own: fixed rows per statement instead of sizing by time (tests). */
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
async function checkStillOurs(db: Database, job: JobRow): Promise<void> {
  if (typeof job.attempts !== 'number') return;
  const [row] = await db.rows<{ status: string; attempts: number }>(
    sql`SELECT status, attempts FROM jobs WHERE id = ${job.id} FOR UPDATE`,
  );
  if (!row)
    throw new ConflictError(
      `Load job ${job.id} was removed (the view was cleaned or undeployed); this attempt's build is discarded.`,
    );
  if (row.status !== 'running' || Number(row.attempts) !== job.attempts) {
    throw new ConflictError(
      `Load job ${job.id} no longer runs attempt ${job.attempts} (${row.status}, attempt ${row.attempts}); this attempt's build is discarded.`,
    );
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
  /** A build in statements of their own (PGlite): how many, the longest (ms) and its step, how many took 100 ms or more. */
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
  wantLeaves: boolean,
): Promise<Staged> {
  const shape: RowShape = {
    dateColumn: def.source.dateColumn,
    valueColumn: def.source.valueColumn,
    countColumn: def.source.countColumn,
    categories: def.categories.map((c) => c.name),
  };
  const dataset = { categories: def.categories };
  const appendRows = deps.db.kind === 'pglite' ? PGLITE_APPEND_ROWS : Number.POSITIVE_INFINITY;
  let map: ColumnMap | undefined;
  let rows = 0;
  let minDay: number | null = null;
  const dayRows = new Map<number, number>();
  // The distinct code combinations (a chunked build of a full load takes them from here).
  const leaves = wantLeaves ? new Map<string, number[]>() : undefined;
  const source = await deps.openSource(def.source.connector);
  const stager = stageWriter(deps.db, schema, dataset, (b) =>
    appendInParts(deps.db, schema, dataset, b, appendRows),
  );
  // One insert in flight while the next batch is read and checked: source and service database work at once.
  let inFlight: Promise<void> = Promise.resolve();
  try {
    for await (const batch of source.stream(query.sql, { batchSize: deps.batchSize, signal })) {
      if (batch.length === 0) continue;
      map ??= resolveColumns(shape, Object.keys(batch[0]), query.name);
      const coded: CodedBatch = emptyBatch(shape.categories.length);
      codeBatch(batch, map, shape, dict, coded, rows, query.name);
      rows += batch.length;
      minDay = tallyDays(coded.days, dayRows, minDay);
      if (leaves) collectLeaves(coded.codes, leaves);
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
    leaves: leaves ? [...leaves.values()] : undefined,
  };
}

/** Adds the code combinations of a coded batch (columns of codes) to `into`. */
function collectLeaves(codes: number[][], into: Map<string, number[]>): void {
  const n = codes[0]?.length ?? 0;
  for (let i = 0; i < n; i++) {
    let key = '';
    for (const c of codes) key += `${c[i]},`;
    if (!into.has(key))
      into.set(
        key,
        codes.map((c) => c[i]),
      );
  }
}

interface Staged {
  rows: number;
  minDay: number | null;
  days: Set<number>;
  /** Rows staged per day. */
  dayRows: Map<number, number>;
  /** The distinct code combinations staged, when asked for. */
  leaves?: number[][];
}

/**
 * On PGlite one staging insert holds every other connection while it runs: batches are appended in
 * parts of this many rows (and by one statement each on PostgreSQL).
 */
export const PGLITE_APPEND_ROWS = 2_500;

/** Appends a coded batch in parts of at most `size` rows, one statement each. */
async function appendInParts(
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
  const oneTx = deps.buildInOneTransaction ?? deps.db.kind !== 'pglite';
  // Names this attempt's build tables (and data's partitions, which keep the name once swapped in: the
  // time tells two loads of one job and attempt apart).
  const tag = `${job.id}_${typeof job.attempts === 'number' ? job.attempts : 0}_${Date.now().toString(36)}`;
  // What earlier attempts left (a stopped worker): an attempt still running on them fails at its next statement.
  await dropBuildTables(deps.db, schema);
  await createStage(deps.db, schema, dataset);
  // A chunked build reads the staged rows by day ranges; the index is kept up batch by batch.
  if (!oneTx)
    await deps.db.rows(sql.raw(`CREATE INDEX ${STAGE_DAY_INDEX} ON ${ident(schema)}.${STAGE_TABLE} (day)`));
  try {
    const staged = await stageRows(
      deps,
      def,
      schema,
      { sql: text, name: custom ? 'custom load query' : 'load query' },
      dict,
      signal,
      progress,
      !oneTx && mode === 'full',
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
    const fill = def.analysis?.fillGapMethod ?? 'zero';
    let built: BuildStats;
    if (oneTx) {
      built = await deps.db.tx(async (tx) => {
        await tx.rows(sql.raw(`SET LOCAL work_mem = '${tx.kind === 'pglite' ? '64MB' : '256MB'}'`));
        const t = Date.now();
        await writeDictionary(tx, schema, dict.newEntries());
        await replaceInt(tx, schema, mode, staged.minDay, staged.rows);
        const intMs = Date.now() - t;
        const b = await buildSeries(tx, schema, def.categories, fill, {
          tag,
          seriesIdFloor: view.seriesIdFloor,
          src: 'int',
          signal,
          onStep: deps.onBuildStep,
        });
        await deps.onBuildStep?.('swap');
        await checkStillOurs(tx, job);
        await swapSeries(tx, schema, tag);
        return { ...b, steps: { int: intMs, ...b.steps } };
      });
    } else {
      const t = Date.now();
      const next = await prepareInt(deps.db, schema, tag, mode, staged, dataset, signal, deps.buildChunkRows);
      const newDict = buildTable(tag, 'dict');
      await deps.db.rows(
        sql.raw(
          `CREATE TABLE ${ident(schema)}.${ident(newDict)} (category text NOT NULL, code integer NOT NULL, value text NOT NULL)`,
        ),
      );
      await writeDictionary(deps.db, schema, dict.newEntries(), { table: newDict, chunk: 2000 });
      await deps.db.tx(async (tx) => {
        // A smaller sample than PostgreSQL's default, in a short transaction of its own (build-series.ts).
        await tx.rows(sql.raw(`SET LOCAL default_statistics_target = ${CHUNKED_STATISTICS_TARGET}`));
        await tx.rows(sql.raw(`ANALYZE ${ident(schema)}.${ident(next.table)}`));
      });
      const intMs = Date.now() - t;
      const b = await buildSeries(deps.db, schema, def.categories, fill, {
        tag,
        seriesIdFloor: view.seriesIdFloor,
        src: next.table,
        newDict,
        days: next.days,
        leaves: mode === 'full' ? staged.leaves : undefined,
        chunkRows: deps.buildChunkRows,
        signal,
        onLongStatement: (step, ms, statement) =>
          deps.log.debug('long build statement', { jobId: job.id, step, ms, statement }),
        onStep: deps.onBuildStep,
      });
      signal.throwIfAborted();
      await deps.onBuildStep?.('swap');
      const t2 = Date.now();
      await deps.db.tx(async (tx) => {
        await checkStillOurs(tx, job);
        await tx.rows(
          sql.raw(`INSERT INTO ${ident(schema)}.dict (category, code, value)
          SELECT category, code, value FROM ${ident(schema)}.${ident(newDict)}`),
        );
        await swapSeries(tx, schema, tag, next);
      });
      built = { ...b, steps: { int: intMs, ...b.steps, swap: Date.now() - t2 } };
    }
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
      ...(built.statements
        ? {
            buildStatements: built.statements,
            longestStatementMs: built.longestMs,
            longestStatementStep: built.longestStep,
            longStatements: built.longStatements,
          }
        : {}),
    };
    deps.log.info('load committed', { dataViewId: view.id, ...result });
    return { view, result };
  } finally {
    await dropStage(deps.db, schema).catch(() => {});
    // The build's tables, and after a swap the old ones: outside the swap's transaction, one by one.
    await dropBuild(deps.db, schema, tag).catch((e) =>
      deps.log.warn('build tables not dropped (the next load drops them)', { schema, tag, error: e }),
    );
  }
}

/** The staging table's index on day (a chunked build), renamed to int_day when the stage becomes int. */
const STAGE_DAY_INDEX = `${STAGE_TABLE}_day`;

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
