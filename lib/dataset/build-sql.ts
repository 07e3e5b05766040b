/**
 * The SQL of the series build's steps, as text from their inputs (no database here): the build's
 * tables, which stored chunks and days a load keeps, the leaves of the kept chunks, the series stats
 * summed from the chunks, all_series with its shares, and the swap's renames. The runners
 * (lib/pipeline/build-runner-whole.ts, build-runner-chunked.ts) run them; lib/pipeline/build-series.ts says
 * which in what order. The text is here, with the catalog it builds (docs/architecture.md, Per-view tables).
 */
import {
  allSeriesColumnsDdl,
  BUILD_TABLE_PREFIX,
  catMapColumnsDdl,
  categoryColumn,
  codeColumn,
  DATA_COLUMNS_DDL,
  daysColumnsDdl,
  ident,
} from './ddl';
import { CHUNK_DAYS } from './series-chunks';

/** Which chunks of the stored series a load keeps: none (full), those before one (incremental), all but some (custom). */
export type Kept =
  | { kind: 'none' }
  | { kind: 'before'; chunk: number }
  | { kind: 'except'; chunks: number[] };

/** The condition on `data`.chunk of the chunks kept. */
export function keptChunks(kept: Kept, column = 'chunk'): string {
  if (kept.kind === 'none') return 'false';
  if (kept.kind === 'before') return `${column} < ${Math.trunc(kept.chunk)}`;
  if (kept.chunks.length === 0) return 'true';
  return `${column} <> ALL('{${kept.chunks.map((c) => Math.trunc(c)).join(',')}}'::int[])`;
}

/** The chunk of a YYYYMMDD day column, in SQL. */
export function chunkOfDay(column: string): string {
  return `((to_date(${column}::text, 'YYYYMMDD') - date '1970-01-01') / ${CHUNK_DAYS})`;
}

/** The code columns of the categories, in definition order. */
export function codeColumns(categories: ReadonlyArray<{ name: string }>): string[] {
  return categories.map((c) => codeColumn(c.name));
}

/**
 * The leaves (code combinations of the deepest series: every category set) that have data in a kept
 * chunk: with the leaves of the rebuilt days, every leaf of the next `int`.
 */
export function keptLeaves(schema: string, categories: ReadonlyArray<{ name: string }>, kept: Kept): string {
  const s = ident(schema);
  const k = codeColumns(categories);
  return `SELECT ${k.length ? k.join(', ') : '1 AS one'} FROM ${s}.cat_map m WHERE m.level = ${k.length}
    AND EXISTS (SELECT 1 FROM ${s}.data d WHERE d.series_id = m.series_id AND ${keptChunks(kept, 'd.chunk')})`;
}

/** Copies the kept chunks of series `lo`..`hi` from `data` into the build's `target`. */
export function copyKeptChunks(schema: string, target: string, kept: Kept, lo: number, hi: number): string {
  const s = ident(schema);
  return `INSERT INTO ${s}.${ident(target)} SELECT * FROM ${s}.data
    WHERE series_id BETWEEN ${lo} AND ${hi} AND ${keptChunks(kept)}`;
}

/** Copies the kept days' series counts from `days` into the build's `target`. */
export function copyKeptDays(schema: string, target: string, kept: Kept): string {
  const s = ident(schema);
  return `INSERT INTO ${s}.${ident(target)} (day, series) SELECT day, series FROM ${s}.days
    WHERE ${keptChunks(kept, chunkOfDay('day'))}`;
}

/** YYYYMMDD of an epoch-day expression. */
const ymd = (epoch: string) => `to_char(date '1970-01-01' + (${epoch}), 'YYYYMMDD')::int`;

/**
 * Per series of `data` (a build's): first and last day with data (YYYYMMDD), days with data, totals;
 * summed from the chunks' stats without unpacking them.
 */
export function seriesStats(schema: string, data: string, lo: number, hi: number): string {
  return `SELECT series_id, ${ymd(`min(chunk * ${CHUNK_DAYS} + first_offset)`)} AS first_day,
      ${ymd(`max(chunk * ${CHUNK_DAYS} + last_offset)`)} AS last_day, sum(days)::int AS days,
      sum(sum_value) AS total_value, sum(sum_cnt) AS total_count
    FROM ${ident(schema)}.${ident(data)} WHERE series_id BETWEEN ${lo} AND ${hi} GROUP BY series_id`;
}

/**
 * all_series rows of series `lo`..`hi` from the stats table and cat_map (build tables, quoted): the
 * totals, and the share of the parent's and of the total's value.
 */
export function allSeriesInsert(
  target: string,
  stats: string,
  catMap: string,
  lo: number,
  hi: number,
): string {
  return `INSERT INTO ${target} (series_id, first_day, last_day, days, total_value, total_count, share_parent, share_total)
    SELECT st.series_id, st.first_day, st.last_day, st.days, st.total_value, st.total_count,
      100 * st.total_value / NULLIF(p.total_value, 0),
      100 * st.total_value / NULLIF(root.total_value, 0)
    FROM ${stats} st JOIN ${catMap} c ON c.series_id = st.series_id
    LEFT JOIN ${stats} p ON p.series_id = c.parent_series_id
    LEFT JOIN (SELECT t.total_value FROM ${stats} t JOIN ${catMap} r ON r.series_id = t.series_id WHERE r.level = 0) root ON true
    WHERE st.series_id BETWEEN ${lo} AND ${hi}`;
}

/** Series, data rows (each series from its first day with data to the view's last day) and the view's range. */
export function buildTotals(stats: string): string {
  return `SELECT count(*)::int AS series, min(first_day) AS first, max(last_day) AS last,
      coalesce(sum(to_date(x.last::text, 'YYYYMMDD') - to_date(first_day::text, 'YYYYMMDD') + 1), 0)::bigint AS rows,
      coalesce(sum(days), 0)::bigint AS present
    FROM ${stats}, (SELECT max(last_day) AS last FROM ${stats}) x`;
}

