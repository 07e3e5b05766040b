/**
 * A full load split into parts by day range, each run by a load worker of its own (a shard message on
 * the load queue), combined in the database. The job's own message plans (load-split-plan.ts: one
 * grouped pass over the source gives every leaf, so every category code and every series id is fixed
 * before any part runs), creates the build tables (cat_map written whole; data, days and the staging
 * table of `int` empty) and sends one message per part. A part reads only its days (the load query
 * wrapped in a day predicate, in the source's dialect), stages its rows, sums and rolls up its chunks in memory and writes them
 * with the plan's ids; it first deletes whatever an earlier delivery of it wrote (the parts' day ranges
 * never overlap), so a redelivered part writes its rows once. The part that completes the count (the
 * job's shardsDone, one atomic update) builds all_series and swaps everything in by the same short
 * transaction as an unsplit load. A part failing for good fails the job and drops the build tables:
 * the previous data stays as it was. Only full loads are split; incremental and custom loads, and
 * loads of fewer rows than `jobs.loadSplitRows`, run whole (load.ts). The parts cover the chunks that
 * hold rows, at most `jobs.loadMaxParts` of them (load-split-plan.ts).
 */
import { sql } from 'drizzle-orm';
import { yyyymmddToEpochDay } from '../calendar/days';
import { dropBuildTables, ident } from '../dataset/ddl';
import { chunkOf } from '../dataset/series-chunks';
import { writeDays } from '../dataset/series-writer';
import type { Database } from '../db/database';
import type { DataViewRecord } from '../dataviews/views';
import { readDeployedView } from '../dataviews/scope';
import { systemCaller } from '../identity/caller';
import { dayToDate } from '../dataset/summary';
import { type JobRow, mergeJobDetail } from '../jobs/repository';
import type { ShardRef } from '../queue/port';
import { ConflictError, ValidationError } from '../shared/errors';
import type { BuildRunner } from './build-runner';
import { ChunkedBuildRunner } from './build-runner-chunked';
import { WholeBuildRunner } from './build-runner-whole';
import { finishSeries, writeCatMap, writeRolledUp } from './build-series';
import {
  buildTable,
  buildTableRef,
  countData,
  createCatMap,
  createData,
  createDays,
  storedSeriesIds,
} from '../dataset/build-sql';
import { dropBuild, swapSeries } from './build-swap';
import { groupingSets } from './grouping';
import { LeafCube } from './leaf-cube';
import {
  appendInParts,
  checkStillOurs,
  PGLITE_APPEND_ROWS,
  type LoadDeps,
  type LoadResult,
  STAGE_DAY_INDEX,
} from './load';
import type { DayKind } from '../connectors/source-port';
import {
  dialectOf,
  type LoadPart,
  MAX_LOAD_PARTS,
  partQuery,
  planParts,
  rowShape,
  sourceLeaves,
} from './load-split-plan';
import { codedBatches } from './read-coded';
import { assignIds, seriesKey, seriesOfLeaves } from './series-set';
import {
  createStage,
  Dictionary,
  dropStage,
  readDictionary,
  STAGE_TABLE,
  stageWriter,
  writeDictionary,
} from './stage';

/** A split load as its job record holds it. */
export interface SplitDetail {
  tag: string;
  parts: LoadPart[];
  dateKey: string;
  /** How the source gives the date column (absent in plans written before: integer). */
  dayKind?: DayKind;
  /** Source rows the plan counted. */
  rows: number;
}

export interface SplitOptions {
  /** Split when the source holds more rows than this (0: never). */
  splitRows: number;
  /** Chunks of 112 days per part. */
  partChunks: number;
  /** The most parts (default MAX_LOAD_PARTS): beyond, each part holds more chunks. */
  maxParts?: number;
  /** Sends a part's message (on the load queue). */
  send: (shard: ShardRef) => Promise<void>;
}

function runnerOf(deps: LoadDeps, signal?: AbortSignal): BuildRunner {
  const chunked = deps.buildChunked ?? deps.db.kind === 'pglite';
  const opts = { chunkRows: deps.buildChunkRows, signal, onStep: deps.onBuildStep };
  return chunked ? new ChunkedBuildRunner(deps.db, opts) : new WholeBuildRunner(deps.db, opts);
}

const dictTable = (tag: string) => buildTable(tag, 'dict');

/**
 * The job's own message of a full load: plans it, and when it is large enough, prepares the build and
 * sends the parts' messages (the job stays running: the last part finishes it). Undefined when the load
 * runs whole.
 */
