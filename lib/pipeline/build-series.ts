/**
 * The series build, set-based in SQL inside the load's transaction: cat_map (every category
 * combination reduced by parent links, ids kept across loads), data (one row per series and day from
 * the series' first day to the view's last day, gaps filled) and all_series (range, totals, shares).
 * One GROUPING SETS pass over the integer-coded `int` makes every series at once.
 */
import { sql } from 'drizzle-orm';
import { categoryColumn, codeColumn, DATA_COLUMNS_DDL, dictKey, ident } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { FillGapMethod } from '../dataviews/definition/types';
import { type CategoryNode, groupingSets } from './grouping';

export interface BuildStats {
  series: number;
  /** Rows of data with source values, and rows added by gap filling. */
  dataRows: number;
  filledRows: number;
  firstDay: number | null;
  lastDay: number | null;
  /** Milliseconds per step, for the job detail and the benchmark. */
  steps: Record<string, number>;
}

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Rebuilds cat_map, data and all_series of `schema` from its `int`; call inside a transaction. */
export async function buildSeries(
  db: Database,
  schema: string,
  categories: CategoryNode[],
  fill: FillGapMethod,
): Promise<BuildStats> {
  const s = ident(schema);
  const steps: Record<string, number> = {};
  let step = 'series';
  const run = async (text: string) => {
    const t0 = Date.now();
    try {
      return await db.rows(sql.raw(text));
    } finally {
      steps[step] = (steps[step] ?? 0) + Date.now() - t0;
    }
  };
  const n = categories.length;
  const k = categories.map((c) => codeColumn(c.name));
  const sets = groupingSets(categories);
  const list = (xs: string[]) => xs.join(', ');
  const grouping = n ? `GROUPING(${list(k)})` : '0';
  const setsOf = (extra: string[]) =>
    sets.map((g) => `(${list([...extra, ...g.members.map((i) => k[i])])})`).join(', ');
  const coalesced = list(k.map((c) => `COALESCE(${c}, 0) AS ${c}`));
  const sameCodes = (a: string, b: string) => k.map((c) => `${a}.${c} = ${b}.${c}`).join(' AND ') || 'true';

  // 1. The series: the grouping sets over the distinct leaf combinations (tiny next to int).
  await run(`CREATE TEMP TABLE _series ON COMMIT DROP AS
    SELECT ${grouping} AS g${n ? `, ${coalesced}` : ''}
    FROM (SELECT ${n ? list(k) : '1 AS one'} FROM ${s}."int" GROUP BY ${n ? list(k) : '1'}) l
    ${n ? `GROUP BY GROUPING SETS (${setsOf([])})` : ''}`);

  // One bigint per code combination (mixed radix over the codes): joining on it is about 2x faster
  // than joining on every code column. Falls back to the columns if the radix product overflows.
  const skey = await seriesKey(db, k);

  // 2. Their values, key, level and id: an existing series keeps its id, a new one gets the next.
  const joins = categories
    .map(
      (c, i) =>
        `LEFT JOIN ${s}.dict d${i} ON d${i}.category = ${q(dictKey(c.name))} AND d${i}.code = n.${k[i]}`,
    )
    .join(' ');
  const values = categories.map((c, i) => `d${i}.value AS ${categoryColumn(c.name)}`);
  const keyParts = k.map((c, i) => `CASE WHEN n.${c} = 0 THEN 'null' ELSE to_json(d${i}.value)::text END`);
  const key = n ? `'[' || concat_ws(',', ${list(keyParts)}) || ']'` : `'[]'`;
  const level = n ? k.map((c) => `(n.${c} <> 0)::int`).join(' + ') : '0';
  const removed = `CASE n.g ${sets.map((g) => `WHEN ${g.mask} THEN ${g.removed ?? 'NULL'}`).join(' ')} END`;
  step = 'cat_map';
  await run(`CREATE TEMP TABLE _cm ON COMMIT DROP AS
    SELECT x.*, CASE WHEN m.series_id IS NOT NULL THEN m.series_id
        ELSE (SELECT coalesce(max(series_id), 0) FROM ${s}.cat_map)
          + (row_number() OVER (PARTITION BY m.series_id IS NULL ORDER BY x.level, x.series_key))::int END AS series_id,
      NULL::integer AS parent_series_id
    FROM (SELECT n.*${values.length ? `, ${list(values)}` : ''}, ${key} AS series_key, (${level})::smallint AS level,
        (${removed})::int AS removed, ${skey ? skey('n') : 'NULL::bigint'} AS skey
      FROM _series n ${joins}) x
    LEFT JOIN ${s}.cat_map m ON m.series_key = x.series_key`);
  if (n) {
    const parentCodes = k
      .map((c, i) => `p.${c} = CASE WHEN c.removed = ${i} THEN 0 ELSE c.${c} END`)
      .join(' AND ');
    await run(
      `UPDATE _cm c SET parent_series_id = p.series_id FROM _cm p WHERE c.removed IS NOT NULL AND ${parentCodes}`,
    );
  }
  await run('ANALYZE _cm');
  const mapCols = list([...categories.map((c) => categoryColumn(c.name)), ...k]);
  await run(`DELETE FROM ${s}.cat_map`);
  await run(`INSERT INTO ${s}.cat_map (series_id, ${mapCols ? `${mapCols}, ` : ''}level, parent_series_id, series_key)
    SELECT series_id, ${mapCols ? `${mapCols}, ` : ''}level, parent_series_id, series_key FROM _cm`);

  // 3. One value per series and day: the GROUPING SETS pass, into a new table swapped in at the end.
  step = 'data';
  await run(`DROP TABLE IF EXISTS ${s}.data_next`);
  await run(`CREATE TABLE ${s}.data_next (${DATA_COLUMNS_DDL})`);
  await run(`INSERT INTO ${s}.data_next (series_id, day, value, cnt)
    SELECT c.series_id, a.day, a.v, a.n
    FROM (SELECT day${skey ? `, ${skey(null)} AS skey` : n ? `, ${coalesced}` : ''}, sum(value) AS v, sum(cnt) AS n
      FROM ${s}."int" GROUP BY ${n ? `GROUPING SETS (${setsOf(['day'])})` : 'day'}) a
    JOIN _cm c ON ${skey ? 'c.skey = a.skey' : sameCodes('c', 'a')}`);

  // 4. Per series: range, days with data and totals, before any filling.
  step = 'stats';
  await run(`CREATE TEMP TABLE _stats ON COMMIT DROP AS
    SELECT series_id, min(day) AS first_day, max(day) AS last_day, count(*)::int AS days,
      sum(value) AS total_value, sum(cnt) AS total_count
    FROM ${s}.data_next GROUP BY series_id`);
  await run(`CREATE TEMP TABLE _days ON COMMIT DROP AS
    SELECT to_char(d, 'YYYYMMDD')::int AS day, (row_number() OVER (ORDER BY d))::int AS idx
    FROM generate_series(to_date((SELECT min(first_day) FROM _stats)::text, 'YYYYMMDD'),
      to_date((SELECT max(last_day) FROM _stats)::text, 'YYYYMMDD'), interval '1 day') AS d`);
  step = 'fill';
  const filled = await fillGaps(run, s, fill);

  // 5. Swap the new data in, then the series summary.
  await run(`DROP TABLE ${s}.data`);
  await run(`ALTER TABLE ${s}.data_next RENAME TO data`);
  step = 'index';
  await run(`ALTER TABLE ${s}.data ADD CONSTRAINT data_pkey PRIMARY KEY (series_id, day)`);
  step = 'all_series';
  await run(`DELETE FROM ${s}.all_series`);
  await run(`INSERT INTO ${s}.all_series (series_id, first_day, last_day, days, total_value, total_count, share_parent, share_total)
    SELECT st.series_id, st.first_day, st.last_day, st.days, st.total_value, st.total_count,
      100 * st.total_value / NULLIF(p.total_value, 0),
      100 * st.total_value / NULLIF(root.total_value, 0)
    FROM _stats st JOIN _cm c ON c.series_id = st.series_id
    LEFT JOIN _stats p ON p.series_id = c.parent_series_id
    LEFT JOIN (SELECT t.total_value FROM _stats t JOIN _cm r ON r.series_id = t.series_id WHERE r.level = 0) root ON true`);
  step = 'analyze';
  await run(`ANALYZE ${s}.data`);
  const [r] = await db.rows<{ series: number; rows: number; first: number | null; last: number | null }>(
    sql.raw(
      `SELECT count(*)::int AS series, coalesce(sum(days), 0)::bigint AS rows, min(first_day) AS first, max(last_day) AS last FROM _stats`,
    ),
  );
  return {
    series: Number(r.series),
    dataRows: Number(r.rows),
    filledRows: filled,
    firstDay: r.first === null ? null : Number(r.first),
    lastDay: r.last === null ? null : Number(r.last),
    steps,
  };
}

