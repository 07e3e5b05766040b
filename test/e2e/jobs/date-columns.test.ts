/**
 * A source whose date is a real DATE or TIMESTAMP column (the common case): "New view from a query"
 * proposes it as the date column, the view drafted from it saves, deploys and loads through the job
 * workers, and detection sees the right days. The source is a table on PGlite, or on PostgreSQL when
 * DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogLevel } from '../../../lib/shared/logger';
import { backendName } from '../../support/db';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

// 2024-01-01 .. 2024-01-28, two shops at 100 a day; north doubles on 2024-01-26. The TIMESTAMP table's
// times are late in the evening: the day is the date as written.
const TABLES = `
  CREATE TABLE sales_by_date (sold_on date, shop text, amount numeric);
  INSERT INTO sales_by_date SELECT DATE '2024-01-01' + g, s, CASE WHEN s = 'north' AND g = 25 THEN 200 ELSE 100 END
    FROM generate_series(0, 27) g, unnest(ARRAY['north', 'south']) s;
  CREATE TABLE sales_by_time (sold_at timestamp, shop text, amount numeric);
  INSERT INTO sales_by_time SELECT sold_on + TIME '23:30', shop, amount FROM sales_by_date;
  CREATE TABLE sales_by_text (sold text, shop text, amount numeric);
  INSERT INTO sales_by_text SELECT to_char(sold_on, 'DD.MM.YYYY'), shop, amount FROM sales_by_date;`;

describe(`views over DATE and TIMESTAMP date columns on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  const auth = () => ({ auth: s.adminToken });
  const post = (path: string, body?: unknown) => s.call('POST', path, { ...auth(), body });

  beforeAll(async () => {
    s = await startTestService({
      JOB_MAX_ATTEMPTS: '1',
      JOB_RETRY_DELAY_SECONDS: '0',
      CONNECTOR_TIMEOUT_MS: '5000',
    });
    setLogLevel('silent');
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    await source.exec(TABLES);
    const c = await post('/api/v1/connectors', {
      name: 'shop_pg',
      type: 'pgsql',
      configuration: { conn_string: source.connString },
    });
    expect(c.status, c.text).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await queue.stop();
    await s.stop();
    await source.stop();
  });

  it.each([
    ['a DATE', 'sold_on', 'sales_by_date'],
    ['a TIMESTAMP', 'sold_at', 'sales_by_time'],
  ])('drafts, loads and analyses a view whose date is %s column', async (_what, column, table) => {
    const query = `SELECT ${column}, shop, amount FROM ${table}`;
    const draft = await post('/api/v1/dataviews/draft-from-query', {
      connector: 'shop_pg',
      query,
      name: table,
      domain: 'dates',
    });
    expect(draft.status, draft.text).toBe(200);
    expect(draft.body).toMatchObject({
      suggestion: { dateColumn: column, valueColumn: 'amount', categories: ['shop'] },
      days: { count: 28, first: 20240101, last: 20240128 },
      missing: [],
    });
    expect(draft.body.columns[0]).toMatchObject({ name: column, kind: 'date' });
    const definition = draft.body.definition;
    expect(definition.source).toMatchObject({ dateColumn: column, loadQuery: query });
    definition.analysis = { detectors: [{ type: 'dod', params: { percentualChange: 30 } }] };

    const created = await post('/api/v1/dataviews', definition);
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    for (const action of ['deploy', 'enable'])
      expect((await post(`/api/v1/dataviews/${id}/${action}`)).status).toBe(200);
    const load = await post(`/api/v1/dataviews/${id}/jobs/load`);
    expect(load.status, load.text).toBe(202);
    await queue.idle();
    const done = await s.call('GET', `/api/v1/jobs/${load.body.id}`, auth());
    expect(done.body, done.text).toMatchObject({
      status: 'finished',
      detail: { rows: 56, series: 3, firstDate: '2024-01-01', lastDate: '2024-01-28' },
    });
    const processed = await s.call('GET', `/api/v1/jobs/${done.body.detail.processJobId}`, auth());
    expect(processed.body).toMatchObject({ kind: 'Process', status: 'finished' });

    const found = await post('/api/v1/anomalies/query', {
      timeRange: 'Custom',
      dateFrom: '2024-01-01',
      dateTo: '2024-01-31',
      dataViews: `dates / ${table}`,
      sortBy: 'SIN',
    });
    expect(found.status, found.text).toBe(200);
    const north = found.body.anomalies.filter(
      (a: { categories: Record<string, string | null> }) => a.categories.shop === 'north',
    );
    expect(north[0]).toMatchObject({
      type: 'DOD',
      startDate: '2024-01-26',
      actualValue: 200,
      predictedValue: 100,
    });
  });

  it('says how to convert a text column of dates in another form, and refuses it as the date', async () => {
    const query = 'SELECT sold, shop, amount FROM sales_by_text';
    const draft = await post('/api/v1/dataviews/draft-from-query', { connector: 'shop_pg', query });
    expect(draft.status, draft.text).toBe(200);
    expect(draft.body.columns[0]).toMatchObject({ name: 'sold', kind: 'text' });
    expect(draft.body.columns[0].note).toMatch(
      /'01\.01\.2024' is not a date the load reads .*to_date\(sold, 'DD\.MM\.YYYY'\)/,
    );
    expect(draft.body.definition).toBeNull();
    expect(draft.body.missing[0]).toMatch(/^a date column \(a DATE or TIMESTAMP, ISO text/);
    const chosen = await post('/api/v1/dataviews/draft-from-query', {
      connector: 'shop_pg',
      query,
      dateColumn: 'sold',
    });
    expect(chosen.status).toBe(400);
    expect(chosen.body.errors[0].path).toBe('dateColumn');
    expect(chosen.body.errors[0].message).toMatch(
      /column sold is not a date on every row .*convert it in the query/,
    );
  });
});
