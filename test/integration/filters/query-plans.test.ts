import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderBy, whereClause } from '../../../lib/anomalies/sql-parts';
import { parseFilterSettings } from '../../../lib/filters/parse';
import { SORT_BY_VALUES } from '../../../lib/filters/types';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createView } from './fixtures';

/** The dataset indexes exist for the filter queries: these tests catch an index expression drifting from the query's. */
describe(`indexes behind the filter queries on ${backendName}`, () => {
  let t: TestDatabase;
  let schema: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const view = await createView(t.db, { domain: 'plan', name: 'check', categories: ['Site'] });
    schema = `dv_${view.id}`;
    await t.db.rows(
      sql.raw(`INSERT INTO ${schema}.all_anomalies (series_id, type, start_date, end_date, duration, actual_value,
        predicted_value, change, change_pct, change_cum, share_pct, recurrence, result, sin, sim)
      SELECT g % 100, 'DOD', DATE '2023-01-01' + g % 700, DATE '2023-01-01' + g % 700 + g % 3, 1 + g % 3,
             (g * 79) % 1000, (g * 97) % 997, (g * 31) % 211 - 105, (g * 37) % 401 - 200, (g * 41) % 307 - 150,
             (g * 43) % 100, g % 5, 'Positive', ((g * 53) % 1009) / 10.0, ((g * 59) % 1013) / 1000.0
      FROM generate_series(1, 30000) g`),
    );
    await t.db.rows(sql.raw(`ANALYZE ${schema}.all_anomalies`));
  });
  afterAll(() => t.drop());

  async function plan(query: ReturnType<typeof sql>): Promise<string> {
    const rows = await t.db.rows<Record<string, string>>(sql`EXPLAIN ${query}`);
    return rows.map((r) => Object.values(r)[0]).join('\n');
  }

  const where = (dateFrom: string, dateTo: string, startFloor?: string) =>
    whereClause(
      schema,
      { dateFrom, dateTo },
      parseFilterSettings({ timeRange: 'Last 7 Days' }),
      [],
      startFloor,
    );

  for (const sortBy of SORT_BY_VALUES) {
    it(`walks an index for the Top 100 by ${sortBy} over the whole history`, async () => {
      const text = await plan(
        sql`SELECT a.id FROM ${sql.raw(`${schema}.all_anomalies`)} a WHERE ${where('2023-01-01', '2024-12-31')}
            ORDER BY ${orderBy(sortBy)} LIMIT 100`,
      );
      expect(text).toMatch(/Index Scan/);
    });
  }

  it('reads the longest span from its index and a narrow recent window through the date indexes', async () => {
    const span = await plan(
      sql`SELECT max(end_date - start_date) FROM ${sql.raw(`${schema}.all_anomalies`)}`,
    );
    expect(span).toMatch(/all_anomalies_span/);
    const window = await plan(
      sql`SELECT a.id FROM ${sql.raw(`${schema}.all_anomalies`)} a
          WHERE ${where('2024-11-28', '2024-11-30', '2024-11-26')} ORDER BY ${orderBy('SIN')} LIMIT 100`,
    );
    expect(window).toMatch(/all_anomalies_(end|start)/);
    expect(window).not.toMatch(/Seq Scan/);
  });
});
