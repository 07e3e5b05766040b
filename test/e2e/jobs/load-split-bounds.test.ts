/**
 * The split load (LOAD_SPLIT_ROWS) through the job workers, against a real source (PGlite, or PostgreSQL
 * when DATABASE_URL is set): parts are planned from the days present, so one sentinel date 9999-12-31
 * costs one part, not ~26,000; the load query may end in `;`; the number of parts is capped
 * (LOAD_MAX_PARTS); a DATE or TIMESTAMP date column splits too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogLevel } from '../../../lib/shared/logger';
import { backendName } from '../../support/db';
import { definitionOf } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

// 400 days from 2024-01-01 (4 chunks of 112 days) for two shops, and one row on 9999-12-31.
const TABLES = `
  CREATE TABLE sales (day integer, sold_on date, sold_at timestamp, shop text, amount numeric);
  INSERT INTO sales SELECT to_char(DATE '2024-01-01' + g, 'YYYYMMDD')::int, DATE '2024-01-01' + g,
      DATE '2024-01-01' + g + TIME '18:15', s, 10 + g % 7
    FROM generate_series(0, 399) g, unnest(ARRAY['north', 'south']) s;
  CREATE TABLE sales_sentinel AS SELECT * FROM sales;
  INSERT INTO sales_sentinel VALUES (99991231, DATE '9999-12-31', TIMESTAMP '9999-12-31 00:00', 'north', 1);`;

describe(`a split load's bounds on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  const auth = () => ({ auth: s.adminToken });
  const post = (path: string, body?: unknown) => s.call('POST', path, { ...auth(), body });

  /** Creates and deploys a view, loads it (disabled once the load is queued: no detection), answers the load job. */
  const load = async (name: string, loadQuery: string, dateColumn = 'day') => {
    const def = definitionOf({
      name,
      domain: 'split',
      loadQuery,
      dateColumn,
      categories: [{ name: 'shop' }],
    });
    const created = await post('/api/v1/dataviews', {
      ...def,
      source: { ...def.source, connector: 'shop_pg' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    for (const action of ['deploy', 'enable'])
      expect((await post(`/api/v1/dataviews/${id}/${action}`)).status).toBe(200);
    queue.pause();
    const queued = await post(`/api/v1/dataviews/${id}/jobs/load`);
    expect(queued.status, queued.text).toBe(202);
    expect((await post(`/api/v1/dataviews/${id}/disable`)).status).toBe(200);
    queue.resume();
    await queue.idle();
    return (await s.call('GET', `/api/v1/jobs/${queued.body.id}`, auth())).body;
  };

  beforeAll(async () => {
    s = await startTestService({
      JOB_MAX_ATTEMPTS: '1',
      JOB_RETRY_DELAY_SECONDS: '0',
      CONNECTOR_TIMEOUT_MS: '5000',
      LOAD_SPLIT_ROWS: '10',
      LOAD_PART_CHUNKS: '1',
      LOAD_MAX_PARTS: '3',
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

  it('plans from the days present: a sentinel 9999-12-31 adds one part; a query ending in ; loads', async () => {
    const job = await load('sentinel', 'SELECT day, shop, amount FROM sales_sentinel ;\n');
    expect(job, JSON.stringify(job)).toMatchObject({
      status: 'finished',
      detail: { mode: 'full', rows: 801, firstDate: '2024-01-01', lastDate: '9999-12-31' },
    });
    // 5 chunks hold rows (4 of 2024-2025 and the sentinel's), capped at LOAD_MAX_PARTS = 3 parts.
    expect(job.detail.split.parts).toHaveLength(3);
    expect(job.detail.shards).toBe(3);
  });

  it.each([
    ['DATE', 'sold_on'],
    ['TIMESTAMP', 'sold_at'],
  ])('splits a load whose date is a %s column, reading the days it holds', async (_what, column) => {
    const job = await load(`by_${column}`, `SELECT ${column}, shop, amount FROM sales`, column);
    expect(job, JSON.stringify(job)).toMatchObject({
      status: 'finished',
      detail: { mode: 'full', rows: 800, firstDate: '2024-01-01', lastDate: '2025-02-03' },
    });
    // 4 chunks hold rows: 2 parts of 2 under LOAD_MAX_PARTS = 3.
    expect(job.detail.split).toMatchObject({ dayKind: 'date' });
    expect(job.detail.shards).toBe(2);
  });
});
