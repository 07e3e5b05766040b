/** Connector rows of the service database; the configuration is only ever stored encrypted (secret_ref) and masked. */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { connectors } from '../db/tables/connectors';

export type ConnectorRow = typeof connectors.$inferSelect;

export async function findConnector(db: Database, name: string): Promise<ConnectorRow | undefined> {
  const [row] = await db.orm.select().from(connectors).where(sql`lower(${connectors.name}) = lower(${name})`);
  return row;
}

export async function listConnectorRows(db: Database): Promise<ConnectorRow[]> {
  return db.orm.select().from(connectors).orderBy(connectors.name);
}

export async function insertConnector(
  db: Database,
  row: typeof connectors.$inferInsert,
): Promise<ConnectorRow> {
  const [created] = await db.orm.insert(connectors).values(row).returning();
  return created;
}

export async function updateConnectorRow(
  db: Database,
  id: number,
  patch: Partial<typeof connectors.$inferInsert>,
): Promise<ConnectorRow> {
  const [row] = await db.orm
    .update(connectors)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(connectors.id, id))
    .returning();
  return row;
}

export async function deleteConnectorRow(db: Database, id: number): Promise<void> {
  await db.orm.delete(connectors).where(eq(connectors.id, id));
}

/** True when a connector of that name exists, any case. */
export async function connectorExists(db: Database, name: string): Promise<boolean> {
  const rows = await db.orm
    .select({ id: connectors.id })
    .from(connectors)
    .where(sql`lower(${connectors.name}) = lower(${name})`);
  return rows.length > 0;
}
