import { describe, expect, it } from 'vitest';
import {
  addDataKey,
  allSeriesInsert,
  buildTotals,
  catMapColumns,
  copyKeptChunks,
  copyKeptDays,
  createCatMap,
  createData,
  createStats,
  insertStats,
  keptChunks,
  keptLeaves,
  storedSeriesIds,
  swapRenames,
} from '../../../lib/dataset/build-sql';

// A small definition: country → city, view schema dv_1, build tag 7_0_k.
const categories = [{ name: 'country' }, { name: 'city' }];
const schema = 'dv_1';
const tag = '7_0_k';
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('series build SQL', () => {
  it('creates the build tables under build_<tag>_, constraints named as the dataset tables once renamed', () => {
    expect(flat(createCatMap(schema, tag, categories))).toBe(
      'CREATE TABLE "dv_1"."build_7_0_k_cat_map" (series_id integer NOT NULL, "c_country" text, "c_city" text, ' +
        '"k_country" integer NOT NULL DEFAULT 0, "k_city" integer NOT NULL DEFAULT 0, level smallint NOT NULL, ' +
        'parent_series_id integer, series_key text NOT NULL, CONSTRAINT "build_7_0_k_cat_map_pkey" PRIMARY KEY (series_id), ' +
        'CONSTRAINT "build_7_0_k_cat_map_series_key_key" UNIQUE (series_key))',
    );
    expect(createData(schema, tag, true)).toMatch(
      /^CREATE TABLE "dv_1"\."build_7_0_k_data" \(series_id integer NOT NULL, .*, CONSTRAINT "build_7_0_k_data_pkey" PRIMARY KEY \(series_id, chunk\)\)$/,
    );
    expect(createData(schema, tag, false)).not.toContain('PRIMARY KEY');
    expect(addDataKey(schema, tag)).toBe(
      'ALTER TABLE "dv_1"."build_7_0_k_data" ADD CONSTRAINT "build_7_0_k_data_pkey" PRIMARY KEY (series_id, chunk)',
    );
  });

  it('keeps the chunks a load does not rebuild: none, those before one, all but some', () => {
    expect(keptChunks({ kind: 'none' })).toBe('false');
    expect(keptChunks({ kind: 'before', chunk: 180 })).toBe('chunk < 180');
    expect(keptChunks({ kind: 'except', chunks: [3, 4] }, 'd.chunk')).toBe("d.chunk <> ALL('{3,4}'::int[])");
    expect(keptChunks({ kind: 'except', chunks: [] })).toBe('true');
    expect(flat(keptLeaves(schema, categories, { kind: 'before', chunk: 180 }))).toBe(
      'SELECT "k_country", "k_city" FROM "dv_1".cat_map m WHERE m.level = 2 AND EXISTS ' +
        '(SELECT 1 FROM "dv_1".data d WHERE d.series_id = m.series_id AND d.chunk < 180)',
    );
    expect(flat(copyKeptChunks(schema, 'build_7_0_k_data', { kind: 'except', chunks: [3, 4] }, 1, 50))).toBe(
      'INSERT INTO "dv_1"."build_7_0_k_data" SELECT * FROM "dv_1".data ' +
        "WHERE series_id BETWEEN 1 AND 50 AND chunk <> ALL('{3,4}'::int[])",
    );
    expect(flat(copyKeptDays(schema, 'build_7_0_k_days', { kind: 'before', chunk: 180 }))).toBe(
      'INSERT INTO "dv_1"."build_7_0_k_days" (day, series) SELECT day, series FROM "dv_1".days ' +
        "WHERE ((to_date(day::text, 'YYYYMMDD') - date '1970-01-01') / 112) < 180",
    );
  });

  it('reads the stored ids and writes cat_map through json_to_recordset columns', () => {
    expect(storedSeriesIds(schema)).toBe('SELECT series_id AS id, series_key AS k FROM "dv_1".cat_map');
    expect(catMapColumns(categories)).toEqual({
      names:
        '"series_id", "c_country", "c_city", "k_country", "k_city", "level", "parent_series_id", "series_key"',
      types:
        '"series_id" integer, "c_country" text, "c_city" text, "k_country" integer, "k_city" integer, ' +
        '"level" smallint, "parent_series_id" integer, "series_key" text',
    });
  });

  it("sums each series' stats from the chunks, a range of series ids at a time", () => {
    const stats =
      "SELECT series_id, to_char(date '1970-01-01' + (min(chunk * 112 + first_offset)), 'YYYYMMDD')::int AS first_day, " +
      "to_char(date '1970-01-01' + (max(chunk * 112 + last_offset)), 'YYYYMMDD')::int AS last_day, sum(days)::int AS days, " +
      'sum(sum_value) AS total_value, sum(sum_cnt) AS total_count FROM "dv_1"."build_7_0_k_data"';
    expect(flat(createStats(schema, tag))).toBe(
      `CREATE TABLE "dv_1"."build_7_0_k_stats" AS ${stats} WHERE series_id BETWEEN 0 AND -1 GROUP BY series_id`,
    );
    expect(flat(insertStats(schema, tag, 1, 50))).toBe(
      `INSERT INTO "dv_1"."build_7_0_k_stats" ${stats} WHERE series_id BETWEEN 1 AND 50 GROUP BY series_id`,
    );
    const insert = flat(allSeriesInsert('"s"."a"', '"s"."st"', '"s"."c"', 1, 9));
    expect(insert).toContain('100 * st.total_value / NULLIF(p.total_value, 0)');
    expect(insert).toContain('LEFT JOIN "s"."st" p ON p.series_id = c.parent_series_id');
    expect(insert).toMatch(/WHERE st\.series_id BETWEEN 1 AND 9$/);
    expect(flat(buildTotals('"s"."st"'))).toMatch(
      /^SELECT count\(\*\)::int AS series, min\(first_day\) AS first/,
    );
  });

  it('swaps each table and its constraint indexes: the old out to build_<tag>_old_, the build in', () => {
    expect(swapRenames(schema, tag).slice(0, 6)).toEqual([
      'ALTER TABLE "dv_1"."cat_map" RENAME TO "build_7_0_k_old_cat_map"',
      'ALTER INDEX "dv_1"."cat_map_pkey" RENAME TO "build_7_0_k_old_cat_map_pkey"',
      'ALTER INDEX "dv_1"."cat_map_series_key_key" RENAME TO "build_7_0_k_old_cat_map_series_key_key"',
      'ALTER TABLE "dv_1"."build_7_0_k_cat_map" RENAME TO "cat_map"',
      'ALTER INDEX "dv_1"."build_7_0_k_cat_map_pkey" RENAME TO "cat_map_pkey"',
      'ALTER INDEX "dv_1"."build_7_0_k_cat_map_series_key_key" RENAME TO "cat_map_series_key_key"',
    ]);
    expect(swapRenames(schema, tag).filter((s) => s.startsWith('ALTER TABLE'))).toHaveLength(8);
    expect(swapRenames(schema, tag, { table: 'stage', dayIndex: 'stage_day' }).slice(0, 4)).toEqual([
      'ALTER TABLE "dv_1"."int" RENAME TO "build_7_0_k_old_int"',
      'ALTER INDEX "dv_1"."int_day" RENAME TO "build_7_0_k_old_int_day"',
      'ALTER TABLE "dv_1"."stage" RENAME TO "int"',
      'ALTER INDEX "dv_1"."stage_day" RENAME TO "int_day"',
    ]);
  });

  it('refuses a tag or schema that is not a plain identifier', () => {
    expect(() => createData('dv_1"; DROP', tag, true)).toThrow(/unsafe identifier/);
    expect(() => swapRenames(schema, 'x-y')).toThrow(/unsafe identifier/);
  });
});
