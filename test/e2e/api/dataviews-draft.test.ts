/** A new data view from a query: POST /dataviews/draft-from-query against a real source database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedPglite, servePglite } from '../../../scripts/local/pglite-server';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

const QUERY = `SELECT CAST(to_char(d, 'YYYYMMDD') AS integer) AS day, country, region, city, channel,
  SUM(amount) AS revenue, COUNT(*) AS orders FROM sales GROUP BY 1, 2, 3, 4, 5`;

describe(`a new data view from a query on ${backendName}`, () => {
  let s: TestService;
  let source: ServedPglite;
  const draft = (body: unknown, auth = s.adminToken) =>
    s.call('POST', '/api/v1/dataviews/draft-from-query', { auth, body });

  beforeAll(async () => {
    s = await startTestService({ CONNECTOR_TIMEOUT_MS: '3000' });
    source = await servePglite('memory://');
    // 2 countries, 2 regions each, 2 cities per region, 2 channels, 30 days.
    await source.db.exec(`CREATE TABLE sales (d date, country text, region text, city text, channel text, amount numeric);
      INSERT INTO sales SELECT DATE '2024-03-01' + g, c, c || '-R' || r, c || '-R' || r || '-C' || t, ch, 10 + g + r + t
      FROM generate_series(0, 29) g, unnest(ARRAY['DE','FR']) c, generate_series(1, 2) r, generate_series(1, 2) t,
           unnest(ARRAY['web','store']) ch;`);
    const conn = `Host=127.0.0.1;Port=${source.port};Database=postgres;Username=postgres;Password=x;SSL Mode=disable`;
    const r = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'shop', type: 'pgsql', configuration: { conn_string: conn } },
    });
    if (r.status !== 201) throw new Error(r.text);
  });
  afterAll(async () => {
    await s.stop();
    await source.close();
  });

  it('reads the rows, suggests the columns and the parent links, counts the series and drafts a view that saves', async () => {
    const r = await draft({ connector: 'shop', query: QUERY, name: 'shop_sales', domain: 'retail' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      sampled: 480,
      complete: true,
      days: { count: 30, first: 20240301, last: 20240330 },
      suggestion: { dateColumn: 'day', valueColumn: 'revenue', countColumn: 'orders' },
      categories: [
        { name: 'country' },
        { name: 'region', parent: 'country' },
        { name: 'city', parent: 'region' },
        { name: 'channel' },
      ],
      // (total 1 + 2 countries + 4 regions + 8 cities) × (all channels, web, store).
      seriesCount: 45,
      missing: [],
    });
    expect(r.body.rows).toHaveLength(10);
    expect(r.body.columns.map((c: { kind: string }) => c.kind)).toEqual([
      'day',
      'text',
      'text',
      'text',
      'text',
      'number',
      'number',
    ]);
    expect(r.body.definition.analysis.detectors.map((d: { type: string }) => d.type)).toEqual([
      'dod',
      'gap',
      'wow',
      'spike',
    ]);
    const saved = await s.call('POST', '/api/v1/dataviews', { auth: s.adminToken, body: r.body.definition });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body.categories[2]).toEqual({ name: 'city', label: 'City', parent: 'region' });
  });

  it("drafts the admin's choices: no count, two categories; refuses a column the query does not have", async () => {
    const r = await draft({
      connector: 'shop',
      query: QUERY,
      valueColumn: 'orders',
      countColumn: null,
      categories: ['city', 'country'],
    });
    expect(r.status).toBe(200);
    expect(r.body.definition.source).toEqual({
      connector: 'shop',
      dateColumn: 'day',
      valueColumn: 'orders',
      cron: '0 0 6 * * *',
      loadQuery: QUERY,
    });
    expect(r.body.categories).toEqual([{ name: 'country' }, { name: 'city', parent: 'country' }]);
    expect(r.body.seriesCount).toBe(1 + 2 + 8);

    const bad = await draft({ connector: 'shop', query: QUERY, dateColumn: 'sale_day' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ path: 'dateColumn' });
    expect(bad.body.errors[0].message).toMatch(/no column sale_day/);
    const notDay = await draft({ connector: 'shop', query: QUERY, dateColumn: 'country' });
    expect(notDay.body.errors[0]).toEqual({
      path: 'dateColumn',
      message:
        'column country is not a date on every row (a DATE or TIMESTAMP, ISO text (YYYY-MM-DD, a time after it ignored) or an integer YYYYMMDD)',
    });
  });

  it('says what is missing, names an empty result, a source error, and is for administrators only', async () => {
    const noText = await draft({ connector: 'shop', query: 'SELECT day, revenue FROM (' + QUERY + ') q' });
    expect(noText.status).toBe(200);
    expect(noText.body.definition).toBeNull();
    expect(noText.body.missing).toEqual(['at least one category']);
    const empty = await draft({ connector: 'shop', query: 'SELECT * FROM sales WHERE false' });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].path).toBe('query');
    const broken = await draft({ connector: 'shop', query: 'SELECT nope FROM sales' });
    expect(broken.status).toBe(502);
    expect(broken.body.detail).toMatch(/nope/);
    expect((await draft({ connector: 'missing', query: 'SELECT 1' })).status).toBe(404);
    expect((await draft({ connector: 'shop', query: QUERY }, s.userToken)).status).toBe(403);
  });
});
