import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyStoredSecrets } from '../../../lib/connectors/service';
import { createSecretStore, generateMasterKey } from '../../../lib/secrets/index';
import { freePort } from '../../../scripts/local/ports';
import { servePglite, type ServedPglite } from '../../../scripts/local/pglite-server';
import { fixtureDoc } from '../../unit/dataviews/fixture';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

const PASSWORD = 'S3cr3t;pa"ss=word';

/** Every row of every table of the service database as text: the "dump" no secret may appear in. */
async function dumpServiceDatabase(s: TestService): Promise<string> {
  const tables = await s.container.db.rows<{ table_name: string }>(
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
  );
  let dump = '';
  for (const { table_name } of tables) {
    const rows = await s.container.db.rows(sql.raw(`SELECT t::text AS line FROM public."${table_name}" t`));
    dump += rows.map((r) => String((r as { line: string }).line)).join('\n');
  }
  return dump;
}

describe(`connectors API on ${backendName}`, () => {
  let s: TestService;
  let source: ServedPglite;
  let connString: string;

  beforeAll(async () => {
    s = await startTestService({ CONNECTOR_TIMEOUT_MS: '3000' });
    source = await servePglite('memory://');
    await source.db.exec(`CREATE TABLE sales (day integer, country text, amount numeric);
      INSERT INTO sales SELECT 20240101 + g, CASE WHEN g % 2 = 0 THEN 'CZ' ELSE 'DE' END, g FROM generate_series(0, 24) g;`);
    // PGlite accepts any password: the string still carries one, as a customer's would.
    connString = `Host=127.0.0.1;Port=${source.port};Database=postgres;Username=postgres;Password="${PASSWORD.replace(/"/g, '""')}";SSL Mode=disable`;
  });
  afterAll(async () => {
    await s.stop();
    await source.close();
  });

  it('refuses every connector endpoint to a data user with 403', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/connectors'],
      ['GET', '/api/v1/connectors/any'],
      ['POST', '/api/v1/connectors/any/test'],
      ['DELETE', '/api/v1/connectors/any'],
    ]) {
      const r = await s.call(method, path, { auth: s.userToken }).catch((e) => {
        throw new Error(`${method} ${path}: ${e.cause}`);
      });
      expect(r.status).toBe(403);
    }
    const create = await s.call('POST', '/api/v1/connectors', {
      auth: s.userToken,
      body: { name: 'x', type: 'pgsql', configuration: { conn_string: connString } },
    });
    expect(create.status).toBe(403);
  });

  it('creates a connector whose password never shows in answers or the database', async () => {
    const r = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: {
        name: 'demo_pg',
        type: 'pgsql',
        description: 'demo',
        configuration: { conn_string: connString },
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.configuration.conn_string).toContain('Password=*****');
    expect(r.body.status).toBe('untested');
    const list = await s.call('GET', '/api/v1/connectors', { auth: s.adminToken });
    const one = await s.call('GET', '/api/v1/connectors/DEMO_PG', { auth: s.adminToken });
    expect(one.body.name).toBe('demo_pg');
    for (const text of [r.text, list.text, one.text]) expect(text).not.toContain('S3cr3t');
    expect(await dumpServiceDatabase(s)).not.toContain('S3cr3t');
  });

  it('refuses a duplicate name with 409 and a malformed connection string with 400 naming the key', async () => {
    const dup = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'Demo_PG', type: 'pgsql', configuration: { conn_string: connString } },
    });
    expect(dup.status).toBe(409);
    const bad = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: {
        name: 'bad',
        type: 'pgsql',
        configuration: { conn_string: 'Host=h;Port=abc;Password=zzz-secret' },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('configuration.conn_string');
    expect(bad.body.detail).toMatch(/Port/);
    expect(bad.text).not.toContain('zzz-secret');
    const fabric = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: {
        name: 'lake',
        type: 'fabric',
        configuration: { server: 'x.datawarehouse.fabric.microsoft.com' },
      },
    });
    expect(fabric.status).toBe(400);
    expect(fabric.body.errors.map((e: { path: string }) => e.path)).toContain('configuration.client_secret');
    const unsafe = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: '../etc', type: 'pgsql', configuration: { conn_string: connString } },
    });
    expect(unsafe.status).toBe(400);
    expect(unsafe.body.errors[0].path).toBe('name');
  });

  it('tests the connector: active on success, failed with a clean message on a closed port', async () => {
    const ok = await s.call('POST', '/api/v1/connectors/demo_pg/test', { auth: s.adminToken });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'active', ok: true });
    const closed = await freePort();
    const put = await s.call('PUT', '/api/v1/connectors/demo_pg', {
      auth: s.adminToken,
      body: {
        type: 'pgsql',
        configuration: { conn_string: connString.replace(`Port=${source.port}`, `Port=${closed}`) },
      },
    });
    expect(put.status).toBe(200);
    expect(put.text).not.toContain('S3cr3t');
    const failed = await s.call('POST', '/api/v1/connectors/demo_pg/test', { auth: s.adminToken });
    expect(failed.body.status).toBe('failed');
    expect(failed.body.message).toMatch(/127\.0\.0\.1/);
    expect(failed.text).not.toContain('S3cr3t');
    const listed = await s.call('GET', '/api/v1/connectors/demo_pg', { auth: s.adminToken });
    expect(listed.body).toMatchObject({ status: 'failed' });
    expect(listed.body.lastTestedAt).toBeTruthy();
  });

  it('keeps the stored secret when an update sends no configuration', async () => {
    await s.call('PUT', '/api/v1/connectors/demo_pg', {
      auth: s.adminToken,
      body: { type: 'pgsql', configuration: { conn_string: connString } },
    });
    const upd = await s.call('PUT', '/api/v1/connectors/demo_pg', {
      auth: s.adminToken,
      body: { type: 'pgsql', description: 'renamed description' },
    });
    expect(upd.body.description).toBe('renamed description');
    const ok = await s.call('POST', '/api/v1/connectors/demo_pg/test', { auth: s.adminToken });
    expect(ok.body.status).toBe('active');
    expect(await dumpServiceDatabase(s)).not.toContain('S3cr3t');
  });

  it('previews the first 10 rows of a query', async () => {
    const r = await s.call('POST', '/api/v1/connectors/preview-query', {
      auth: s.adminToken,
      body: { connector: 'demo_pg', query: 'SELECT day, country, amount FROM sales ORDER BY day' },
    });
    expect(r.status).toBe(200);
    expect(r.body.rows).toHaveLength(10);
    expect(r.body.columns.map((c: { name: string }) => c.name)).toEqual(['day', 'country', 'amount']);
    const bad = await s.call('POST', '/api/v1/connectors/preview-query', {
      auth: s.adminToken,
      body: { connector: 'demo_pg', query: 'SELECT nope FROM sales' },
    });
    expect(bad.status).toBe(502);
    expect(bad.body.detail).toMatch(/nope/);
  });

  it('refuses to start with a master key that cannot decrypt the stored secrets', async () => {
    await expect(
      verifyStoredSecrets({ db: s.container.db, secrets: s.container.secrets }),
    ).resolves.toBeUndefined();
    const otherKey = createSecretStore({ backend: 'local', masterKey: generateMasterKey() });
    await expect(verifyStoredSecrets({ db: s.container.db, secrets: otherKey })).rejects.toThrow(
      /MASTER_KEY cannot decrypt.*demo_pg/,
    );
  });

  it('refuses to delete a connector a data view loads from (409 naming the view), then deletes it once unused', async () => {
    const doc = fixtureDoc();
    doc.source.connector = 'DEMO_PG';
    doc.metadata = { ...doc.metadata, domain: 'sales', name: 'by_day' };
    const view = await s.call('POST', '/api/v1/dataviews', { auth: s.adminToken, body: doc });
    expect(view.status, view.text).toBe(201);
    const refused = await s.call('DELETE', '/api/v1/connectors/demo_pg', { auth: s.adminToken });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('sales / by_day');
    expect((await s.call('GET', '/api/v1/connectors/demo_pg', { auth: s.adminToken })).status).toBe(200);
    const gone = await s.call('DELETE', `/api/v1/dataviews/${view.body.id}`, { auth: s.adminToken });
    expect(gone.status, gone.text).toBe(204);
    expect((await s.call('DELETE', '/api/v1/connectors/demo_pg', { auth: s.adminToken })).status).toBe(204);
    expect((await s.call('GET', '/api/v1/connectors/demo_pg', { auth: s.adminToken })).status).toBe(404);
  });
});
