/** Local secrets of a DATA_DIR (JWT secret and connector master key), generated on first start and kept in local-keys.json (mode 600). */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface LocalKeys {
  jwtSecret: string;
  masterKey: string;
}

export function loadOrCreateLocalKeys(
  dataDir: string,
  given: Partial<LocalKeys>,
): LocalKeys & { created: boolean } {
  const file = path.join(dataDir, 'local-keys.json');
  let stored: Partial<LocalKeys> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalKeys>;
  const keys: LocalKeys = {
    jwtSecret: given.jwtSecret ?? stored.jwtSecret ?? randomBytes(32).toString('base64url'),
    masterKey: given.masterKey ?? stored.masterKey ?? randomBytes(32).toString('base64'),
  };
  const created = !stored.jwtSecret || !stored.masterKey;
  if (created) writeFileSync(file, JSON.stringify({ ...stored, ...keys }, null, 2), { mode: 0o600 });
  return { ...keys, created };
}
