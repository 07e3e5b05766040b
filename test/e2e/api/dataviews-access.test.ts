import { sql } from 'drizzle-orm';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureText, insertConnector, retailNamed } from '../../integration/dataviews/support';
import { backendName } from '../../support/db';
import { startTestService, type TestService, USER } from '../../support/service';

describe(`data view reads, lists and access over HTTP on ${backendName}`, () => {
  let s: TestService;
  const ids: Record<string, number> = {};
  const admin = () => ({ auth: s.adminToken });
  const user = () => ({ auth: s.userToken });

  async function create(name: string, domain: string, tags: string): Promise<number> {
    const doc = retailNamed(name, domain);
    doc.metadata.tags = tags;
    const r = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: doc });
    if (r.status !== 201) throw new Error(r.text);
    return r.body.id;
  }

  beforeAll(async () => {
    s = await startTestService();
    await insertConnector(s.container.db);
    ids.sales = await create('retail_sales', 'retail', 'retail, revenue');
    ids.returns = await create('retail_returns', 'Retail', 'returns');
    ids.hotel = await create('hotel_nights', 'hospitality', 'revenue, Hotels');
    // The data user is assigned the sales and hotel views only.
    const users = await s.call('GET', '/api/v1/users', admin());
    const me = users.body.find((u: { email: string }) => u.email === USER.email);
    const put = await s.call('PUT', `/api/v1/users/${me.id}`, {
      ...admin(),
      body: { dataViewIds: [ids.sales, ids.hotel] },
    });
    if (put.status !== 200) throw new Error(put.text);
  });
  afterAll(() => s.stop());

  const names = (body: Array<{ name: string }>) => body.map((v) => v.name);

  it('lists only the views assigned to a data user, and every view to an admin', async () => {
    expect(names((await s.call('GET', '/api/v1/dataviews', user())).body)).toEqual([
      'hotel_nights',
      'retail_sales',
    ]);
    expect(names((await s.call('GET', '/api/v1/dataviews', admin())).body)).toEqual([
      'hotel_nights',
      'retail_returns',
      'retail_sales',
    ]);
    const lite = await s.call('GET', '/api/v1/dataviews/lite', user());
    expect(lite.body).toEqual([
      { id: ids.hotel, name: 'hotel_nights', domain: 'hospitality', state: 'prepared' },
      { id: ids.sales, name: 'retail_sales', domain: 'retail', state: 'prepared' },
    ]);
  });

  it('filters the list by part of the name, by domain and by tag, in any case', async () => {
    const list = async (q: string) => names((await s.call('GET', `/api/v1/dataviews?${q}`, admin())).body);
    expect(await list('name=RETAIL_')).toEqual(['retail_returns', 'retail_sales']);
    expect(await list('name=_')).toHaveLength(3);
    expect(await list('domain=retail')).toEqual(['retail_returns', 'retail_sales']);
    expect(await list('domain=ret')).toEqual([]);
    expect(await list('tag=revenue')).toEqual(['hotel_nights', 'retail_sales']);
    expect(await list('tag=hotels')).toEqual(['hotel_nights']);
    expect(await list('tag=revenue&domain=retail&name=sales')).toEqual(['retail_sales']);
    expect(names((await s.call('GET', '/api/v1/dataviews?tag=revenue', user())).body)).toEqual([
      'hotel_nights',
      'retail_sales',
    ]);
  });

  it('answers 404 to a data user for a view not assigned, and serves an assigned one', async () => {
    for (const path of [`/${ids.returns}`, `/${ids.returns}/status`]) {
      const r = await s.call('GET', `/api/v1/dataviews${path}`, user());
      expect(r.status, path).toBe(404);
    }
    expect((await s.call('GET', `/api/v1/dataviews/${ids.sales}`, user())).status).toBe(200);
    expect((await s.call('GET', `/api/v1/dataviews/${ids.sales}/status`, user())).body).toMatchObject({
      state: 'prepared',
      tables: [],
      rowCounts: null,
      dataset: null,
      lastJob: null,
    });
  });

  it('answers 403 to a data user on every admin route, whatever the id', async () => {
    const calls: Array<[string, string, unknown?]> = [
      ['POST', '/api/v1/dataviews', retailNamed('by_user')],
      ['PUT', `/api/v1/dataviews/${ids.sales}`, retailNamed('retail_sales')],
      ['DELETE', `/api/v1/dataviews/${ids.sales}`],
      ['GET', `/api/v1/dataviews/${ids.sales}/categories`],
      ['GET', '/api/v1/dataviews/99999/categories'],
      ...['deploy', 'enable', 'disable', 'undeploy', 'clean'].flatMap(
        (a): Array<[string, string]> => [
          ['POST', `/api/v1/dataviews/${ids.sales}/${a}`],
          ['POST', `/api/v1/dataviews/${ids.returns}/${a}`],
          ['POST', `/api/v1/dataviews/99999/${a}`],
        ],
      ),
    ];
    for (const [method, path, body] of calls) {
      const r = await s.call(method, path, { ...user(), body });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    expect((await s.call('GET', `/api/v1/dataviews/${ids.sales}`, admin())).body.state).toBe('prepared');
  });

  it('answers 401 without credentials and 404 for an unknown id', async () => {
    expect((await s.call('GET', '/api/v1/dataviews')).status).toBe(401);
    expect((await s.call('GET', '/api/v1/dataviews/99999', admin())).status).toBe(404);
    expect((await s.call('POST', '/api/v1/dataviews/99999/deploy', admin())).status).toBe(404);
    expect((await s.call('GET', '/api/v1/dataviews/abc', admin())).status).toBe(400);
  });

  it('answers YAML when the Accept header prefers it, and JSON otherwise', async () => {
    const yaml = await s.call('GET', `/api/v1/dataviews/${ids.sales}`, {
      ...admin(),
      headers: { accept: 'application/yaml' },
    });
    expect(yaml.headers.get('content-type')).toContain('application/yaml');
    const doc = parse(yaml.text);
    expect(doc).toMatchObject({
      id: ids.sales,
      state: 'prepared',
      schemaVersion: 3,
      metadata: { name: 'retail_sales' },
    });
    const json = await s.call('GET', `/api/v1/dataviews/${ids.sales}`, {
      ...admin(),
      headers: { accept: 'application/json, application/yaml;q=0.5' },
    });
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(json.body).toEqual(doc);
  });

  it('answers a YAML syntax error with 400 giving line and column', async () => {
    const broken = fixtureText('minimal.yaml').replace('  domain: hospitality', '  domain: [hospitality');
    const r = await s.call('POST', '/api/v1/dataviews', {
      ...admin(),
      body: broken,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toMatch(/YAML syntax error at line \d+, column \d+/);
  });

  it('lists categories with label and parent, and once deployed the values seen in cat_map', async () => {
    const before = await s.call('GET', `/api/v1/dataviews/${ids.sales}/categories`, admin());
    expect(before.body).toEqual([
      { name: 'country', label: 'Country', parent: null, values: [], valuesTruncated: false },
      { name: 'region', label: 'Region', parent: 'country', values: [], valuesTruncated: false },
      { name: 'city', label: 'City', parent: 'region', values: [], valuesTruncated: false },
      { name: 'channel', label: 'Sales channel', parent: null, values: [], valuesTruncated: false },
    ]);
    await s.call('POST', `/api/v1/dataviews/${ids.sales}/deploy`, admin());
    await s.container.db.rows(
      sql.raw(`INSERT INTO dv_${ids.sales}.cat_map (series_id, c_country, c_region, c_city, c_channel, level, series_key) VALUES
        (1, 'CZ', NULL, NULL, NULL, 1, 'a'), (2, 'SK', NULL, NULL, NULL, 1, 'b'), (3, 'CZ', 'Bohemia', NULL, NULL, 2, 'c'),
        (4, NULL, NULL, NULL, 'web', 1, 'd'), (5, 'CZ', NULL, NULL, 'web', 2, 'e')`),
    );
    const after = await s.call('GET', `/api/v1/dataviews/${ids.sales}/categories`, admin());
    expect(after.body.map((c: { name: string; values: string[] }) => [c.name, c.values])).toEqual([
      ['country', ['CZ', 'SK']],
      ['region', ['Bohemia']],
      ['city', []],
      ['channel', ['web']],
    ]);
    // Row counts are the catalog's estimates as of the last ANALYZE (status never counts rows).
    await s.container.db.rows(sql.raw(`ANALYZE dv_${ids.sales}.cat_map`));
    const status = await s.call('GET', `/api/v1/dataviews/${ids.sales}/status`, user());
    expect(status.body).toMatchObject({ state: 'disabled', deployed: true, schemaName: `dv_${ids.sales}` });
    expect(status.body.rowCounts.cat_map).toBe(5);
    expect(status.body.tables).toEqual(
      expect.arrayContaining(['int', 'data', 'cat_map', 'all_series', 'all_anomalies']),
    );
  });
});
