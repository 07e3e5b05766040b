/** Storage of filters, their shares and per-user pins (tables filters, filter_shares, filter_pins). */
import { and, eq, notInArray, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { filterPins, filterShares, filters } from '../db/tables/filters';
import { userEmailOf } from '../identity/directory';

/** A stored filter as one user sees it. */
export interface FilterRow {
  id: number;
  ownerId: number;
  ownerEmail: string;
  name: string;
  /** The writable fields as saved. */
  settings: Record<string, unknown>;
  summaryText: string | null;
  summaryGeneratedAt: string | null;
  /** Pinned by the user the row was read for. */
  pinned: boolean;
  /** Recipient user ids, ascending. */
  sharedWith: number[];
}

interface RawRow {
  id: number;
  owner_id: number;
  owner_email: string;
  name: string;
  settings: string;
  summary_text: string | null;
  summary_generated_at: string | null;
  pinned: boolean;
  shared_with: string | null;
}

function toRow(r: RawRow): FilterRow {
  return {
    id: Number(r.id),
    ownerId: Number(r.owner_id),
    ownerEmail: r.owner_email,
    name: r.name,
    settings: JSON.parse(r.settings) as Record<string, unknown>,
    summaryText: r.summary_text,
    summaryGeneratedAt: r.summary_generated_at,
    pinned: r.pinned === true || (r.pinned as unknown) === 't',
    sharedWith: r.shared_with ? r.shared_with.split(',').map(Number) : [],
  };
}

/** Filters the user owns or has been given, narrowed by `extra`, ordered by name. */
async function selectVisible(db: Database, userId: number, extra: SQL = sql`TRUE`): Promise<FilterRow[]> {
  const rows = await db.rows<RawRow>(sql`
    SELECT f.id, f.owner_id, ${userEmailOf(sql.raw('f.owner_id'))} AS owner_email, f.name, f.settings::text AS settings, f.summary_text,
           to_char(f.summary_generated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS summary_generated_at,
           EXISTS (SELECT 1 FROM filter_pins p WHERE p.filter_id = f.id AND p.user_id = ${userId}) AS pinned,
           (SELECT string_agg(s.user_id::text, ',' ORDER BY s.user_id) FROM filter_shares s WHERE s.filter_id = f.id)
             AS shared_with
    FROM filters f
    WHERE (f.owner_id = ${userId}
           OR EXISTS (SELECT 1 FROM filter_shares s WHERE s.filter_id = f.id AND s.user_id = ${userId}))
      AND ${extra}
    ORDER BY lower(f.name), f.id`);
  return rows.map(toRow);
}

/** Every filter the user owns or was given. */
export function listVisibleFilters(db: Database, userId: number): Promise<FilterRow[]> {
  return selectVisible(db, userId);
}

/** The filters the user pinned (among those visible to them). */
export function listPinnedFilters(db: Database, userId: number): Promise<FilterRow[]> {
  return selectVisible(
    db,
    userId,
    sql`EXISTS (SELECT 1 FROM filter_pins p WHERE p.filter_id = f.id AND p.user_id = ${userId})`,
  );
}

/** One filter if the user owns it or was given it. */
export async function findVisibleFilter(
  db: Database,
  userId: number,
  id: number,
): Promise<FilterRow | undefined> {
  return (await selectVisible(db, userId, sql`f.id = ${id}`))[0];
}

/** Any filter as its owner sees it, whoever asks (internal work such as summaries); undefined when unknown. */
export async function findFilterById(db: Database, id: number): Promise<FilterRow | undefined> {
  const [row] = await db.orm.select({ ownerId: filters.ownerId }).from(filters).where(eq(filters.id, id));
  return row ? findVisibleFilter(db, row.ownerId, id) : undefined;
}

export async function insertFilter(
  db: Database,
  ownerId: number,
  name: string,
  settings: Record<string, unknown>,
): Promise<number> {
  const [row] = await db.orm
    .insert(filters)
    .values({ ownerId, name, settings })
    .returning({ id: filters.id });
  return row.id;
}

/** How many filters of an owner ask for summaries, leaving out `exceptId` (the one being saved). */
export async function countSummarizedFilters(db: Database, ownerId: number, exceptId = 0): Promise<number> {
  const [row] = await db.rows<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM filters
    WHERE owner_id = ${ownerId} AND id <> ${exceptId} AND settings->>'isSummarized' = 'true'`);
  return Number(row?.n ?? 0);
}

export async function updateFilterSettings(
  db: Database,
  id: number,
  name: string,
  settings: Record<string, unknown>,
): Promise<void> {
  await db.orm.update(filters).set({ name, settings, updatedAt: new Date() }).where(eq(filters.id, id));
}

/** Deletes the filter; shares and pins go with it (ON DELETE CASCADE). */
export async function deleteFilterRow(db: Database, id: number): Promise<void> {
  await db.orm.delete(filters).where(eq(filters.id, id));
}

export async function setPin(db: Database, filterId: number, userId: number, pinned: boolean): Promise<void> {
  if (pinned) {
    await db.rows(
      sql`INSERT INTO filter_pins (filter_id, user_id) VALUES (${filterId}, ${userId}) ON CONFLICT DO NOTHING`,
    );
  } else {
    await db.orm
      .delete(filterPins)
      .where(and(eq(filterPins.filterId, filterId), eq(filterPins.userId, userId)));
  }
}

/** Replaces the recipients; users dropped from the list lose their pin too. Call inside a transaction. */
export async function replaceShares(
  db: Database,
  filterId: number,
  ownerId: number,
  userIds: number[],
): Promise<void> {
  const keep = [...userIds, ownerId];
  await db.orm
    .delete(filterShares)
    .where(
      and(
        eq(filterShares.filterId, filterId),
        userIds.length ? notInArray(filterShares.userId, userIds) : sql`TRUE`,
      ),
    );
  await db.orm
    .delete(filterPins)
    .where(and(eq(filterPins.filterId, filterId), notInArray(filterPins.userId, keep)));
  for (const userId of userIds) {
    await db.rows(
      sql`INSERT INTO filter_shares (filter_id, user_id) VALUES (${filterId}, ${userId}) ON CONFLICT DO NOTHING`,
    );
  }
}

/** A recipient leaves: their share and their pin go, the filter stays. */
export async function removeRecipient(db: Database, filterId: number, userId: number): Promise<void> {
  await db.orm
    .delete(filterShares)
    .where(and(eq(filterShares.filterId, filterId), eq(filterShares.userId, userId)));
  await db.orm
    .delete(filterPins)
    .where(and(eq(filterPins.filterId, filterId), eq(filterPins.userId, userId)));
}

/** The stored settings of a filter, or undefined when it is gone. */
export async function filterSettings(db: Database, id: number): Promise<Record<string, unknown> | undefined> {
  const [f] = await db.rows<{ settings: Record<string, unknown> | string }>(
    sql`SELECT settings FROM filters WHERE id = ${id}`,
  );
  if (!f) return undefined;
  return typeof f.settings === 'string' ? (JSON.parse(f.settings) as Record<string, unknown>) : f.settings;
}

/** SQL for the name of the filter whose id is in `column` (rows that belong to a filter). */
export function filterNameOf(column: SQL): SQL<string> {
  return sql<string>`(SELECT f.name FROM filters f WHERE f.id = ${column})`;
}
