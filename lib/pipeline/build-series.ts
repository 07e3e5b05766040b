/**
 * The series build: from the coded rows of the days a load rebuilds (summed per leaf and day in memory,
 * leaf-cube.ts) and the chunks it keeps, the next cat_map (every category combination reduced by parent
 * links, ids kept across loads), data (each series' days packed in chunks, series-chunks.ts), days
 * and all_series (range, totals, shares), each into a table of its own (`build_<tag>_…`) that nobody
 * reads; swapSeries (build-swap.ts) then renames the old tables out and these in, in one short
 * transaction, and dropBuild drops the old ones after the commit.
 *
 * Steps: series (the leaves and their series, in memory), cat_map, data (each rebuilt chunk rolled up
 * and written; the kept chunks copied), days, all_series (summed from the chunks' stats), then the
 * primary key and ANALYZE. The statements' text is lib/dataset/build-sql.ts's; the runner runs them whole on
 * PostgreSQL (build-runner-whole.ts) and as short statements on PGlite (build-runner-chunked.ts).
 */
import { sql } from 'drizzle-orm';
import { epochDayToYyyymmdd } from '../calendar/days';
import { CHUNK_DAYS, type ChunkRow, chunkStart, packChunk } from '../dataset/series-chunks';
import { writeChunks, writeDays } from '../dataset/series-writer';
import type { BuildRunner } from './build-runner';
import {
  addDataKey,
  allSeriesInsert,
  buildTable,
  buildTableRef,
  buildTotals,
  catMapColumns,
  codeColumns,
  copyKeptChunks,
  copyKeptDays,
  countData,
  createAllSeries,
  createCatMap,
  createData,
  createDays,
  createStats,
  insertStats,
  type Kept,
  keptLeaves,
  storedSeriesIds,
} from '../dataset/build-sql';
import { type CategoryNode, groupingSets } from './grouping';
import type { LeafCube, SeriesChunk } from './leaf-cube';
import { assignIds, type SeriesSet, seriesKey, seriesOfLeaves } from './series-set';

export interface BuildStats {
  series: number;
  /** Daily rows of the series (each from its first day with data to the view's last day), and of them gap-filled. */
  dataRows: number;
  filledRows: number;
  /** Chunk rows written into data (rebuilt and kept). */
  chunkRows: number;
  firstDay: number | null;
  lastDay: number | null;
  /** Milliseconds per step, for the job detail and the benchmark. */
  steps: Record<string, number>;
  /** Statements run, the longest one (ms) and its step, how many took LONG_STATEMENT_MS or more. */
  statements: number;
  longestMs: number;
  longestStep: string;
  longStatements: number;
}

/** What category codes mean: the load's dictionary. */
export interface CodeValues {
  valueOf(i: number, code: number): string | undefined;
}

export interface BuildInput {
  schema: string;
  /** Names this build's tables: `build_<tag>_…` (one tag per load attempt, so attempts never share tables). */
  tag: string;
  categories: CategoryNode[];
  /** The view has a count column (otherwise cnt is not stored). */
  hasCount: boolean;
  /** The rows of every rebuilt chunk, summed per leaf and day. */
  cube: LeafCube;
  /** The stored chunks kept as they are. */
  kept: Kept;
  dict: CodeValues;
  /** New series get ids above this and above every id in cat_map (ids are never given twice, data_views.series_id_floor). */
  seriesIdFloor?: number;
}

/** Chunk rows gathered before one write (PostgreSQL: one COPY of a few MB). */
const WRITE_ROWS = 4_000;