/**
 * The series key expression over the code columns `k` (of `alias`, or raw GROUPING SETS output with
 * NULL for "all" when alias is null), or undefined when the codes do not fit in 62 bits.
 */
async function seriesKey(db: Database, k: string[]): Promise<((alias: string | null) => string) | undefined> {
  if (k.length === 0) return undefined;
  const [row] = await db.rows<Record<string, number | null>>(
    sql.raw(`SELECT ${k.map((c, i) => `max(${c}) AS m${i}`).join(', ')} FROM _series`),
  );
  const radix = k.map((_, i) => BigInt(Number(row?.[`m${i}`] ?? 0) + 1));
  const mult: bigint[] = new Array(k.length).fill(1n);
  for (let i = k.length - 2; i >= 0; i--) mult[i] = mult[i + 1] * radix[i + 1];
  if (mult[0] * radix[0] >= 2n ** 62n) return undefined;
  return (alias) =>
    k.map((c, i) => `COALESCE(${alias ? `${alias}.` : ''}${c}, 0)::bigint * ${mult[i]}`).join(' + ');
}

/**
 * Adds the missing days of every series that has gaps (only those: dense series cost nothing here).
 * zero: 0; previous: the last known value; linear: the straight line between the known neighbours,
 * and the last known value after the series' last day. Filled rows are marked `filled`.
 */
