/** The local master key: 32 random bytes, written as base64, identified by a short hash. */
import { createHash, randomBytes } from 'node:crypto';
import { SecretStoreError } from './errors';

/** A new random 32-byte key, base64. */
export function generateMasterKey(): string {
  return randomBytes(32).toString('base64');
}

/** The key's bytes; throws when the text is not base64 of exactly 32 bytes. */
export function decodeMasterKey(key: string): Buffer {
  const text = key.trim();
  const bytes = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || bytes.length !== 32) {
    throw new SecretStoreError(
      `the master key must be 32 bytes written as base64 (got ${bytes.length} bytes)`,
    );
  }
  return bytes;
}

/** First 8 hex digits of sha256(key bytes): names a key in ciphertexts without revealing it. */
export function masterKeyId(key: string | Buffer): string {
  const bytes = typeof key === 'string' ? decodeMasterKey(key) : key;
  return createHash('sha256').update(bytes).digest('hex').slice(0, 8);
}
