import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import type { GapFill } from '../../../lib/dataset/series-store';
import type { JobRow } from '../../../lib/jobs/repository';
import { runLoad } from '../../../lib/pipeline/load';
import { logger } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDeployedView, type ViewOptions } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { viewSeries } from '../../support/view-series';

// Seven rows, three days; city's parent is country, channel is independent. Expectations by hand below.
const FIXTURE = `CREATE TABLE sales (day integer, country text, city text, channel text, amount numeric, orders bigint);
INSERT INTO sales VALUES
  (20240101, 'CZ', 'Prague', 'web', 10, 1), (20240101, 'CZ', 'Brno', 'web', 4, 1), (20240101, 'DE', 'Berlin', 'shop', 6, 2),
  (20240102, 'CZ', 'Prague', 'shop', 2, 1),
  (20240103, 'CZ', 'Prague', 'web', 12, 3), (20240103, 'DE', 'Berlin', 'shop', 8, 1), (20240103, 'CZ', 'Brno', 'web', 2, 1);`;

const VIEW: ViewOptions = {
  loadQuery: 'SELECT day, country, city, channel, amount, orders FROM sales',
  categories: [{ name: 'country' }, { name: 'city', parent: 'country' }, { name: 'channel' }],
  countColumn: 'orders',
};

function job(dataViewId: number, kind: JobRow['kind'] = 'Load'): JobRow {
  return { id: 1, dataViewId, kind } as JobRow;
}

/**
 * Series as 'country/city/channel' ('*' for all) → values of the days 1..3, as the series store reads
 * them filled with `fill` (null before a series' first day).
 */
async function seriesValues(
  t: TestDatabase,
  viewId: number,
  fill: GapFill = 'zero',
): Promise<Record<string, Array<number | null>>> {
  const s = schemaNameFor(viewId);
  const names = await t.db.rows<{ k: string; id: number }>(
    sql.raw(`SELECT concat_ws('/', coalesce(m.c_country, '*'), coalesce(m.c_city, '*'), coalesce(m.c_channel, '*')) AS k,
      series_id AS id FROM ${s}.cat_map m ORDER BY 1`),
  );
  const series = await viewSeries(t.db, viewId, fill);
  expect(series.days).toEqual([20240101, 20240102, 20240103]);
  return Object.fromEntries(
    names.map((r) => [r.k, series.byId.get(Number(r.id))?.values ?? [null, null, null]]),
  );
}

// The build in the load's one transaction (PostgreSQL's way), and in statements of their own (PGlite's
// way) with one day or one series per statement, so that every chunk boundary is crossed.
const WAYS = [
  { way: 'in one transaction', deps: { buildInOneTransaction: true } },
  {
    way: 'in statements of one day or series each',
    deps: { buildInOneTransaction: false, buildChunkRows: 1 },
  },
];