/** The columns of cat_map a build writes, and their types for json_to_recordset. */
export function catMapColumns(categories: ReadonlyArray<{ name: string }>): { names: string; types: string } {
  const cols: Array<[string, string]> = [
    [ident('series_id'), 'integer'],
    ...categories.map((c): [string, string] => [categoryColumn(c.name), 'text']),
    ...categories.map((c): [string, string] => [codeColumn(c.name), 'integer']),
    [ident('level'), 'smallint'],
    [ident('parent_series_id'), 'integer'],
    [ident('series_key'), 'text'],
  ];
  return { names: cols.map((c) => c[0]).join(', '), types: cols.map((c) => `${c[0]} ${c[1]}`).join(', ') };
}

/** The name of build table `name` of build `tag` (unquoted). */
export function buildTable(tag: string, name: string): string {
  return `${BUILD_TABLE_PREFIX}${tag}_${name}`;
}

/** Build table `name` of build `tag` in `schema`, quoted. */
export function buildTableRef(schema: string, tag: string, name: string): string {
  return `${ident(schema)}.${ident(buildTable(tag, name))}`;
}

/** The ids and keys of the view's series (cat_map as stored): a series keeps its id across loads. */
export function storedSeriesIds(schema: string): string {
  return `SELECT series_id AS id, series_key AS k FROM ${ident(schema)}.cat_map`;
}

/** The build's cat_map, its constraints named as cat_map's once renamed. */
export function createCatMap(schema: string, tag: string, categories: Array<{ name: string }>): string {
  return `CREATE TABLE ${buildTableRef(schema, tag, 'cat_map')} (${catMapColumnsDdl({ categories }, buildTable(tag, 'cat_map'))})`;
}

/** The primary key of the build's data (series_id, chunk), named as data's once renamed. */
function dataKey(tag: string): string {
  return `CONSTRAINT ${ident(`${buildTable(tag, 'data')}_pkey`)} PRIMARY KEY (series_id, chunk)`;
}

/** The build's data; with its primary key when `withKey` (kept up by each insert), else without (addDataKey later). */
export function createData(schema: string, tag: string, withKey: boolean): string {
  return `CREATE TABLE ${buildTableRef(schema, tag, 'data')} (${DATA_COLUMNS_DDL}${withKey ? `, ${dataKey(tag)}` : ''})`;
}

/** The primary key of the build's data added once its rows are in (one bulk index build). */
export function addDataKey(schema: string, tag: string): string {
  return `ALTER TABLE ${buildTableRef(schema, tag, 'data')} ADD ${dataKey(tag)}`;
}

/** Rows of the build's data. */
export function countData(schema: string, tag: string): string {
  return `SELECT count(*)::int AS n FROM ${buildTableRef(schema, tag, 'data')}`;
}

/** The build's days. */
export function createDays(schema: string, tag: string): string {
  return `CREATE TABLE ${buildTableRef(schema, tag, 'days')} (${daysColumnsDdl(buildTable(tag, 'days'))})`;
}

/** The build's stats table (seriesStats' columns), empty. */
export function createStats(schema: string, tag: string): string {
  return `CREATE TABLE ${buildTableRef(schema, tag, 'stats')} AS ${seriesStats(schema, buildTable(tag, 'data'), 0, -1)}`;
}

/** The stats of series `lo`..`hi` of the build's data into its stats table. */
export function insertStats(schema: string, tag: string, lo: number, hi: number): string {
  return `INSERT INTO ${buildTableRef(schema, tag, 'stats')} ${seriesStats(schema, buildTable(tag, 'data'), lo, hi)}`;
}

/** The build's all_series. */
export function createAllSeries(schema: string, tag: string): string {
  return `CREATE TABLE ${buildTableRef(schema, tag, 'all_series')} (${allSeriesColumnsDdl(buildTable(tag, 'all_series'))})`;
}

/** A dataset table swapped by a build, and the indexes of its constraints (named `<table>_<suffix>`). */
const SWAPPED: ReadonlyArray<[string, string[]]> = [
  ['cat_map', ['pkey', 'series_key_key']],
  ['data', ['pkey']],
  ['days', ['pkey']],
  ['all_series', ['pkey']],
];

/**
 * The renames that put build `tag`'s cat_map, data, days and all_series (and, when `int` is given, that
 * table with its day index) in place of the view's: each old table and its indexes renamed to
 * build_<tag>_old_…, then the build's renamed to the view's names.
 */
export function swapRenames(
  schema: string,
  tag: string,
  int?: { table: string; dayIndex: string },
): string[] {
  const s = ident(schema);
  const rename = (kind: 'TABLE' | 'INDEX', from: string, to: string) =>
    `ALTER ${kind} ${s}.${ident(from)} RENAME TO ${ident(to)}`;
  const out: string[] = [];
  if (int) {
    const old = buildTable(tag, 'old_int');
    out.push(rename('TABLE', 'int', old), rename('INDEX', 'int_day', `${old}_day`));
    out.push(rename('TABLE', int.table, 'int'), rename('INDEX', int.dayIndex, 'int_day'));
  }
  for (const [name, indexes] of SWAPPED) {
    const old = buildTable(tag, `old_${name}`);
    const next = buildTable(tag, name);
    out.push(
      rename('TABLE', name, old),
      ...indexes.map((x) => rename('INDEX', `${name}_${x}`, `${old}_${x}`)),
    );
    out.push(
      rename('TABLE', next, name),
      ...indexes.map((x) => rename('INDEX', `${next}_${x}`, `${name}_${x}`)),
    );
  }
  return out;
}
