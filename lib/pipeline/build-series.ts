/**
 * The series build, set-based in SQL: cat_map (every category combination reduced by parent links, ids
 * kept across loads), data (one row per series and day from the series' first day to the view's last
 * day, gaps filled) and all_series (range, totals, shares). One GROUPING SETS pass over the integer-coded
 * rows makes every series at once.
 *
 * Everything is built into tables of its own (`build_<tag>_…`, regular tables in the view's schema) that
 * nobody reads; swapSeries then renames the old tables out and these in, in one short transaction, and
 * dropBuild drops the old ones after the commit.
 * Two ways to run it (lib/pipeline/load.ts chooses):
 * - in the load's one transaction, one statement per step (PostgreSQL: other sessions run beside it);
 * - chunked, each statement on its own (PGlite: one session serves every connection and a transaction
 *   holds all of them, so each statement is kept short and other connections' queries run between them).
 *   The GROUPING SETS pass runs by day ranges (day is in every grouping set, so day ranges are
 *   independent; a day of more than SPLIT_ROWS rows in parts of the grouping sets), the per-series steps
 *   by series id ranges; every range is sized from the time the previous one took (about
 *   CHUNK_TARGET_MS). data is partitioned by series id range there (partitionRanges).
 * docs/performance.md ("Status while a load runs") has the figures.
 */
import { sql } from 'drizzle-orm';
import {
  allSeriesColumnsDdl,
  BUILD_TABLE_PREFIX,
  catMapColumnsDdl,
  categoryColumn,
  codeColumn,
  DATA_COLUMNS_DDL,
  dictKey,
  dropBuildTables,
  ident,
} from '../dataset/ddl';
import type { Database } from '../db/database';
import type { FillGapMethod } from '../dataviews/definition/types';
import { type CategoryNode, type GroupingSet, groupingSets } from './grouping';

export interface BuildStats {
  series: number;
  /** Rows of data with source values, and rows added by gap filling. */
  dataRows: number;
  filledRows: number;
  firstDay: number | null;
  lastDay: number | null;
  /** Milliseconds per step, for the job detail and the benchmark. */
  steps: Record<string, number>;
  /** Chunked builds: the statements run, the longest one (ms) and its step, and how many took LONG_STATEMENT_MS or more. */
  statements?: number;
  longestMs?: number;
  longestStep?: string;
  longStatements?: number;
}

/** How long one statement of a chunked build should take (ms): what another query may wait on PGlite. */
export const CHUNK_TARGET_MS = 25;

/**
 * A day of more rows than this is built in parts of the grouping sets, about this many rows per part:
 * on PGlite a hotel-view day (1,900 rows, 16 sets) took 55 ms whole and at most 23 ms in four parts of
 * every fourth set (64 ms in all), at a load average of 11. The parts read the day's rows again, but the
 * aggregation into the sets is most of the work.
 */
export const SPLIT_ROWS = 600;

/** default_statistics_target of a chunked build's ANALYZE (300 × this rows sampled; PostgreSQL's default is 100). */
export const CHUNKED_STATISTICS_TARGET = 10;

export interface BuildOptions {
  /** Names this build's tables: `build_<tag>_…` (one tag per load attempt, so attempts never share tables). */
  tag: string;
  /** The coded rows to build from: a table of the schema (`int`, or the load's next `int`). */
  src: string;
  /** A table of the schema with dictionary entries not in `dict` yet (chunked builds write dict at the swap). */
  newDict?: string;
  /**
   * Chunked build: the days of `src` with their (estimated) rows, ascending; `src` has an index on day.
   * Absent: one statement per step (inside the caller's transaction).
   */
  days?: Array<{ day: number; rows: number }>;
  /** Target duration of a chunk's statement (ms; default CHUNK_TARGET_MS). */
  targetMs?: number;
  /** Fixed rows per chunk instead of sizing by time (tests: 1 makes every day and series a statement). */
  chunkRows?: number;
  /** The distinct code combinations of `src` when the caller knows them (a full load saw every row): no pass over `src` for them. */
  leaves?: number[][];
  /** New series get ids above this and above every id in cat_map (ids are never given twice, data_views.series_id_floor). */
  seriesIdFloor?: number;
  /** Checked between statements of a chunked build. */
  signal?: AbortSignal;
  /** Called at the start of each step (tests observe the build with it). */
  onStep?: (step: string) => Promise<void> | void;
  /** Called after a statement of LONG_STATEMENT_MS or more (its step, duration and text). */
  onLongStatement?: (step: string, ms: number, text: string) => void;
}

