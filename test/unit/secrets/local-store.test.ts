import { describe, expect, it } from 'vitest';
import {
  LocalSecretStore,
  SecretStoreError,
  createSecretStore,
  generateMasterKey,
  masterKeyId,
} from '../../../lib/secrets/index';
import { secretStoreContract } from './secret-store-contract';

secretStoreContract('LocalSecretStore', () => new LocalSecretStore(generateMasterKey()));
secretStoreContract('createSecretStore local', () =>
  createSecretStore({ backend: 'local', masterKey: generateMasterKey() }),
);

describe('the local secret store', () => {
  const key = generateMasterKey();

  it('writes a self-contained v1 envelope naming its key', async () => {
    const ref = await new LocalSecretStore(key).put('x', 'value');
    const [version, keyId, iv, tag, data] = ref.split(':');
    expect(version).toBe('v1');
    expect(keyId).toBe(masterKeyId(key));
    expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag, 'base64url')).toHaveLength(16);
    expect(data.length).toBeGreaterThan(0);
  });

  it('encrypts the same value differently each time', async () => {
    const store = new LocalSecretStore(key);
    expect(await store.put('x', 'same')).not.toBe(await store.put('x', 'same'));
  });

  it('says clearly when the master key is not the one the secrets were stored with', async () => {
    const ref = await new LocalSecretStore(key).put('x', 'value');
    const other = new LocalSecretStore(generateMasterKey());
    await expect(other.get(ref)).rejects.toThrow(
      `master key does not match stored secrets (key id ${masterKeyId(key)}`,
    );
  });

  it('detects a ciphertext that was altered', async () => {
    const store = new LocalSecretStore(key);
    const ref = await store.put('x', 'value');
    const parts = ref.split(':');
    const data = Buffer.from(parts[4], 'base64url');
    data[0] ^= 1;
    parts[4] = data.toString('base64url');
    await expect(store.get(parts.join(':'))).rejects.toThrow('stored secret is damaged or was altered');
    await expect(store.get(ref.replace(/:[^:]+:[^:]+$/, ':AAAA:AAAA'))).rejects.toBeInstanceOf(
      SecretStoreError,
    );
  });

  it('refuses a reference that is not an envelope', async () => {
    await expect(new LocalSecretStore(key).get('arn:aws:whatever')).rejects.toThrow('not a stored secret');
  });

  it('reads secrets of a previous key while writing with the new one', async () => {
    const oldKey = generateMasterKey();
    const ref = await new LocalSecretStore(oldKey).put('x', 'old value');
    const rotated = new LocalSecretStore(key, { previousKeys: [oldKey] });
    expect(await rotated.get(ref)).toBe('old value');
    expect(rotated.needsRewrap(ref)).toBe(true);
    expect(rotated.needsRewrap(await rotated.put('x', 'old value'))).toBe(false);
  });

  it('refuses a master key that is not 32 bytes of base64', () => {
    expect(() => new LocalSecretStore('c2hvcnQ=')).toThrow(
      'the master key must be 32 bytes written as base64',
    );
    expect(() => new LocalSecretStore('not base64 at all!')).toThrow(SecretStoreError);
  });

  it('generates distinct 32-byte keys with 8-hex-digit ids', () => {
    const a = generateMasterKey();
    expect(Buffer.from(a, 'base64')).toHaveLength(32);
    expect(a).not.toBe(generateMasterKey());
    expect(masterKeyId(a)).toMatch(/^[0-9a-f]{8}$/);
  });
});