export async function startSplitLoad(
  deps: LoadDeps,
  job: JobRow,
  opts: SplitOptions,
): Promise<SplitDetail | undefined> {
  if (opts.splitRows <= 0 || job.kind !== 'Load') return undefined;
  const view = await readDeployedView(systemCaller(), deps.db, job.dataViewId);
  const def = view.definition;
  if (def.source.loadMode !== 'full' || !def.source.loadQuery?.trim()) return undefined;
  const dict = new Dictionary(
    def.categories.map((c) => c.name),
    await readDictionary(deps.db, view.schema),
  );
  const source = await deps.openSource(def.source.connector);
  const found = await sourceLeaves(source, def.source.loadQuery, rowShape(def), dict, deps.batchSize).finally(
    () => source.close().catch(() => {}),
  );
  if (!found || found.rows <= opts.splitRows) return undefined;
  const parts = planParts(found.days, opts.partChunks, opts.maxParts ?? MAX_LOAD_PARTS);
  if (parts.length < 2) return undefined;
  const tag = `${job.id}_${typeof job.attempts === 'number' ? job.attempts : 0}_${Date.now().toString(36)}`;
  const split: SplitDetail = {
    tag,
    parts,
    dateKey: found.dateKey,
    dayKind: found.dayKind,
    rows: found.rows,
  };
  try {
    await prepareBuild(deps, view, split, found.leaves, dict);
    await mergeJobDetail(deps.db, job.id, { split, shards: parts.length, shardsDone: [] });
    for (let index = 0; index < parts.length; index++)
      await opts.send({ runId: job.id, index, count: parts.length, attempt: job.attempts });
  } catch (e) {
    await abandonSplitLoad(deps.db, view.schema, tag).catch(() => {});
    throw e;
  }
  deps.log.info('load split into parts', {
    parts: parts.length,
    rows: found.rows,
    leaves: found.leaves.length,
  });
  return split;
}

/** The build tables of a split load: cat_map whole, the new dictionary entries, the leaves and ids, data and days empty. */
async function prepareBuild(
  deps: LoadDeps,
  view: DataViewRecord,
  split: SplitDetail,
  leaves: number[][],
  dict: Dictionary,
): Promise<void> {
  const { schema } = view;
  const { tag } = split;
  const categories = view.definition.categories;
  const s = ident(schema);
  await dropBuildTables(deps.db, schema);
  await createStage(deps.db, schema, { categories });
  // The index on day from the start: a redelivered part finds the rows it wrote before by it.
  await deps.db.rows(sql.raw(`CREATE INDEX ${ident(STAGE_DAY_INDEX)} ON ${s}.${STAGE_TABLE} (day)`));
  const r = runnerOf(deps);
  const set = seriesOfLeaves(leaves, groupingSets(categories));
  const values = (x: number) =>
    categories.map((_, i) => {
      const code = set.codes[x * set.width + i];
      return code === 0 ? null : (dict.valueOf(i, code) ?? null);
    });
  const keys = Array.from({ length: set.count }, (_, x) => seriesKey(values(x)));
  const existing = new Map<string, number>();
  let maxId = Math.trunc(view.seriesIdFloor ?? 0);
  for (const row of await r.run<{ id: number; k: string }>(storedSeriesIds(schema))) {
    existing.set(row.k, Number(row.id));
    maxId = Math.max(maxId, Number(row.id));
  }
  const ids = assignIds(keys, set.level, existing, maxId);
  await r.run(createCatMap(schema, tag, categories));
  await writeCatMap(r, buildTableRef(schema, tag, 'cat_map'), categories, set, ids, keys, values);
  await r.run(createData(schema, tag, r.keysFirst));
  await r.run(createDays(schema, tag));
  await r.run(
    `CREATE TABLE ${buildTableRef(schema, tag, 'dict')} (category text NOT NULL, code integer NOT NULL, value text NOT NULL)`,
  );
  await writeDictionary(deps.db, schema, dict.newEntries(), { table: dictTable(tag), chunk: 2000 });
  await r.run(
    `CREATE TABLE ${buildTableRef(schema, tag, 'leaves')} (ord integer NOT NULL, codes integer[] NOT NULL)`,
  );
  await r.run(
    `CREATE TABLE ${buildTableRef(schema, tag, 'ids')} (ord integer NOT NULL, id integer NOT NULL)`,
  );
  for (let i = 0; i < Math.max(leaves.length, ids.length); i += 5000) {
    const l = leaves.slice(i, i + 5000).map((codes, k) => ({ ord: i + k, codes }));
    const x = Array.from(ids.slice(i, i + 5000)).map((id, k) => ({ ord: i + k, id }));
    await deps.db.rows(sql`INSERT INTO ${sql.raw(buildTableRef(schema, tag, 'leaves'))} (ord, codes)
      SELECT ord, codes FROM json_to_recordset(${JSON.stringify(l)}::json) AS x(ord int, codes int[])`);
    await deps.db.rows(sql`INSERT INTO ${sql.raw(buildTableRef(schema, tag, 'ids'))} (ord, id)
      SELECT ord, id FROM json_to_recordset(${JSON.stringify(x)}::json) AS x(ord int, id int)`);
  }
}