/** A build statement this long (ms) is counted and reported (PGlite: what status may have waited for). */
export const LONG_STATEMENT_MS = 100;

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The name of build table `name` of build `tag` (unquoted). */
export function buildTable(tag: string, name: string): string {
  return `${BUILD_TABLE_PREFIX}${tag}_${name}`;
}

/** Runs statements, timing them per step; `chunks` runs one statement per range of keys, sized by time. */
class Runner {
  readonly steps: Record<string, number> = {};
  step = 'series';
  statements = 0;
  longestMs = 0;
  longestStep = '';
  longStatements = 0;
  constructor(
    private readonly db: Database,
    private readonly opts: BuildOptions,
  ) {}

  async run<T = Record<string, unknown>>(text: string): Promise<T[]> {
    this.opts.signal?.throwIfAborted();
    const t0 = Date.now();
    try {
      return await this.db.rows<T>(sql.raw(text));
    } finally {
      this.note(Date.now() - t0, text);
    }
  }

  /** Counts a statement of `ms` into its step, and reports a long one. */
  private note(ms: number, text: string): void {
    this.steps[this.step] = (this.steps[this.step] ?? 0) + ms;
    this.statements++;
    if (ms > this.longestMs) {
      this.longestMs = ms;
      this.longestStep = this.step;
    }
    if (ms >= LONG_STATEMENT_MS) {
      this.longStatements++;
      this.opts.onLongStatement?.(this.step, ms, text.replace(/\s+/g, ' ').slice(0, 160));
    }
  }

  /**
   * ANALYZE of a build table. A chunked build samples fewer rows (ANALYZE reads its sample in one
   * statement: 30,000 rows of a 4 M-row table took about 1 s on PGlite); SET LOCAL keeps the setting
   * to this short transaction (PGlite's one session is every connection's).
   */
  async analyze(table: string): Promise<void> {
    if (!this.opts.days) {
      await this.run(`ANALYZE ${table}`);
      return;
    }
    this.opts.signal?.throwIfAborted();
    const t0 = Date.now();
    await this.db.tx(async (tx) => {
      await tx.rows(sql.raw(`SET LOCAL default_statistics_target = ${CHUNKED_STATISTICS_TARGET}`));
      await tx.rows(sql.raw(`ANALYZE ${table}`));
    });
    this.note(Date.now() - t0, `ANALYZE ${table}`);
  }

  async enter(step: string): Promise<void> {
    this.step = step;
    await this.opts.onStep?.(step);
  }