describe.each(WAYS)(`the series build on ${backendName}, $way`, ({ deps }) => {
  let t: TestDatabase;
  let source: TestSource;
  const load = (viewId: number, kind: JobRow['kind'] = 'Load', signal = new AbortController().signal) =>
    runLoad(
      { db: t.db, log: logger, openSource: source.open, batchSize: 3, ...deps },
      job(viewId, kind),
      signal,
    );

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    await source.exec(FIXTURE);
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('makes every category combination allowed by the parent link, with gaps filled with zero', async () => {
    const id = await createDeployedView(t.db, VIEW);
    const { result } = await load(id);
    expect(result).toMatchObject({
      mode: 'full',
      rows: 7,
      series: 15,
      firstDate: '2024-01-01',
      lastDate: '2024-01-03',
    });
    expect(await seriesValues(t, id)).toEqual({
      '*/*/*': [20, 2, 22],
      '*/*/shop': [6, 2, 8],
      '*/*/web': [14, 0, 14],
      'CZ/*/*': [14, 2, 14],
      'CZ/*/shop': [null, 2, 0],
      'CZ/*/web': [14, 0, 14],
      'CZ/Brno/*': [4, 0, 2],
      'CZ/Brno/web': [4, 0, 2],
      'CZ/Prague/*': [10, 2, 12],
      'CZ/Prague/shop': [null, 2, 0],
      'CZ/Prague/web': [10, 0, 12],
      'DE/*/*': [6, 0, 8],
      'DE/*/shop': [6, 0, 8],
      'DE/Berlin/*': [6, 0, 8],
      'DE/Berlin/shop': [6, 0, 8],
    });
    expect(result.filledRows).toBe(11);
  });

  it('writes totals, parents and shares of the parent and of the total to all_series and cat_map', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'shares' });
    await load(id);
    const s = schemaNameFor(id);
    const rows = await t.db.rows<{
      k: string;
      parent: string | null;
      total: number;
      orders: number;
      days: number;
      sp: number | null;
      st: number;
      level: number;
    }>(
      sql.raw(`SELECT m.series_key AS k, p.series_key AS parent, a.total_value AS total, a.total_count AS orders, a.days,
        round(a.share_parent::numeric, 2)::float8 AS sp, round(a.share_total::numeric, 2)::float8 AS st, m.level
        FROM ${s}.cat_map m JOIN ${s}.all_series a USING (series_id) LEFT JOIN ${s}.cat_map p ON p.series_id = m.parent_series_id`),
    );
    const by = Object.fromEntries(rows.map((r) => [r.k, r]));
    expect(by['[null,null,null]']).toMatchObject({
      parent: null,
      total: 44,
      orders: 10,
      days: 3,
      sp: null,
      st: 100,
      level: 0,
    });
    expect(by['["CZ",null,null]']).toMatchObject({
      parent: '[null,null,null]',
      total: 30,
      sp: 68.18,
      st: 68.18,
      level: 1,
    });
    expect(by['["CZ","Prague",null]']).toMatchObject({
      parent: '["CZ",null,null]',
      total: 24,
      sp: 80,
      level: 2,
    });
    expect(by['["CZ",null,"web"]']).toMatchObject({ parent: '["CZ",null,null]', total: 28, days: 2 });
    expect(by['[null,null,"web"]']).toMatchObject({ parent: '[null,null,null]', total: 28, sp: 63.64 });
    expect(by['["CZ","Prague","web"]']).toMatchObject({
      parent: '["CZ","Prague",null]',
      total: 22,
      sp: 91.67,
      level: 3,
    });
    expect(by['[null,"Prague",null]']).toBeUndefined();
  });

  it('fills gaps by linear interpolation, and with the last value after a series ends', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'linear', fillGapMethod: 'linear' });
    await load(id);
    const v = await seriesValues(t, id, 'linear');
    expect(v['CZ/Brno/web']).toEqual([4, 3, 2]);
    expect(v['*/*/web']).toEqual([14, 14, 14]);
    expect(v['CZ/Prague/shop']).toEqual([null, 2, 2]);
  });

  it('fills gaps with the previous value', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'previous', fillGapMethod: 'previous' });
    await load(id);
    const v = await seriesValues(t, id, 'previous');
    expect(v['CZ/Brno/web']).toEqual([4, 4, 2]);
    expect(v['DE/*/*']).toEqual([6, 6, 8]);
  });

  it('keeps the ids of existing series when a later load adds new ones', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'stable' });
    await load(id);
    const s = schemaNameFor(id);
    const before = await t.db.rows<{ series_id: number; series_key: string }>(
      sql.raw(`SELECT series_id, series_key FROM ${s}.cat_map`),
    );
    await source.exec(`INSERT INTO sales VALUES (20240103, 'AT', 'Vienna', 'web', 1, 1)`);
    try {
      await load(id);
      const after = await t.db.rows<{ series_id: number; series_key: string }>(
        sql.raw(`SELECT series_id, series_key FROM ${s}.cat_map`),
      );
      const ids = new Map(after.map((r) => [r.series_key, r.series_id]));
      for (const r of before) expect(ids.get(r.series_key)).toBe(r.series_id);
      expect(after.length).toBe(before.length + 4);
    } finally {
      await source.exec(`DELETE FROM sales WHERE country = 'AT'`);
    }
  });
});
