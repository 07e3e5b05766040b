/** Rotating the local master key: every stored secret is re-encrypted in one transaction, or none is. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../lib/db/connect';
import type { Database } from '../../lib/db/database';
import { generateMasterKey, LocalSecretStore } from '../../lib/secrets/index';
import { rewrapSecrets } from '../../scripts/local/rotate-secrets';
import { createTestDatabase, serverUrl, type TestDatabase } from '../support/db';

const root = path.resolve(import.meta.dirname, '../..');
const oldKey = generateMasterKey();
const newKey = generateMasterKey();

async function addConnector(db: Database, name: string, store: LocalSecretStore, value: string) {
  const ref = await store.put(name, value);
  await db.rows(sql`INSERT INTO connectors (name, type, secret_ref, masked_configuration)
    VALUES (${name}, 'pgsql', ${ref}, '{}'::jsonb)`);
}

/** A webhook and a Slack subscription whose signing secret and hook URL are stored encrypted. */
async function addSubscriptions(db: Database, store: LocalSecretStore) {
  const [u] = await db.rows<{ id: number }>(
    sql`INSERT INTO users (email, role) VALUES ('owner@example.com', 'admin') RETURNING id`,
  );
  const [f] = await db.rows<{ id: number }>(
    sql`INSERT INTO filters (owner_id, name, settings) VALUES (${u.id}, 'f', '{}'::jsonb) RETURNING id`,
  );
  for (const [channel, value] of [
    ['webhook', 'hmac-signing-secret'],
    ['slack', 'https://hooks.slack.com/services/T0/B0/xyz'],
  ]) {
    const ref = await store.put(`alert-subscription-${channel}`, value);
    await db.rows(sql`INSERT INTO alert_subscriptions (filter_id, user_id, channel, name, target, secret_ref)
      VALUES (${f.id}, ${u.id}, ${channel}, ${`${channel}-${f.id}`}, 'https://hooks.example.com/', ${ref})`);
  }
}

async function refs(db: Database): Promise<string[]> {
  const rows = await db.rows<{ secret_ref: string }>(sql`SELECT secret_ref FROM connectors
    UNION ALL SELECT secret_ref FROM settings WHERE secret_ref IS NOT NULL
    UNION ALL SELECT secret_ref FROM alert_subscriptions WHERE secret_ref IS NOT NULL`);
  return rows.map((r) => r.secret_ref).sort();
}

describe('re-encrypting the stored secrets with a new master key', () => {
  let t: TestDatabase;
  const before = new LocalSecretStore(oldKey);
  const after = new LocalSecretStore(newKey);

  beforeEach(async () => {
    t = await createTestDatabase();
    await addConnector(t.db, 'warehouse', before, '{"conn_string":"Server=a;Password=one"}');
    await addConnector(t.db, 'lake', before, '{"conn_string":"Server=b;Password=two"}');
    const headers = await before.put('summarization-headers', '{"authorization":"Bearer three"}');
    await t.db.rows(
      sql`INSERT INTO settings (key, value, secret_ref) VALUES ('summarization', '{}'::jsonb, ${headers})`,
    );
    await addSubscriptions(t.db, before);
  });
  afterEach(async () => t.drop());

  it('leaves every connector, settings and alert subscription secret readable with the new key alone, values unchanged', async () => {
    const result = await rewrapSecrets(t.db, before, after);

    expect(result).toEqual({ connectors: 2, settings: 1, alertSubscriptions: 2 });
    const values = await Promise.all((await refs(t.db)).map((ref) => after.get(ref)));
    expect(values.sort()).toEqual([
      'hmac-signing-secret',
      'https://hooks.slack.com/services/T0/B0/xyz',
      '{"authorization":"Bearer three"}',
      '{"conn_string":"Server=a;Password=one"}',
      '{"conn_string":"Server=b;Password=two"}',
    ]);
    for (const ref of await refs(t.db))
      await expect(before.get(ref)).rejects.toThrow(/master key does not match/);
  });

  it('changes nothing when one secret cannot be decrypted with the current key', async () => {
    await addConnector(t.db, 'stranger', new LocalSecretStore(generateMasterKey()), '{"conn_string":"x"}');
    const untouched = await refs(t.db);

    await expect(rewrapSecrets(t.db, before, after)).rejects.toThrow(
      /cannot decrypt the secret of connector stranger/,
    );

    expect(await refs(t.db)).toEqual(untouched);
  });
});

describe('npm run rotate-master-key', () => {
  let dataDir: string;
  let t: TestDatabase | undefined;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'rotate-master-key-'));
  });
  afterEach(async () => {
    await t?.drop();
    t = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  // A child process that opens and migrates a PGlite: over a minute on a busy machine.
  it('re-encrypts the secrets of a data folder and makes the new key current in local-keys.json', async () => {
    const keysFile = path.join(dataDir, 'local-keys.json');
    writeFileSync(keysFile, JSON.stringify({ jwtSecret: 'kept', masterKey: oldKey }));
    let databaseUrl: string | undefined;
    if (serverUrl) {
      t = await createTestDatabase();
      databaseUrl = t.url;
      await addConnector(t.db, 'warehouse', new LocalSecretStore(oldKey), 'secret value');
    } else {
      const db = await connectDatabase({ pgliteDir: path.join(dataDir, 'service-db'), migrate: true });
      await addConnector(db, 'warehouse', new LocalSecretStore(oldKey), 'secret value');
      await db.close();
    }

    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, SECRETS_BACKEND: 'local' };
    delete env.MASTER_KEY;
    if (databaseUrl) env.DATABASE_URL = databaseUrl;
    else delete env.DATABASE_URL;
    const { stdout } = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/tsx'),
      ['scripts/rotate-master-key.ts'],
      { cwd: root, env, timeout: 120_000 },
    );

    expect(stdout).toMatch(/Re-encrypted 1 connector, 0 settings and 0 alert subscription secrets/);
    const keys = JSON.parse(readFileSync(keysFile, 'utf8'));
    expect(keys.jwtSecret).toBe('kept');
    expect(keys.masterKey).not.toBe(oldKey);
    expect(keys.nextMasterKey).toBeUndefined();
    const db = t?.db ?? (await connectDatabase({ pgliteDir: path.join(dataDir, 'service-db') }));
    try {
      const [ref] = await refs(db);
      expect(await new LocalSecretStore(keys.masterKey).get(ref)).toBe('secret value');
    } finally {
      if (!t) await db.close();
    }
  }, 180_000);
});