  /**
   * Runs `statements(lo, hi, parts)` for consecutive ranges of `keys` (ascending; `weight` of each in
   * rows), starting at `budget` rows per range and then sizing each range so that its statements take
   * about the target time. A single key of more than SPLIT_ROWS rows asks for `parts` > 1 (the caller
   * splits its statement). Returns the rows of every statement.
   */
  async chunks<T>(
    keys: number[],
    weight: (i: number) => number,
    budget: number,
    statements: (lo: number, hi: number, parts: number) => string[],
  ): Promise<T[]> {
    // Below this a statement's fixed cost (planning, the join's hash of the series) dominates: smaller
    // ranges would not make statements shorter, only more of them.
    const fixed = this.opts.chunkRows;
    if (fixed) budget = fixed;
    const floor = fixed ?? budget / 4;
    const target = this.opts.targetMs ?? CHUNK_TARGET_MS;
    const out: T[] = [];
    let perRow: number | undefined; // ms per row, smoothed
    for (let i = 0; i < keys.length; ) {
      let j = i;
      let w = 0;
      do w += weight(j++);
      while (j < keys.length && w + weight(j) <= budget);
      // A range of one key above SPLIT_ROWS is split, by rows, not by time (a busy machine makes every
      // statement slow; splitting further then would only multiply the reading).
      const split = fixed ?? SPLIT_ROWS;
      const parts = j - i === 1 && w > split ? Math.ceil(w / split) : 1;
      const t0 = Date.now();
      for (const text of statements(keys[i], keys[j - 1], parts)) out.push(...(await this.run<T>(text)));
      i = j;
      if (fixed) continue;
      const ms = Math.max(1, Date.now() - t0);
      const rate = ms / Math.max(1, w);
      perRow = perRow === undefined ? rate : 0.5 * perRow + 0.5 * rate;
      budget = Math.min(budget * 4, Math.max(budget / 4, target / perRow, floor));
    }
    return out;
  }
}

/**
 * Builds cat_map, data and all_series of `schema` from `opts.src` into this build's tables (nothing the
 * readers see changes); swapSeries puts them in place.
 */