/** Builds cat_map, data, days and all_series into this build's tables (nothing the readers see changes). */
export async function buildSeries(r: BuildRunner, input: BuildInput): Promise<BuildStats> {
  const { schema, tag, categories, kept } = input;
  const q = (name: string) => buildTableRef(schema, tag, name);

  // 1. The leaves (the rebuilt days' and the kept chunks'), their series, and the series' ids.
  await r.enter('series');
  const set = seriesOfLeaves(await allLeaves(r, input), groupingSets(categories));
  const values = (sIdx: number) =>
    categories.map((_, i) => {
      const code = set.codes[sIdx * set.width + i];
      return code === 0 ? null : (input.dict.valueOf(i, code) ?? null);
    });
  const keys = Array.from({ length: set.count }, (_, x) => seriesKey(values(x)));
  const existing = new Map<string, number>();
  let maxId = Math.trunc(input.seriesIdFloor ?? 0);
  for (const row of await r.run<{ id: number; k: string }>(storedSeriesIds(schema))) {
    existing.set(row.k, Number(row.id));
    maxId = Math.max(maxId, Number(row.id));
  }
  const ids = assignIds(keys, set.level, existing, maxId);
  const sorted = Array.from(ids).sort((a, b) => a - b);

  // 2. cat_map.
  await r.enter('cat_map');
  await r.run(createCatMap(schema, tag, categories));
  await writeCatMap(r, q('cat_map'), categories, set, ids, keys, values);

  // 3. data: each rebuilt chunk of every series, then the kept chunks.
  await r.enter('data');
  await r.run(createData(schema, tag, r.keysFirst));
  const dayCounts = new Map<number, number>();
  let chunkRows = await writeRolledUp(r, input, set, ids, buildTable(tag, 'data'), dayCounts);
  if (kept.kind !== 'none') {
    await r.ranges(sorted, 2_000, (lo, hi) => copyKeptChunks(schema, buildTable(tag, 'data'), kept, lo, hi));
    const [n] = await r.run<{ n: number }>(countData(schema, tag));
    chunkRows = Number(n?.n ?? chunkRows);
  }

  // 4. days.
  await r.enter('days');
  await r.run(createDays(schema, tag));
  await r.time(() => writeDays(r.db, schema, buildTable(tag, 'days'), dayCounts), 'days');
  if (kept.kind !== 'none') await r.run(copyKeptDays(schema, buildTable(tag, 'days'), kept));

  return { ...(await finishSeries(r, schema, tag, sorted)), chunkRows };
}

/**
 * The steps after data and days: all_series (per series from the chunks' stats, with the shares of the
 * parent and the total), the primary key of data, statistics; the totals of the build.
 */
export async function finishSeries(
  r: BuildRunner,
  schema: string,
  tag: string,
  sorted: readonly number[],
): Promise<Omit<BuildStats, 'chunkRows'>> {
  const q = (name: string) => buildTableRef(schema, tag, name);
  await r.enter('all_series');
  await r.run(createStats(schema, tag));
  await r.ranges(sorted, 4_000, (lo, hi) => insertStats(schema, tag, lo, hi));
  await r.indexForRanges(q('stats'), 'series_id');
  await r.analyze(q('stats'));
  await r.run(createAllSeries(schema, tag));
  await r.ranges(sorted, 2_000, (lo, hi) =>
    allSeriesInsert(q('all_series'), q('stats'), q('cat_map'), lo, hi),
  );

  // The primary key of data (when not kept up by each insert: one bulk index build), statistics.
  if (!r.keysFirst) {
    await r.enter('index');
    await r.run(addDataKey(schema, tag));
  }
  await r.enter('analyze');
  for (const name of ['data', 'cat_map', 'all_series', 'days']) await r.analyze(q(name));
  const [sum] = await r.run<{
    series: number;
    rows: number;
    present: number;
    first: number | null;
    last: number | null;
  }>(buildTotals(q('stats')));
  return {
    series: Number(sum.series),
    dataRows: Number(sum.rows),
    filledRows: Number(sum.rows) - Number(sum.present),
    firstDay: sum.first === null ? null : Number(sum.first),
    lastDay: sum.last === null ? null : Number(sum.last),
    steps: r.steps,
    statements: r.statements,
    longestMs: r.longestMs,
    longestStep: r.longestStep,
    longStatements: r.longStatements,
  };
}

