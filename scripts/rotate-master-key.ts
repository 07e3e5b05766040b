/**
 * `npm run rotate-master-key [-- --new-key <base64>]`: rotates the local master key (SECRETS_BACKEND=local).
 * Re-encrypts every connector, settings and alert subscription secret with the new key in one transaction, then makes the new
 * key current in DATA_DIR/local-keys.json. Stop `npm start` first: one process owns the embedded database.
 * When MASTER_KEY comes from the environment, pass the new key with --new-key and set MASTER_KEY to it after.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../lib/config/config';
import { connectDatabase } from '../lib/db/connect';
import { decodeMasterKey, generateMasterKey, LocalSecretStore, masterKeyId } from '../lib/secrets/index';
import { rewrapSecrets } from './local/rotate-secrets';

interface KeysFile {
  jwtSecret?: string;
  masterKey?: string;
  /** The key a rotation is moving to; kept until the rotation is committed, so a crash cannot lose it. */
  nextMasterKey?: string;
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  if (cfg.secrets.backend !== 'local') {
    throw new Error(
      'SECRETS_BACKEND is aws: connector secrets live in Secrets Manager, there is no master key to rotate',
    );
  }
  const file = path.join(cfg.dataDir, 'local-keys.json');
  const stored: KeysFile = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const keyFromEnv = cfg.secrets.masterKey !== undefined;
  const current = cfg.secrets.masterKey ?? stored.masterKey;
  if (!current)
    throw new Error(`no master key: set MASTER_KEY or start the service once so ${file} holds one`);
  if (keyFromEnv && !option('--new-key')) {
    throw new Error('MASTER_KEY is set in the environment: pass the new key with --new-key <base64>');
  }
  const next = option('--new-key') ?? stored.nextMasterKey ?? generateMasterKey();
  decodeMasterKey(next);
  if (masterKeyId(next) === masterKeyId(current)) throw new Error('the new key is the current key');

  const save = (keys: KeysFile) => writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  if (!keyFromEnv) save({ ...stored, masterKey: current, nextMasterKey: next });

  const db = await connectDatabase({
    databaseUrl: cfg.databaseUrl,
    pgliteDir: cfg.databaseUrl ? undefined : path.join(cfg.dataDir, 'service-db'),
    maxConnections: 1,
  });
  try {
    // A rotation that stopped after its commit left secrets under `next`: accept those too.
    const from = new LocalSecretStore(current, { previousKeys: [next] });
    const result = await rewrapSecrets(db, from, new LocalSecretStore(next));
    if (!keyFromEnv) save({ ...stored, masterKey: next, nextMasterKey: undefined });
    console.log(
      `Re-encrypted ${result.connectors} connector, ${result.settings} settings and ${result.alertSubscriptions} alert subscription secrets: master key ${masterKeyId(current)} -> ${masterKeyId(next)}.`,
    );
    console.log(
      keyFromEnv ? 'Set MASTER_KEY to the new key before the next start.' : `The new key is in ${file}.`,
    );
  } finally {
    await db.close();
  }
}

main().catch((e) => {
  console.error(`rotate-master-key failed: ${(e as Error).message}`);
  process.exit(1);
});