export async function buildSeries(
  db: Database,
  schema: string,
  categories: CategoryNode[],
  fill: FillGapMethod,
  opts: BuildOptions,
): Promise<BuildStats> {
  const s = ident(schema);
  const r = new Runner(db, opts);
  const run = (text: string) => r.run(text);
  const chunked = opts.days !== undefined;
  const t = (name: string) => `${s}.${ident(buildTable(opts.tag, name))}`;
  const src = `${s}.${ident(opts.src)}`;
  const n = categories.length;
  const k = categories.map((c) => codeColumn(c.name));
  const sets = groupingSets(categories);
  const list = (xs: string[]) => xs.join(', ');
  const grouping = n ? `GROUPING(${list(k)})` : '0';
  const setsOf = (extra: string[], of: GroupingSet[] = sets) =>
    of.map((g) => `(${list([...extra, ...g.members.map((i) => k[i])])})`).join(', ');
  const coalesced = list(k.map((c) => `COALESCE(${c}, 0) AS ${c}`));
  // The codes a part of the grouping sets groups by; the others are "all" (0) in every one of its sets.
  const grouped = (of: GroupingSet[]) => new Set(of.flatMap((g) => g.members.map((i) => k[i])));
  const coalescedOf = (of: GroupingSet[]) => {
    const has = grouped(of);
    return list(k.map((c) => (has.has(c) ? `COALESCE(${c}, 0) AS ${c}` : `0 AS ${c}`)));
  };
  const sameCodes = (a: string, b: string) => k.map((c) => `${a}.${c} = ${b}.${c}`).join(' AND ') || 'true';
  const days = opts.days ?? [];
  const dayKeys = days.map((d) => d.day);
  const dayRows = (i: number) => Math.max(1, days[i].rows);
  const between = (col: string, lo: number, hi: number) => `${col} BETWEEN ${lo} AND ${hi}`;

  // 1. The leaves (distinct code combinations of the rows), then the series: the grouping sets over the
  // leaves (tiny next to the rows).
  await r.enter('series');
  const leafCols = n ? list(k) : '1 AS one';
  await run(`CREATE TABLE ${t('leaves')} AS SELECT ${leafCols} FROM ${src} WHERE false`);
  if (chunked && opts.leaves && n) {
    for (let i = 0; i < opts.leaves.length; i += 5_000) {
      const part = opts.leaves.slice(i, i + 5_000);
      const arrays = k.map((_, j) => `'{${part.map((l) => l[j]).join(',')}}'::int[]`);
      await run(`INSERT INTO ${t('leaves')} (${list(k)}) SELECT * FROM unnest(${list(arrays)})`);
    }
  } else if (chunked) {
    if (n) await run(`CREATE UNIQUE INDEX ON ${t('leaves')} (${list(k)})`);
    await r.chunks(dayKeys, dayRows, 4_000, (lo, hi) => [
      `INSERT INTO ${t('leaves')} SELECT DISTINCT ${leafCols} FROM ${src} WHERE ${between('day', lo, hi)}
        ${n ? 'ON CONFLICT DO NOTHING' : ''}`,
    ]);
  } else {
    await run(`INSERT INTO ${t('leaves')} SELECT ${leafCols} FROM ${src} GROUP BY ${n ? list(k) : '1'}`);
  }
  await run(`CREATE TABLE ${t('series')} AS
    SELECT ${grouping} AS g${n ? `, ${coalesced}` : ''}
    FROM (SELECT DISTINCT ${leafCols} FROM ${t('leaves')}) l
    ${n ? `GROUP BY GROUPING SETS (${setsOf([])})` : ''}`);

  // One bigint per code combination (mixed radix over the codes): joining on it is about 2x faster
  // than joining on every code column. Falls back to the columns if the radix product overflows.
  const skey = await seriesKey(r, t('series'), k);

  // 2. Their values, key, level and id: an existing series keeps its id, a new one gets the next.
  const dict = opts.newDict
    ? `(SELECT category, code, value FROM ${s}.dict UNION ALL SELECT category, code, value FROM ${s}.${ident(opts.newDict)})`
    : `${s}.dict`;
  const joins = categories
    .map(
      (c, i) =>
        `LEFT JOIN ${dict} d${i} ON d${i}.category = ${q(dictKey(c.name))} AND d${i}.code = n.${k[i]}`,
    )
    .join(' ');
  const values = categories.map((c, i) => `d${i}.value AS ${categoryColumn(c.name)}`);
  const keyParts = k.map((c, i) => `CASE WHEN n.${c} = 0 THEN 'null' ELSE to_json(d${i}.value)::text END`);
  const key = n ? `'[' || concat_ws(',', ${list(keyParts)}) || ']'` : `'[]'`;
  const level = n ? k.map((c) => `(n.${c} <> 0)::int`).join(' + ') : '0';
  const removed = `CASE n.g ${sets.map((g) => `WHEN ${g.mask} THEN ${g.removed ?? 'NULL'}`).join(' ')} END`;
  await r.enter('cat_map');
  const cm = t('cm');
  await run(`CREATE TABLE ${cm} AS
    SELECT x.*, CASE WHEN m.series_id IS NOT NULL THEN m.series_id
        ELSE greatest((SELECT coalesce(max(series_id), 0) FROM ${s}.cat_map), ${Math.trunc(opts.seriesIdFloor ?? 0)})
          + (row_number() OVER (PARTITION BY m.series_id IS NULL ORDER BY x.level, x.series_key))::int END AS series_id,
      NULL::integer AS parent_series_id
    FROM (SELECT n.*${values.length ? `, ${list(values)}` : ''}, ${key} AS series_key, (${level})::smallint AS level,
        (${removed})::int AS removed, ${skey ? skey('n') : 'NULL::bigint'} AS skey
      FROM ${t('series')} n ${joins}) x
    LEFT JOIN ${s}.cat_map m ON m.series_key = x.series_key`);
  if (n) {
    const parentCodes = k
      .map((c, i) => `p.${c} = CASE WHEN c.removed = ${i} THEN 0 ELSE c.${c} END`)
      .join(' AND ');
    await run(
      `UPDATE ${cm} c SET parent_series_id = p.series_id FROM ${cm} p WHERE c.removed IS NOT NULL AND ${parentCodes}`,
    );
  }
  await r.analyze(cm);
  const mapCols = list([...categories.map((c) => categoryColumn(c.name)), ...k]);
  const catMap = buildTable(opts.tag, 'cat_map');
  await run(`CREATE TABLE ${s}.${ident(catMap)} (${catMapColumnsDdl({ categories }, catMap)})`);
  await run(`INSERT INTO ${s}.${ident(catMap)} (series_id, ${mapCols ? `${mapCols}, ` : ''}level, parent_series_id, series_key)
    SELECT series_id, ${mapCols ? `${mapCols}, ` : ''}level, parent_series_id, series_key FROM ${cm}`);
  const ids = chunked
    ? (await run(`SELECT series_id FROM ${cm} ORDER BY 1`)).map((x) => Number(x.series_id))
    : [];

  // 3. One value per series and day: the GROUPING SETS pass.
  await r.enter('data');
  const data = buildTable(opts.tag, 'data');
  if (chunked) {
    // The GROUPING SETS pass writes day by day, so a series' rows land on as many pages as it has days;
    // the per-series steps (stats, gap filling) and detection read by series. Partitions by series id
    // range keep each series' pages within a partition small enough to stay in PGlite's buffers.
    // The primary key is there from the start (each insert maintains it, statement by statement; one
    // CREATE INDEX over every row would be one statement of seconds).
    await run(`CREATE TABLE ${s}.${ident(data)} (${DATA_COLUMNS_DDL}) PARTITION BY RANGE (series_id)`);
    // Partitions are named after the build (data_<tag>_p<i>), not build_…: they keep their names when
    // the table becomes data (no renames in the swap), and go with it when it is dropped.
    const ranges = partitionRanges(ids, Math.max(1, dayKeys.length));
    for (const [i, [lo, hi]] of ranges.entries()) {
      await run(
        `CREATE TABLE ${s}.${ident(partitionName(opts.tag, i))} PARTITION OF ${s}.${ident(data)} FOR VALUES FROM (${lo}) TO (${hi})`,
      );
    }
    await run(
      `ALTER TABLE ${s}.${ident(data)} ADD CONSTRAINT ${ident(`${data}_pkey`)} PRIMARY KEY (series_id, day)`,
    );
  } else {
    // One statement per step: the primary key at the end (a bulk index build is faster).
    await run(`CREATE TABLE ${s}.${ident(data)} (${DATA_COLUMNS_DDL})`);
  }
  const cube = (
    where: string,
    of: GroupingSet[],
  ) => `INSERT INTO ${s}.${ident(data)} (series_id, day, value, cnt)
    SELECT c.series_id, a.day, a.v, a.n
    FROM (SELECT day${skey ? `, ${skey(null, grouped(of))} AS skey` : n ? `, ${coalescedOf(of)}` : ''}, sum(value) AS v, sum(cnt) AS n
      FROM ${src} ${where} GROUP BY ${n ? `GROUPING SETS (${setsOf(['day'], of)})` : 'day'}) a
    JOIN ${cm} c ON ${skey ? 'c.skey = a.skey' : sameCodes('c', 'a')}`;
  if (chunked) {
    await r.chunks(dayKeys, dayRows, 1_000, (lo, hi, parts) => {
      const p = Math.min(parts, sets.length);
      return Array.from({ length: p }, (_, i) =>
        cube(
          `WHERE ${between('day', lo, hi)}`,
          // Every p-th set: the sets are ordered by size, so each part gets small and large ones.
          sets.filter((_, x) => x % p === i),
        ),
      );
    });
  } else {
    await run(cube('', sets));
  }

  // 4. Per series: range, days with data and totals, before any filling.
  await r.enter('stats');
  const stats = t('stats');
  const statsOf = (
    where: string,
  ) => `SELECT series_id, min(day) AS first_day, max(day) AS last_day, count(*)::int AS days,
      sum(value) AS total_value, sum(cnt) AS total_count
    FROM ${s}.${ident(data)} ${where} GROUP BY series_id`;
  // Rows per series are at most the days of the view: the first range's budget assumes that many.
  const perSeries = Math.max(1, dayKeys.length);
  if (chunked) {
    await run(`CREATE TABLE ${stats} AS ${statsOf('WHERE false')}`);
    await r.chunks(
      ids,
      () => perSeries,
      8_000,
      (lo, hi) => [`INSERT INTO ${stats} ${statsOf(`WHERE ${between('series_id', lo, hi)}`)}`],
    );
    await run(`CREATE UNIQUE INDEX ON ${stats} (series_id)`);
  } else {
    await run(`CREATE TABLE ${stats} AS ${statsOf('')}`);
  }
  await r.analyze(stats);
  await run(`CREATE TABLE ${t('days')} AS
    SELECT to_char(d, 'YYYYMMDD')::int AS day, (row_number() OVER (ORDER BY d))::int AS idx
    FROM generate_series(to_date((SELECT min(first_day) FROM ${stats})::text, 'YYYYMMDD'),
      to_date((SELECT max(last_day) FROM ${stats})::text, 'YYYYMMDD'), interval '1 day') AS d`);
  await r.enter('fill');
  const filled = await fillGaps(r, s, ident(data), t, fill, chunked, perSeries);

  // 5. The series summary.
  await r.enter('all_series');
  const all = buildTable(opts.tag, 'all_series');
  await run(`CREATE TABLE ${s}.${ident(all)} (${allSeriesColumnsDdl(all)})`);
  const summary = (
    where: string,
  ) => `INSERT INTO ${s}.${ident(all)} (series_id, first_day, last_day, days, total_value, total_count, share_parent, share_total)
    SELECT st.series_id, st.first_day, st.last_day, st.days, st.total_value, st.total_count,
      100 * st.total_value / NULLIF(p.total_value, 0),
      100 * st.total_value / NULLIF(root.total_value, 0)
    FROM ${stats} st JOIN ${cm} c ON c.series_id = st.series_id
    LEFT JOIN ${stats} p ON p.series_id = c.parent_series_id
    LEFT JOIN (SELECT t.total_value FROM ${stats} t JOIN ${cm} r ON r.series_id = t.series_id WHERE r.level = 0) root ON true
    ${where}`;
  if (chunked) {
    await r.chunks(
      ids,
      () => 1,
      1_000,
      (lo, hi) => [summary(`WHERE ${between('st.series_id', lo, hi)}`)],
    );
  } else {
    await run(summary(''));
  }
  if (!chunked) {
    await r.enter('index');
    await run(
      `ALTER TABLE ${s}.${ident(data)} ADD CONSTRAINT ${ident(`${data}_pkey`)} PRIMARY KEY (series_id, day)`,
    );
  }
  await r.enter('analyze');
  if (chunked) {
    // Partition by partition (ANALYZE of the partitioned table samples every partition in one
    // statement); status sums the partitions' estimates (lib/dataset/summary.ts).
    for (const p of await partitionsOf(r, schema, data)) await r.analyze(`${s}.${ident(p)}`);
  } else {
    await r.analyze(`${s}.${ident(data)}`);
  }
  const [sum] = await r.run<{ series: number; rows: number; first: number | null; last: number | null }>(
    `SELECT count(*)::int AS series, coalesce(sum(days), 0)::bigint AS rows, min(first_day) AS first, max(last_day) AS last FROM ${stats}`,
  );
  return {
    series: Number(sum.series),
    dataRows: Number(sum.rows),
    filledRows: filled,
    firstDay: sum.first === null ? null : Number(sum.first),
    lastDay: sum.last === null ? null : Number(sum.last),
    steps: r.steps,
    ...(chunked
      ? {
          statements: r.statements,
          longestMs: r.longestMs,
          longestStep: r.longestStep,
          longStatements: r.longStatements,
        }
      : {}),
  };
}

