import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_TABLES } from '../../../lib/dataset/ddl';
import {
  fixtureText,
  insertConnector,
  retailNamed,
  schemaExists,
  tablesOf,
} from '../../integration/dataviews/support';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

const YAML = { 'content-type': 'application/yaml' };

describe(`data view lifecycle over HTTP on ${backendName}`, () => {
  let s: TestService;
  const admin = () => ({ auth: s.adminToken });
  const post = (path: string) => s.call('POST', `/api/v1/dataviews${path}`, admin());
  const tables = (id: number) => tablesOf(s.container.db, `dv_${id}`);

  beforeAll(async () => {
    s = await startTestService();
    await insertConnector(s.container.db);
  });
  afterAll(() => s.stop());

  it('takes a YAML definition through create, deploy, enable, disable, clean, undeploy and delete', async () => {
    // Create from YAML: prepared, no tables.
    const created = await s.call('POST', '/api/v1/dataviews', {
      ...admin(),
      body: fixtureText('retail.yaml'),
      headers: YAML,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: 'prepared',
      metadata: { name: 'retail_sales', domain: 'retail' },
    });
    const id = created.body.id as number;
    expect(await schemaExists(s.container.db, `dv_${id}`)).toBe(false);

    // Deploy: tables exist, the view is disabled.
    const deployed = await post(`/${id}/deploy`);
    expect(deployed.status).toBe(200);
    expect(deployed.body).toMatchObject({ id, state: 'disabled', deployed: true, enabled: false });
    expect(deployed.body.deployedAt).toBeTruthy();
    expect(await tables(id)).toEqual(expect.arrayContaining([...DATASET_TABLES]));

    // Enable, then disable.
    expect((await post(`/${id}/enable`)).body).toMatchObject({
      state: 'enabled',
      deployed: true,
      enabled: true,
    });
    expect((await post(`/${id}/disable`)).body).toMatchObject({ state: 'disabled', enabled: false });

    // Clean: rows and jobs go, tables and state stay.
    await s.container.db.rows(sql.raw(`INSERT INTO dv_${id}.days (day, series) VALUES (20240101, 1)`));
    await s.container.db.rows(
      sql`INSERT INTO jobs (data_view_id, kind, status) VALUES (${id}, 'Load', 'finished')`,
    );
    // Row counts are catalog estimates (as of the last ANALYZE, which the load runs), never a count per call.
    await s.container.db.rows(sql.raw(`ANALYZE dv_${id}.days`));
    const status = await s.call('GET', `/api/v1/dataviews/${id}/status`, admin());
    expect(status.body.rowCounts.days).toBe(1);
    expect(status.body.dataset).toMatchObject({ series: 0, anomalies: 0 });
    expect(status.body.lastJob).toMatchObject({ kind: 'Load', status: 'finished' });
    const cleaned = await post(`/${id}/clean`);
    expect(cleaned.body).toMatchObject({ state: 'disabled', deployed: true });
    expect(await tables(id)).toEqual(expect.arrayContaining([...DATASET_TABLES]));
    const afterClean = await s.call('GET', `/api/v1/dataviews/${id}/status`, admin());
    // TRUNCATE leaves the estimates unknown (null) until the next ANALYZE: nothing is counted.
    expect(Object.keys(afterClean.body.rowCounts)).toEqual(
      expect.arrayContaining(['int', 'data', 'cat_map', 'all_series', 'all_anomalies']),
    );
    for (const n of Object.values(afterClean.body.rowCounts)) expect([0, null]).toContain(n);
    expect(afterClean.body.lastJob).toBeNull();

    // Undeploy: no schema, prepared again.
    const undeployed = await post(`/${id}/undeploy`);
    expect(undeployed.body).toMatchObject({
      state: 'prepared',
      deployed: false,
      enabled: false,
      deployedAt: null,
    });
    expect(await schemaExists(s.container.db, `dv_${id}`)).toBe(false);

    // Delete: gone.
    expect((await s.call('DELETE', `/api/v1/dataviews/${id}`, admin())).status).toBe(204);
    expect((await s.call('GET', `/api/v1/dataviews/${id}`, admin())).status).toBe(404);
  });

  it('refuses to deploy twice, and refuses to deploy over tables a previous deployment left', async () => {
    const { body } = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: retailNamed('twice') });
    expect((await post(`/${body.id}/deploy`)).status).toBe(200);
    const again = await post(`/${body.id}/deploy`);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already deployed/);

    const other = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: retailNamed('leftover') });
    await s.container.db.rows(sql.raw(`CREATE SCHEMA dv_${other.body.id}`));
    const refused = await post(`/${other.body.id}/deploy`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(
      /Tables of a previous deployment exist.*clean the objects or delete the deployment/,
    );
    // The remedy named works: undeploy removes the leftovers, then deploy succeeds.
    expect((await post(`/${other.body.id}/undeploy`)).body.state).toBe('prepared');
    expect((await post(`/${other.body.id}/deploy`)).body.state).toBe('disabled');
  });

  it('reports validation errors when the connector is gone at deploy, and the view stays prepared', async () => {
    await insertConnector(s.container.db, 'short_lived');
    const doc = retailNamed('orphan');
    doc.source.connector = 'short_lived';
    const { body } = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: doc });
    await s.container.db.rows(sql`DELETE FROM connectors WHERE name = 'short_lived'`);
    const r = await post(`/${body.id}/deploy`);
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/stays prepared/);
    expect(r.body.errors).toEqual([
      { path: 'source.connector', message: "connector 'short_lived' does not exist" },
    ]);
    expect((await s.call('GET', `/api/v1/dataviews/${body.id}`, admin())).body.state).toBe('prepared');
    expect(await schemaExists(s.container.db, `dv_${body.id}`)).toBe(false);
  });

  it('refuses enable, disable, clean and undeploy of a prepared view with 409, and delete of a deployed one', async () => {
    const { body } = await s.call('POST', '/api/v1/dataviews', {
      ...admin(),
      body: retailNamed('prepared_only'),
    });
    for (const action of ['enable', 'disable', 'clean', 'undeploy']) {
      const r = await post(`/${body.id}/${action}`);
      expect(r.status, action).toBe(409);
      expect(r.body.detail, action).toMatch(/is not deployed/);
    }
    await post(`/${body.id}/deploy`);
    const del = await s.call('DELETE', `/api/v1/dataviews/${body.id}`, admin());
    expect(del.status).toBe(409);
    expect(del.body.detail).toMatch(/undeploy/);
  });

  it('refuses to change name, domain or categories of a deployed view, naming the fields and the remedy', async () => {
    const { body } = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: retailNamed('locked') });
    await post(`/${body.id}/deploy`);
    const doc = (await s.call('GET', `/api/v1/dataviews/${body.id}`, admin())).body;
    doc.metadata.name = 'locked_renamed';
    doc.categories.pop();
    const r = await s.call('PUT', `/api/v1/dataviews/${body.id}`, { ...admin(), body: doc });
    expect(r.status).toBe(409);
    expect(r.body.detail).toContain('metadata.name, categories');
    expect(r.body.detail).toContain('Delete the deployment first.');
    expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual(['metadata.name', 'categories']);

    // Labels and the description may change while deployed; the read-only fields sent back are ignored.
    const fresh = (await s.call('GET', `/api/v1/dataviews/${body.id}`, admin())).body;
    fresh.metadata.description = 'Edited while deployed';
    fresh.categories[0].label = 'Land';
    fresh.state = 'prepared';
    const ok = await s.call('PUT', `/api/v1/dataviews/${body.id}`, { ...admin(), body: fresh });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ state: 'disabled', metadata: { description: 'Edited while deployed' } });
    expect(ok.body.categories[0].label).toBe('Land');
  });

  it('accepts the same YAML document back on PUT while prepared, including a rename', async () => {
    const { body } = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: retailNamed('yaml_put') });
    const yaml = await s.call('GET', `/api/v1/dataviews/${body.id}`, {
      ...admin(),
      headers: { accept: 'application/yaml' },
    });
    const edited = yaml.text.replace('name: yaml_put', 'name: yaml_put_renamed');
    const r = await s.call('PUT', `/api/v1/dataviews/${body.id}`, {
      ...admin(),
      body: edited,
      headers: YAML,
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata.name).toBe('yaml_put_renamed');
    const listed = await s.call('GET', '/api/v1/dataviews?name=yaml_put_renamed', admin());
    expect(listed.body.map((v: { id: number }) => v.id)).toEqual([body.id]);
  });

  it('refuses a second view with the same domain and name, in any case', async () => {
    await s.call('POST', '/api/v1/dataviews', { ...admin(), body: retailNamed('dup_name') });
    const r = await s.call('POST', '/api/v1/dataviews', {
      ...admin(),
      body: retailNamed('DUP_NAME', 'RETAIL'),
    });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/already exists/);
  });
});
