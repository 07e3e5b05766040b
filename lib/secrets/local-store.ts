/** Local secrets adapter: AES-256-GCM envelopes that the caller keeps in its own database row. */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretStoreError } from './errors';
import { decodeMasterKey, masterKeyId } from './master-key';
import type { SecretStore } from './secret-store';

const VERSION = 'v1';

export interface LocalSecretStoreOptions {
  /** Older keys (base64) still accepted for reading, so a key can be rotated by re-saving secrets. */
  previousKeys?: string[];
}

/**
 * put() returns `v1:<keyId>:<iv>:<tag>:<ciphertext>` (base64url parts): self-contained, so delete() has
 * nothing to do. The header is authenticated too, so a ciphertext cannot be relabelled to another key.
 */
export class LocalSecretStore implements SecretStore {
  private readonly keys = new Map<string, Buffer>();
  readonly keyId: string;

  constructor(masterKey: string, options: LocalSecretStoreOptions = {}) {
    const key = decodeMasterKey(masterKey);
    this.keyId = masterKeyId(key);
    this.keys.set(this.keyId, key);
    for (const old of options.previousKeys ?? []) {
      const bytes = decodeMasterKey(old);
      this.keys.set(masterKeyId(bytes), bytes);
    }
  }

  async put(_name: string, value: string): Promise<string> {
    const key = this.keys.get(this.keyId) as Buffer;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`${VERSION}:${this.keyId}`));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return [VERSION, this.keyId, ...parts].join(':');
  }

  async get(ref: string): Promise<string> {
    const parts = ref.split(':');
    if (parts.length !== 5 || parts[0] !== VERSION) {
      throw new SecretStoreError('not a stored secret (expected v1:<keyId>:<iv>:<tag>:<ciphertext>)');
    }
    const [, keyId, iv, tag, data] = parts;
    const key = this.keys.get(keyId);
    if (!key) {
      throw new SecretStoreError(
        `master key does not match stored secrets (key id ${keyId}; the configured key is ${this.keyId})`,
      );
    }
    const tagBytes = Buffer.from(tag, 'base64url');
    // GCM accepts short tags; only the full 16 bytes written by put() are trusted.
    if (tagBytes.length !== 16)
      throw new SecretStoreError(`stored secret is damaged or was altered (key id ${keyId})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`${VERSION}:${keyId}`));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch (e) {
      throw new SecretStoreError(`stored secret is damaged or was altered (key id ${keyId})`, { cause: e });
    }
  }

  async delete(_ref: string): Promise<void> {
    // The ciphertext lives in the caller's row; deleting the row deletes the secret.
  }

  /** True when the reference was written with an older key (re-save it to rotate). */
  needsRewrap(ref: string): boolean {
    return ref.split(':')[1] !== this.keyId;
  }
}