/**
 * Puts build `tag`'s cat_map, data and all_series in place of the view's (and, when `int` is given, that
 * table in place of `int`). Call inside a transaction: readers see the old tables or the new ones, never
 * a mix. The old tables are renamed to build tables of `tag` (build_<tag>_old_…): dropping them and the
 * rest of the build (dropBuildTables) after the commit keeps the transaction short.
 */
export async function swapSeries(
  db: Database,
  schema: string,
  tag: string,
  int?: { table: string; dayIndex: string },
): Promise<void> {
  const s = ident(schema);
  const rename = (kind: 'TABLE' | 'INDEX', from: string, to: string) =>
    db.rows(sql.raw(`ALTER ${kind} ${s}.${ident(from)} RENAME TO ${ident(to)}`));
  // A table and the indexes of its constraints (named <table>_<suffix>).
  const swap = async (name: string, indexes: string[], next: string) => {
    const old = buildTable(tag, `old_${name}`);
    await rename('TABLE', name, old);
    for (const x of indexes) await rename('INDEX', `${name}_${x}`, `${old}_${x}`);
    await rename('TABLE', next, name);
    for (const x of indexes) await rename('INDEX', `${next}_${x}`, `${name}_${x}`);
  };
  if (int) {
    const old = buildTable(tag, 'old_int');
    await rename('TABLE', 'int', old);
    await rename('INDEX', 'int_day', `${old}_day`);
    await rename('TABLE', int.table, 'int');
    await rename('INDEX', int.dayIndex, 'int_day');
  }
  await swap('cat_map', ['pkey', 'series_key_key'], buildTable(tag, 'cat_map'));
  await swap('data', ['pkey'], buildTable(tag, 'data'));
  await swap('all_series', ['pkey'], buildTable(tag, 'all_series'));
}