/** Drops a split load's build tables and staging table (a failed or abandoned load). */
export async function abandonSplitLoad(db: Database, schema: string, tag: string): Promise<void> {
  await dropStage(db, schema);
  await dropBuildTables(db, schema, tag);
}

/** The dictionary, leaves and series ids of the plan, as a part reads them. */
async function readPlan(db: Database, schema: string, tag: string, categories: string[]) {
  const dict = new Dictionary(categories, [
    ...(await readDictionary(db, schema)),
    ...(await db.rows<{ category: string; code: number; value: string }>(
      sql.raw(`SELECT category, code, value FROM ${buildTableRef(schema, tag, 'dict')}`),
    )),
  ]);
  const leaves = (
    await db.rows<{ codes: number[] }>(
      sql.raw(`SELECT codes FROM ${buildTableRef(schema, tag, 'leaves')} ORDER BY ord`),
    )
  ).map((r) => r.codes.map(Number));
  const ids = Int32Array.from(
    (
      await db.rows<{ id: number }>(
        sql.raw(`SELECT id FROM ${buildTableRef(schema, tag, 'ids')} ORDER BY ord`),
      )
    ).map((r) => Number(r.id)),
  );
  return { dict, leaves, ids };
}

/** What a part did. */
export interface PartResult {
  rows: number;
  chunkRows: number;
  ms: number;
  /** Peak resident memory of the worker process when the part ended (bytes). */
  rss: number;
}

/** Deletes what an earlier delivery of this part wrote (the parts' days never overlap). */
async function clearPart(db: Database, schema: string, tag: string, part: LoadPart): Promise<void> {
  const s = ident(schema);
  const days = `day >= ${Number(part.from)} AND day < ${Number(part.to)}`;
  await db.rows(sql.raw(`DELETE FROM ${s}.${STAGE_TABLE} WHERE ${days}`));
  await db.rows(sql.raw(`DELETE FROM ${buildTableRef(schema, tag, 'days')} WHERE ${days}`));
  const lo = chunkOf(yyyymmddToEpochDay(part.from));
  const hi = chunkOf(yyyymmddToEpochDay(part.to)) - 1;
  await db.rows(
    sql.raw(`DELETE FROM ${buildTableRef(schema, tag, 'data')} WHERE chunk BETWEEN ${lo} AND ${hi}`),
  );
}

/**
 * Fails when the source gave a part a row of a day outside it: the source compared the date column in
 * another time zone than the load reads it in (a TIMESTAMP WITH TIME ZONE read as its day in UTC).
 */
function outsidePart(days: number[], part: LoadPart, dateColumn: string): void {
  for (const d of days) {
    if (d >= part.from && d < part.to) continue;
    throw new ValidationError(
      `The source gave the load part of the days from ${part.from} a row of day ${d}: it compares the date column ` +
        `${dateColumn} in another time zone than the load reads it (its day in UTC). Convert it to a date in the ` +
        `load query, e.g. CAST(${dateColumn} AT TIME ZONE 'UTC' AS date).`,
    );
  }
}

