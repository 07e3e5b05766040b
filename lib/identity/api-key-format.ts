/** API keys: `amk_<prefix>_<secret>`, shown once; only a SHA-256 of the whole key is stored (keys are random, so no slow hash is needed). */
import { createHash, randomBytes } from 'node:crypto';

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const prefix = randomBytes(4).toString('hex');
  const key = `amk_${prefix}_${randomBytes(24).toString('base64url')}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