/**
 * Drops build `tag`'s tables (after the swap: the old tables among them) one statement at a time: a
 * partitioned table's partitions one by one, then the table.
 */
export async function dropBuild(db: Database, schema: string, tag: string): Promise<void> {
  const s = ident(schema);
  const r = { run: <T>(text: string) => db.rows<T>(sql.raw(text)) };
  for (const t of ['old_data', 'data']) {
    const [exists] = await db.rows<{ ok: boolean }>(
      sql`SELECT to_regclass(${`${s}.${ident(buildTable(tag, t))}`}) IS NOT NULL AS ok`,
    );
    if (!exists?.ok) continue;
    for (const p of await partitionsOf(r, schema, buildTable(tag, t)))
      await db.rows(sql.raw(`DROP TABLE ${s}.${ident(p)}`));
  }
  await dropBuildTables(db, schema, tag);
}

/** The name of partition `i` of build `tag`'s data. */
function partitionName(tag: string, i: number): string {
  return `data_${tag}_p${i}`;
}

/** The partitions of table `table` of `schema` (none when it is not partitioned). */
async function partitionsOf(
  r: { run<T>(text: string): Promise<T[]> },
  schema: string,
  table: string,
): Promise<string[]> {
  const rows = await r.run<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = '${ident(schema)}.${ident(table)}'::regclass ORDER BY 1`,
  );
  return rows.map((x) => x.name);
}

/** Rows a partition of a chunked build's data should hold (about 8 MB: it stays in PGlite's buffers). */
const PARTITION_ROWS = 100_000;
/** At most this many partitions: each day's insert is routed to every one of them. */
const MAX_PARTITIONS = 256;

/**
 * Series id ranges [from, to) covering `ids` (ascending), about PARTITION_ROWS rows each at `perSeries`
 * rows per series.
 */
export function partitionRanges(ids: number[], perSeries: number): Array<[number, number]> {
  if (ids.length === 0) return [[0, 1]];
  const count = Math.min(MAX_PARTITIONS, Math.max(1, Math.ceil((ids.length * perSeries) / PARTITION_ROWS)));
  const size = Math.ceil(ids.length / count);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < ids.length; i += size) {
    const from = out.length === 0 ? ids[0] : out[out.length - 1][1];
    const to = i + size < ids.length ? ids[i + size] : ids[ids.length - 1] + 1;
    out.push([from, to]);
  }
  return out;
}

/**
 * The series key expression over the code columns `k` (of `alias`, or raw GROUPING SETS output with
 * NULL for "all" when alias is null), or undefined when the codes do not fit in 62 bits.
 */
async function seriesKey(
  r: Runner,
  series: string,
  k: string[],
): Promise<((alias: string | null, only?: Set<string>) => string) | undefined> {
  if (k.length === 0) return undefined;
  const [row] = await r.run<Record<string, number | null>>(
    `SELECT ${k.map((c, i) => `max(${c}) AS m${i}`).join(', ')} FROM ${series}`,
  );
  const radix = k.map((_, i) => BigInt(Number(row?.[`m${i}`] ?? 0) + 1));
  const mult: bigint[] = new Array(k.length).fill(1n);
  for (let i = k.length - 2; i >= 0; i--) mult[i] = mult[i + 1] * radix[i + 1];
  if (mult[0] * radix[0] >= 2n ** 62n) return undefined;
  // `only`: the codes grouped by (the others are 0 and left out of the sum).
  return (alias, only) =>
    k
      .map((c, i) =>
        only && !only.has(c) ? '' : `COALESCE(${alias ? `${alias}.` : ''}${c}, 0)::bigint * ${mult[i]}`,
      )
      .filter(Boolean)
      .join(' + ') || '0::bigint';
}

/**
 * Adds the missing days of every series that has gaps (only those: dense series cost nothing here).
 * zero: 0; previous: the last known value; linear: the straight line between the known neighbours,
 * and the last known value after the series' last day. Filled rows are marked `filled`.
 */
async function fillGaps(
  r: Runner,
  s: string,
  data: string,
  t: (name: string) => string,
  fill: FillGapMethod,
  chunked: boolean,
  perSeries: number,
): Promise<number> {
  const days = t('days');
  await r.run(`CREATE TABLE ${t('gappy')} AS
    SELECT st.series_id FROM ${t('stats')} st JOIN ${days} f ON f.day = st.first_day
    WHERE st.days < (SELECT max(idx) FROM ${days}) - f.idx + 1`);
  // Each present row followed by a gap (or by the end of the view) yields the missing days up to
  // the next present row: no grid of every series and day, one sort of the gappy series' rows.
  const edges = (where: string) => `SELECT * FROM (
      SELECT x.series_id, x.value, x.cnt, di.idx,
        lead(di.idx) OVER w AS next_idx, lead(x.value) OVER w AS next_value, lead(x.cnt) OVER w AS next_cnt
      FROM ${s}.${data} x JOIN ${days} di ON di.day = x.day
      WHERE x.series_id IN (SELECT series_id FROM ${t('gappy')}) ${where}
      WINDOW w AS (PARTITION BY x.series_id ORDER BY x.day)) e
    WHERE coalesce(e.next_idx, (SELECT max(idx) + 1 FROM ${days})) > e.idx + 1`;
  const line = (col: string) =>
    fill === 'zero'
      ? '0'
      : fill === 'previous'
        ? `e.${col}`
        : `CASE WHEN e.next_idx IS NULL THEN e.${col} ELSE e.${col} + (e.next_${col} - e.${col}) * (i - e.idx)::float8 / (e.next_idx - e.idx) END`;
  const insert = (
    where: string,
  ) => `WITH ins AS (INSERT INTO ${s}.${data} (series_id, day, value, cnt, filled)
      SELECT e.series_id, d.day, ${line('value')}, ${line('cnt')}, true
      FROM (${edges(where)}) e
      CROSS JOIN LATERAL generate_series(e.idx + 1, coalesce(e.next_idx - 1, (SELECT max(idx) FROM ${days}))) AS i
      JOIN ${days} d ON d.idx = i
      RETURNING 1)
    SELECT count(*)::int AS n FROM ins`;
  let rows: Array<{ n: number }>;
  if (chunked) {
    const gappy = (await r.run<{ id: number }>(`SELECT series_id AS id FROM ${t('gappy')} ORDER BY 1`)).map(
      (x) => Number(x.id),
    );
    rows = await r.chunks<{ n: number }>(
      gappy,
      () => perSeries,
      4_000,
      (lo, hi) => [insert(`AND x.series_id BETWEEN ${lo} AND ${hi}`)],
    );
  } else {
    rows = await r.run<{ n: number }>(insert(''));
  }
  return rows.reduce((a, x) => a + Number(x.n ?? 0), 0);
}
