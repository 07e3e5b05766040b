/**
 * Rows of data_views: the only SQL of the module, and the only code of the service that reads the data_views table. Rows leave as DataView.
 */
import { and, asc, count, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { dataViews } from '../db/tables/dataviews';
import type { DataViewListQuery } from './types';
import { type DataViewRecord, type DataViewRow, toDataView } from './views';

export type DataViewPatch = Partial<Omit<typeof dataViews.$inferInsert, 'id' | 'createdAt'>>;

// One key for every creation, so that two concurrent creates cannot both pass the licence count.
const CREATE_LOCK_KEY = 727_001;

/** The row of data view `id`; `forUpdate` locks it until the transaction ends (lifecycle actions). */
export async function findView(
  db: Database,
  id: number,
  forUpdate = false,
): Promise<DataViewRecord | undefined> {
  const q = db.orm.select().from(dataViews).where(eq(dataViews.id, id));
  const rows = (forUpdate ? await q.for('update') : await q) as DataViewRow[];
  return rows[0] && toDataView(rows[0]);
}

/** The data view addressed as `{domain}/{name}` (job URLs), any case. */
export async function findViewByDomainName(
  db: Database,
  domain: string,
  name: string,
): Promise<DataViewRecord | undefined> {
  const rows = (await db.orm
    .select()
    .from(dataViews)
    .where(
      and(sql`lower(${dataViews.domain}) = lower(${domain})`, sql`lower(${dataViews.name}) = lower(${name})`),
    )) as DataViewRow[];
  return rows[0] && toDataView(rows[0]);
}

/** True when another view already uses this domain and name (any case). */
export async function domainNameTaken(
  db: Database,
  domain: string,
  name: string,
  exceptId?: number,
): Promise<boolean> {
  const same = and(
    sql`lower(${dataViews.domain}) = lower(${domain})`,
    sql`lower(${dataViews.name}) = lower(${name})`,
  );
  const rows = await db.orm
    .select({ id: dataViews.id })
    .from(dataViews)
    .where(exceptId === undefined ? same : and(same, ne(dataViews.id, exceptId)));
  return rows.length > 0;
}

export async function insertView(
  db: Database,
  values: typeof dataViews.$inferInsert,
): Promise<DataViewRecord> {
  const [row] = (await db.orm.insert(dataViews).values(values).returning()) as DataViewRow[];
  return toDataView(row);
}

export async function updateView(db: Database, id: number, patch: DataViewPatch): Promise<DataViewRecord> {
  const [row] = (await db.orm
    .update(dataViews)
    .set(patch)
    .where(eq(dataViews.id, id))
    .returning()) as DataViewRow[];
  return toDataView(row);
}

/** Deletes the row; assignments, comments and jobs go with it (ON DELETE CASCADE). */
export async function deleteView(db: Database, id: number): Promise<void> {
  await db.orm.delete(dataViews).where(eq(dataViews.id, id));
}

/** Views matching the query and state, limited to `visibleIds` when given, ordered by domain and name. */
export async function listViews(
  db: Database,
  query: DataViewListQuery & { deployed?: boolean; enabled?: boolean },
  visibleIds: readonly number[] | undefined,
): Promise<DataViewRecord[]> {
  if (visibleIds && visibleIds.length === 0) return [];
  const conds: SQL[] = [];
  if (visibleIds) conds.push(inArray(dataViews.id, [...visibleIds]));
  if (query.deployed !== undefined) conds.push(eq(dataViews.deployed, query.deployed));
  if (query.enabled !== undefined) conds.push(eq(dataViews.enabled, query.enabled));
  // strpos, not LIKE, so that % and _ in the query are plain characters.
  if (query.name) conds.push(sql`strpos(lower(${dataViews.name}), lower(${query.name})) > 0`);
  if (query.domain) conds.push(sql`lower(${dataViews.domain}) = lower(${query.domain})`);
  if (query.tag) {
    conds.push(
      sql`EXISTS (SELECT 1 FROM unnest(${dataViews.tags}) AS t(tag) WHERE lower(t.tag) = lower(${query.tag}))`,
    );
  }
  return (
    (await db.orm
      .select()
      .from(dataViews)
      .where(conds.length ? and(...conds) : undefined)
      .orderBy(
        sql`lower(${dataViews.domain})`,
        sql`lower(${dataViews.name})`,
        asc(dataViews.id),
      )) as DataViewRow[]
  ).map(toDataView);
}

/** Every data view, whatever its state: what the licence counts. */
export async function countViews(db: Database): Promise<number> {
  const [row] = await db.orm.select({ n: count() }).from(dataViews);
  return Number(row?.n ?? 0);
}

/** `<domain> / <name>` of the views using the connector (any case): a connector in use cannot be deleted. */
export async function viewsUsingConnector(db: Database, connector: string): Promise<string[]> {
  const rows = await db.orm
    .select({ domain: dataViews.domain, name: dataViews.name })
    .from(dataViews)
    .where(sql`lower(${dataViews.connector}) = lower(${connector})`);
  return rows.map((r) => `${r.domain} / ${r.name}`);
}

/** Serialises creations until the end of the transaction (PGlite and PostgreSQL alike). */
export async function lockViewCreation(db: Database): Promise<void> {
  await db.rows(sql`SELECT pg_advisory_xact_lock(${CREATE_LOCK_KEY})`);
}
