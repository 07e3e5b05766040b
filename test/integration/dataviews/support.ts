/** Shared by the data view tests: fixtures as text or objects, a connector row, and the tables of a dataset schema. */
import { sql } from 'drizzle-orm';
import type { Database } from '../../../lib/db/database';
import { fixtureDoc, fixtureText } from '../../unit/dataviews/fixture';

export { fixtureDoc, fixtureText };

/** The connector API belongs to another part; tests insert the row the definitions refer to. */
export async function insertConnector(db: Database, name = 'demo_pgsql'): Promise<void> {
  await db.rows(
    sql`INSERT INTO connectors (name, type, secret_ref, masked_configuration) VALUES (${name}, 'pgsql', 'x', '{}')`,
  );
}

/** Table names of a schema, read from information_schema. */
export async function tablesOf(db: Database, schema: string): Promise<string[]> {
  const rows = await db.rows<{ table_name: string }>(
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}

export async function schemaExists(db: Database, schema: string): Promise<boolean> {
  const rows = await db.rows(sql`SELECT 1 FROM information_schema.schemata WHERE schema_name = ${schema}`);
  return rows.length > 0;
}

/** A copy of the retail fixture renamed, so that several views can coexist. */
export function retailNamed(name: string, domain = 'retail'): Record<string, any> {
  const doc = fixtureDoc('retail.yaml');
  doc.metadata.name = name;
  doc.metadata.domain = domain;
  return doc;
}