/** One part: reads, stages, sums and writes the chunks of its days. */
export async function runLoadPart(
  deps: LoadDeps,
  view: DataViewRecord,
  split: SplitDetail,
  index: number,
  signal: AbortSignal,
): Promise<PartResult> {
  const t0 = Date.now();
  const def = view.definition;
  const { schema } = view;
  const part = split.parts[index];
  const shape = rowShape(def);
  const plan = await readPlan(deps.db, schema, split.tag, shape.categories);
  const set = seriesOfLeaves(plan.leaves, groupingSets(def.categories));
  await clearPart(deps.db, schema, split.tag, part);
  const cube = new LeafCube(def.categories.length);
  cube.seed(plan.leaves);
  const dataset = { categories: def.categories };
  const appendRows = deps.db.kind === 'pglite' ? PGLITE_APPEND_ROWS : Number.POSITIVE_INFINITY;
  const stager = stageWriter(deps.db, schema, dataset, (b) =>
    appendInParts(deps.db, schema, dataset, b, appendRows),
  );
  const changed = (what: string) =>
    new ConflictError(
      `The source changed while the load ran in parts (${what} the plan did not find); load again.`,
    );
  const source = await deps.openSource(def.source.connector);
  let rows = 0;
  try {
    const kind = split.dayKind ?? 'integer';
    const text = partQuery(def.source.loadQuery ?? '', split.dateKey, part, kind, dialectOf(source));
    const opts = { batchSize: deps.batchSize, signal };
    for await (const coded of codedBatches(source, text, opts, shape, plan.dict)) {
      rows += coded.days.length;
      outsidePart(coded.days, part, def.source.dateColumn);
      if (plan.dict.newEntries().length > 0) throw changed('a category value');
      cube.add(coded);
      if (cube.leaves > set.leaves) throw changed('a category combination');
      await stager.append(coded);
      signal.throwIfAborted();
    }
    await stager.flush();
  } finally {
    await source.close().catch(() => {});
  }
  const r = runnerOf(deps, signal);
  const dayCounts = new Map<number, number>();
  const hasCount = Boolean(def.source.countColumn);
  const data = buildTable(split.tag, 'data');
  const chunkRows = await writeRolledUp(r, { schema, cube, hasCount }, set, plan.ids, data, dayCounts);
  await writeDays(deps.db, schema, buildTable(split.tag, 'days'), dayCounts);
  return { rows, chunkRows, ms: Date.now() - t0, rss: process.memoryUsage().rss };
}

/** The last part's work: all_series, then the swap of everything in one short transaction. */
export async function combineSplitLoad(
  deps: LoadDeps,
  job: JobRow,
  view: DataViewRecord,
  split: SplitDetail,
  signal: AbortSignal,
): Promise<LoadResult> {
  const t0 = Date.now();
  const { schema } = view;
  const s = ident(schema);
  const { tag } = split;
  const r = runnerOf(deps, signal);
  const sorted = (
    await r.run<{ id: number }>(`SELECT id FROM ${buildTableRef(schema, tag, 'ids')} ORDER BY id`)
  ).map((x) => Number(x.id));
  // A combine delivered again (the last part's worker stopped after counting) starts its steps afresh.
  await r.run(
    `DROP TABLE IF EXISTS ${buildTableRef(schema, tag, 'stats')}, ${buildTableRef(schema, tag, 'all_series')}`,
  );
  if (!r.keysFirst)
    await r.run(
      `ALTER TABLE ${buildTableRef(schema, tag, 'data')} DROP CONSTRAINT IF EXISTS ${ident(`${buildTable(tag, 'data')}_pkey`)}`,
    );
  const built = await finishSeries(r, schema, tag, sorted);
  const [n] = await r.run<{ n: number }>(countData(schema, tag));
  const [staged] = await r.run<{ n: number }>(`SELECT count(*)::float8 AS n FROM ${s}.${STAGE_TABLE}`);
  await r.analyze(`${s}.${STAGE_TABLE}`);
  await r.enter('swap');
  await r.time(() =>
    deps.db.tx(async (tx) => {
      await checkStillOurs(tx, job);
      await tx.rows(
        sql.raw(`INSERT INTO ${s}.dict (category, code, value)
          SELECT category, code, value FROM ${buildTableRef(schema, tag, 'dict')}`),
      );
      await swapSeries(tx, schema, tag, { table: STAGE_TABLE, dayIndex: STAGE_DAY_INDEX });
    }),
  );
  const result: LoadResult = {
    mode: 'full',
    rows: Number(staged?.n ?? 0),
    series: built.series,
    dataRows: built.dataRows,
    filledRows: built.filledRows,
    chunkRows: Number(n?.n ?? 0),
    firstDate: dayToDate(built.firstDay),
    lastDate: dayToDate(built.lastDay),
    streamMs: 0,
    buildMs: Date.now() - t0,
    buildSteps: r.steps,
    buildStatements: r.statements,
    longestStatementMs: r.longestMs,
    longestStatementStep: r.longestStep,
    longStatements: r.longStatements,
  };
  deps.log.info('split load committed', { dataViewId: view.id, parts: split.parts.length, ...result });
  // After the swap (the staging table is int now): the old tables, renamed into the build's.
  await dropBuild(deps.db, schema, tag).catch((e) =>
    deps.log.warn('build tables not dropped (the next load drops them)', { schema, tag, error: e }),
  );
  return result;
}