/** The leaves of the rebuilt days and of the kept chunks (a kept chunk's leaf with no rebuilt day too). */
async function allLeaves(r: BuildRunner, input: BuildInput): Promise<number[][]> {
  const { schema, categories, cube, kept } = input;
  const leaves = cube.leafCodes.slice();
  if (kept.kind === 'none') return leaves;
  if (categories.length === 0) {
    // No categories: the one leaf exists when a kept chunk has data.
    if (leaves.length === 0 && (await r.run(keptLeaves(schema, categories, kept))).length > 0)
      leaves.push([]);
    return leaves;
  }
  const seen = new Set(leaves.map((l) => l.join(',')));
  const k = codeColumns(categories).map((c) => c.replace(/"/g, ''));
  for (const row of await r.run<Record<string, number>>(keptLeaves(schema, categories, kept))) {
    const codes = k.map((c) => Number(row[c]));
    if (!seen.has(codes.join(','))) leaves.push(codes);
  }
  return leaves;
}

export async function writeCatMap(
  r: BuildRunner,
  target: string,
  categories: CategoryNode[],
  set: SeriesSet,
  ids: Int32Array,
  keys: string[],
  values: (s: number) => Array<string | null>,
): Promise<void> {
  const { names, types } = catMapColumns(categories);
  const textCols = categories.map((c) => `c_${c.name.toLowerCase()}`);
  const codeCols = categories.map((c) => `k_${c.name.toLowerCase()}`);
  const per = r.catMapRows;
  for (let i = 0; i < set.count; i += per) {
    const part: Array<Record<string, unknown>> = [];
    for (let x = i; x < Math.min(set.count, i + per); x++) {
      const row: Record<string, unknown> = { series_id: ids[x], level: set.level[x], series_key: keys[x] };
      const vals = values(x);
      for (let c = 0; c < categories.length; c++) {
        row[textCols[c]] = vals[c];
        row[codeCols[c]] = set.codes[x * set.width + c];
      }
      row.parent_series_id = set.parent[x] < 0 ? null : ids[set.parent[x]];
      part.push(row);
    }
    await r.run(
      sql`INSERT INTO ${sql.raw(target)} (${sql.raw(names)}) SELECT ${sql.raw(names)}
        FROM json_to_recordset(${JSON.stringify(part)}::json) AS x(${sql.raw(types)})`,
    );
  }
}

/**
 * Rolls every rebuilt chunk of the cube up into the series and writes their chunk rows into `data`
 * (a build table); counts the series with data per day into `dayCounts`. Returns the rows written.
 */
export async function writeRolledUp(
  r: BuildRunner,
  input: Pick<BuildInput, 'schema' | 'cube' | 'hasCount'>,
  set: SeriesSet,
  ids: Int32Array,
  data: string,
  dayCounts: Map<number, number>,
): Promise<number> {
  const { cube, schema } = input;
  let written = 0;
  let chunk: SeriesChunk | undefined;
  let batch: ChunkRow[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    written += rows.length;
    await r.time(() => writeChunks(r.db, schema, data, rows), `write ${rows.length} chunk rows`);
  };
  const counts = new Int32Array(CHUNK_DAYS);
  for (const c of cube.chunks()) {
    chunk = cube.rollup(c, set, chunk);
    counts.fill(0);
    for (let x = 0; x < set.count; x++) {
      const from = x * CHUNK_DAYS;
      const row = packChunk(ids[x], c, chunk.values, input.hasCount ? chunk.cnts : null, chunk.present, from);
      if (!row) continue;
      for (let t = row.first; t <= row.last; t++) counts[t] += chunk.present[from + t];
      batch.push(row);
      if (batch.length >= WRITE_ROWS) await flush();
    }
    for (let t = 0; t < CHUNK_DAYS; t++)
      if (counts[t] > 0) dayCounts.set(epochDayToYyyymmdd(chunkStart(c) + t), counts[t]);
    cube.drop(c);
  }
  await flush();
  return written;
}
