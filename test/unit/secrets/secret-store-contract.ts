/** The behaviour every SecretStore adapter promises, run against each of them. */
import { describe, expect, it } from 'vitest';
import type { SecretStore } from '../../../lib/secrets/index';

export function secretStoreContract(label: string, make: () => SecretStore) {
  describe(`${label} (SecretStore contract)`, () => {
    it('gives back what was put, through the reference', async () => {
      const store = make();
      const value = JSON.stringify({ conn_string: 'Server=h;User Id=u;Password="p;ä€"' });
      const ref = await store.put('sales-db', value);
      expect(await store.get(ref)).toBe(value);
    });

    it('does not show the value in the reference', async () => {
      const ref = await make().put('sales-db', 'Password=hunter2-visible?');
      expect(ref).not.toContain('hunter2');
    });

    it('replaces a secret on a second put under the same name', async () => {
      const store = make();
      await store.put('warehouse', 'first');
      const ref = await store.put('warehouse', 'second');
      expect(await store.get(ref)).toBe('second');
    });

    it('keeps secrets of different names apart', async () => {
      const store = make();
      const a = await store.put('a', 'value-a');
      const b = await store.put('b', 'value-b');
      expect(await store.get(a)).toBe('value-a');
      expect(await store.get(b)).toBe('value-b');
    });

    it('deletes without complaint, also twice', async () => {
      const store = make();
      const ref = await store.put('gone', 'x');
      await store.delete(ref);
      await expect(store.delete(ref)).resolves.toBeUndefined();
    });

    it('stores an empty value', async () => {
      const store = make();
      expect(await store.get(await store.put('empty', ''))).toBe('');
    });
  });
}
