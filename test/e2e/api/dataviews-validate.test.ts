/**
 * Checking a definition without saving it (what the editor runs as you type and `service-cli apply`
 * plans with), the editor's schema, and the compact form of a stored definition, over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureText, insertConnector } from '../../integration/dataviews/support';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

const YAML = { 'content-type': 'application/yaml' };

describe(`data view validate, editor schema and compact form over HTTP on ${backendName}`, () => {
  let s: TestService;
  const admin = () => ({ auth: s.adminToken });
  const validate = (body: string, query = '') =>
    s.call('POST', `/api/v1/dataviews/validate${query}`, { ...admin(), body, headers: YAML });

  beforeAll(async () => {
    s = await startTestService();
    await insertConnector(s.container.db);
  });
  afterAll(() => s.stop());

  it('answers the definition as it would be stored, and its compact form, without saving it', async () => {
    const r = await validate(fixtureText('retail.yaml'));
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(true);
    expect(r.body.definition.analysis.detectors[0]).toMatchObject({ type: 'dod', params: { minVolume: 5 } });
    expect(Object.keys(r.body.definition.analysis.detectors[0].params).length).toBeGreaterThan(5);
    expect(r.body.compact.analysis.detectors[0]).toEqual({
      type: 'dod',
      params: { percentualChange: 40, minVolume: 5 },
    });
    const list = await s.call('GET', '/api/v1/dataviews', admin());
    expect(list.body).toEqual([]);
  });

  it('refuses what saving refuses, with the same field errors: a param out of range, an unknown connector', async () => {
    const bad = fixtureText('retail.yaml')
      .replace('connector: demo_pgsql', 'connector: nowhere')
      .replace('percentualChange: 40', 'percentualChange: -4');
    const checked = await validate(bad);
    const saved = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: bad, headers: YAML });
    expect(checked.status).toBe(400);
    expect(saved.status).toBe(400);
    expect(checked.body.errors).toEqual(saved.body.errors);
    const paths = checked.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('source.connector');
    expect(paths).toContain('analysis.detectors[0].params.percentualChange');
  });

  it('checks as an update with id: a taken name is a conflict at metadata.name, a locked field at its path', async () => {
    const text = fixtureText('retail.yaml');
    const created = await s.call('POST', '/api/v1/dataviews', { ...admin(), body: text, headers: YAML });
    const id = created.body.id as number;
    // As a new view the name is taken; as the update of that view it is its own.
    const asNew = await validate(text);
    expect(asNew.status).toBe(409);
    expect(asNew.body.errors).toEqual([
      { path: 'metadata.name', message: expect.stringContaining('retail') },
    ]);
    expect((await validate(text, `?id=${id}`)).status).toBe(200);
    await s.call('POST', `/api/v1/dataviews/${id}/deploy`, admin());
    const renamed = await validate(text.replace('- name: channel', '- name: chan'), `?id=${id}`);
    expect(renamed.status).toBe(409);
    expect(renamed.body.errors.map((e: { path: string }) => e.path)).toContain('categories');
    await s.call('POST', `/api/v1/dataviews/${id}/undeploy`, admin());
    await s.call('DELETE', `/api/v1/dataviews/${id}`, admin());
  });

  it('serves the compact definition (JSON and YAML), which saves back to the same definition', async () => {
    const created = await s.call('POST', '/api/v1/dataviews', {
      ...admin(),
      body: fixtureText('retail.yaml'),
      headers: YAML,
    });
    const id = created.body.id as number;
    const compact = await s.call('GET', `/api/v1/dataviews/${id}?compact=true`, admin());
    expect(compact.body).toMatchObject({ id, state: 'prepared' });
    expect(compact.body.analysis.detectors[1]).toEqual({ type: 'wow', params: { percentualChange: 25 } });
    const yaml = await s.call('GET', `/api/v1/dataviews/${id}?compact=true`, {
      ...admin(),
      headers: { accept: 'application/yaml' },
    });
    const full = await s.call('GET', `/api/v1/dataviews/${id}`, {
      ...admin(),
      headers: { accept: 'application/yaml' },
    });
    // Every param of every detector is stored; the compact form names only those set differently.
    expect(String(full.body)).toContain('maxMissingPct');
    expect(String(yaml.body)).not.toContain('maxMissingPct');
    expect(String(yaml.body).length).toBeLessThan(String(full.body).length);
    const saved = await s.call('PUT', `/api/v1/dataviews/${id}`, {
      ...admin(),
      body: String(yaml.body),
      headers: YAML,
    });
    expect(saved.status).toBe(200);
    const { updatedAt: _a, ...before } = created.body;
    const { updatedAt: _b, ...after } = saved.body;
    expect(after).toEqual(before);
    expect((await s.call('GET', `/api/v1/dataviews/${id}?compact=maybe`, admin())).status).toBe(400);
  });

  it("serves the editor's schema to administrators only", async () => {
    const schema = await s.call('GET', '/api/v1/dataviews/definition-schema', admin());
    expect(schema.status).toBe(200);
    const item = schema.body.properties.analysis.properties.detectors.items;
    expect(item.properties.type.enum).toContain('changepoint');
    expect(item.allOf.length).toBe(item.properties.type.enum.length);
    const user = await s.call('GET', '/api/v1/dataviews/definition-schema', { auth: s.userToken });
    expect(user.status).toBe(403);
  });
});
