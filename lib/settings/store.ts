/**
 * The service settings an administrator saves, one JSON value per key ('summarization' of lib/summaries,
 * 'alerts' of lib/alerts), with the reference of the secret that goes with it: the only SQL on `settings`.
 * What a value holds and who may change it is the owning module's; this store only keeps the rows.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/database';
import { settings } from '../db/tables/settings';

export interface StoredSetting {
  value: Record<string, unknown>;
  secretRef: string | null;
  updatedAt: Date;
}

/** The setting saved under `key`, or undefined when none is. */
export async function readSetting(db: Database, key: string): Promise<StoredSetting | undefined> {
  const [row] = await db.orm.select().from(settings).where(eq(settings.key, key));
  return row ? { value: row.value, secretRef: row.secretRef, updatedAt: row.updatedAt } : undefined;
}

/** Whether a setting is saved under `key` (nothing else is read). */
export async function hasSetting(db: Database, key: string): Promise<boolean> {
  const rows = await db.orm.select({ key: settings.key }).from(settings).where(eq(settings.key, key));
  return rows.length > 0;
}

/** Saves (or replaces) the setting under `key`. */
export async function writeSetting(db: Database, key: string, setting: StoredSetting): Promise<void> {
  const { value, secretRef, updatedAt } = setting;
  await db.orm
    .insert(settings)
    .values({ key, value, secretRef, updatedAt })
    .onConflictDoUpdate({ target: settings.key, set: { value, secretRef, updatedAt } });
}
