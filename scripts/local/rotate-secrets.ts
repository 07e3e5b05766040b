/**
 * Re-encrypts the local adapter's stored secrets (connectors, settings rows and alert subscriptions: webhook
 * signing secrets and Slack URLs) from one master key to another.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../lib/db/database';
import type { SecretStore } from '../../lib/secrets/index';

export interface RewrapResult {
  connectors: number;
  settings: number;
  alertSubscriptions: number;
}

/**
 * Reads every secret_ref with `from` and writes it again with `to`, in one transaction: a secret that
 * cannot be read leaves every row as it was. Rows are locked so a concurrent edit waits for the rotation.
 */
export async function rewrapSecrets(db: Database, from: SecretStore, to: SecretStore): Promise<RewrapResult> {
  return db.tx(async (tx) => {
    const connectors = await tx.rows<{ id: number; name: string; secret_ref: string }>(
      sql`SELECT id, name, secret_ref FROM connectors ORDER BY id FOR UPDATE`,
    );
    for (const row of connectors) {
      const ref = await to.put(row.name, await readOrExplain(from, row.secret_ref, `connector ${row.name}`));
      await tx.rows(sql`UPDATE connectors SET secret_ref = ${ref} WHERE id = ${row.id}`);
    }
    const settings = await tx.rows<{ key: string; secret_ref: string }>(
      sql`SELECT key, secret_ref FROM settings WHERE secret_ref IS NOT NULL ORDER BY key FOR UPDATE`,
    );
    for (const row of settings) {
      const ref = await to.put(row.key, await readOrExplain(from, row.secret_ref, `setting ${row.key}`));
      await tx.rows(sql`UPDATE settings SET secret_ref = ${ref} WHERE key = ${row.key}`);
    }
    const subscriptions = await tx.rows<{ id: number; secret_ref: string }>(
      sql`SELECT id, secret_ref FROM alert_subscriptions WHERE secret_ref IS NOT NULL ORDER BY id FOR UPDATE`,
    );
    for (const row of subscriptions) {
      const value = await readOrExplain(from, row.secret_ref, `alert subscription ${row.id}`);
      const ref = await to.put(`alert-subscription-${row.id}`, value);
      await tx.rows(sql`UPDATE alert_subscriptions SET secret_ref = ${ref} WHERE id = ${row.id}`);
    }
    return {
      connectors: connectors.length,
      settings: settings.length,
      alertSubscriptions: subscriptions.length,
    };
  });
}

async function readOrExplain(store: SecretStore, ref: string, what: string): Promise<string> {
  try {
    return await store.get(ref);
  } catch (e) {
    throw new Error(`the current master key cannot decrypt the secret of ${what}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}