async function fillGaps(
  run: (text: string) => Promise<unknown[]>,
  s: string,
  fill: FillGapMethod,
): Promise<number> {
  await run(`CREATE TEMP TABLE _gappy ON COMMIT DROP AS
    SELECT st.series_id FROM _stats st JOIN _days f ON f.day = st.first_day
    WHERE st.days < (SELECT max(idx) FROM _days) - f.idx + 1`);
  // Each present row followed by a gap (or by the end of the view) yields the missing days up to
  // the next present row: no grid of every series and day, one sort of the gappy series' rows.
  const edges = `SELECT * FROM (
      SELECT x.series_id, x.value, x.cnt, di.idx,
        lead(di.idx) OVER w AS next_idx, lead(x.value) OVER w AS next_value, lead(x.cnt) OVER w AS next_cnt
      FROM ${s}.data_next x JOIN _days di ON di.day = x.day
      WHERE x.series_id IN (SELECT series_id FROM _gappy)
      WINDOW w AS (PARTITION BY x.series_id ORDER BY x.day)) e
    WHERE coalesce(e.next_idx, (SELECT max(idx) + 1 FROM _days)) > e.idx + 1`;
  const line = (col: string) =>
    fill === 'zero'
      ? '0'
      : fill === 'previous'
        ? `e.${col}`
        : `CASE WHEN e.next_idx IS NULL THEN e.${col} ELSE e.${col} + (e.next_${col} - e.${col}) * (i - e.idx)::float8 / (e.next_idx - e.idx) END`;
  const select = `SELECT e.series_id, d.day, ${line('value')}, ${line('cnt')}, true
    FROM (${edges}) e
    CROSS JOIN LATERAL generate_series(e.idx + 1, coalesce(e.next_idx - 1, (SELECT max(idx) FROM _days))) AS i
    JOIN _days d ON d.idx = i`;
  const rows =
    (await run(`WITH ins AS (INSERT INTO ${s}.data_next (series_id, day, value, cnt, filled) ${select} RETURNING 1)
    SELECT count(*)::int AS n FROM ins`)) as Array<{ n: number }>;
  return Number(rows[0]?.n ?? 0);
}
