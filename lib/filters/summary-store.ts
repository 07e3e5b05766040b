/**
 * The summaries stored with filters (the owner's on the filter row, each recipient's apart) and which of
 * them a reader may see; lib/summaries builds them and reads and writes them through here only.
 * Which summary of a filter a reader may see. A summary records the data views it was built from
 * (`meta.dataViewIds`); a reader sees it only when they can read every one of them. The owner's summary is
 * stored on the filter; a recipient's own refresh (or a regeneration for their visibility) is stored apart,
 * per recipient, so it never changes what the owner and the others see. Nothing readable: withheld, with a note.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { filters } from '../db/tables/filters';
import { canReadAll, readsEveryView } from '../dataviews/scope';
import type { Caller } from '../identity/caller';
import type { FilterDefinition } from './types';

export interface ReaderSummary {
  text: string | null;
  generatedAt: string | null;
  meta: Record<string, unknown> | null;
  lastError: string | null;
  /** Set when a summary exists but covers data views the reader cannot read. */
  withheld?: string;
}

export const WITHHELD_NOTE =
  'The summary of this filter covers data views you cannot read, so it is not shown; refresh it to build one from the data views you can read.';

/** The data views a stored summary was built from; undefined for summaries older than this record. */
export function builtFrom(meta: unknown): number[] | undefined {
  const ids = (meta as { dataViewIds?: unknown } | null)?.dataViewIds;
  return Array.isArray(ids) && ids.every((i) => typeof i === 'number') ? (ids as number[]) : undefined;
}

interface Row {
  text: string | null;
  generated_at: string | Date | null;
  meta: Record<string, unknown> | string | null;
  error: string | null;
}

const iso = (d: string | Date | null) => (d === null ? null : new Date(d).toISOString());
const json = (m: Row['meta']) => (typeof m === 'string' ? (JSON.parse(m) as Record<string, unknown>) : m);

/** The summary `caller` sees on filter `filterId` (which they own or were given). */
export async function summaryForReader(
  db: Database,
  caller: Caller,
  filterId: number,
): Promise<ReaderSummary> {
  const [owner] = await db.rows<Row & { owner_id: number }>(sql`
    SELECT owner_id, summary_text AS text, summary_generated_at AS generated_at, summary_meta AS meta, summary_error AS error
    FROM filters WHERE id = ${filterId}`);
  if (!owner) return { text: null, generatedAt: null, meta: null, lastError: null };
  const ownerView = {
    text: owner.text,
    generatedAt: iso(owner.generated_at),
    meta: json(owner.meta),
    lastError: owner.error,
  };
  if (Number(owner.owner_id) === caller.userId) {
    // The owner too may have lost views since the summary was built: the same check as for recipients.
    const readable = readsEveryView(caller) || canReadAll(caller, builtFrom(ownerView.meta));
    if (ownerView.text === null || readable) return ownerView;
    return { text: null, generatedAt: null, meta: null, lastError: owner.error, withheld: WITHHELD_NOTE };
  }
  const [own] = await db.rows<Row>(sql`
    SELECT summary_text AS text, summary_generated_at AS generated_at, summary_meta AS meta, summary_error AS error
    FROM filter_recipient_summaries WHERE filter_id = ${filterId} AND user_id = ${caller.userId}`);
  const ownView = own
    ? { text: own.text, generatedAt: iso(own.generated_at), meta: json(own.meta), lastError: own.error }
    : undefined;
  const candidates = [ownerView, ownView].filter(
    (c): c is ReaderSummary => !!c && c.text !== null && canReadAll(caller, builtFrom(c.meta)),
  );
  candidates.sort((a, b) => (b.generatedAt ?? '').localeCompare(a.generatedAt ?? ''));
  const best = candidates[0];
  if (best) return { ...best, lastError: ownView?.lastError ?? null };
  return {
    text: null,
    generatedAt: null,
    meta: null,
    lastError: ownView?.lastError ?? null,
    ...(ownerView.text !== null || ownView?.text ? { withheld: WITHHELD_NOTE } : {}),
  };
}

/** Stores a recipient's summary (or its failure) apart from the owner's. */
export async function storeRecipientSummary(
  db: Database,
  filterId: number,
  userId: number,
  value: { text: string; generatedAt: Date; meta: Record<string, unknown> } | { error: string },
): Promise<void> {
  if ('error' in value) {
    await db.rows(sql`
      INSERT INTO filter_recipient_summaries (filter_id, user_id, summary_error) VALUES (${filterId}, ${userId}, ${value.error})
      ON CONFLICT (filter_id, user_id) DO UPDATE SET summary_error = EXCLUDED.summary_error`);
    return;
  }
  await db.rows(sql`
    INSERT INTO filter_recipient_summaries (filter_id, user_id, summary_text, summary_generated_at, summary_meta, summary_error)
    VALUES (${filterId}, ${userId}, ${value.text}, ${value.generatedAt.toISOString()}::timestamptz, ${JSON.stringify(value.meta)}::jsonb, NULL)
    ON CONFLICT (filter_id, user_id) DO UPDATE SET summary_text = EXCLUDED.summary_text,
      summary_generated_at = EXCLUDED.summary_generated_at, summary_meta = EXCLUDED.summary_meta, summary_error = NULL`);
}

/** Stores the owner's summary on the filter, or only its failure (the previous text stays). */
export async function storeOwnerSummary(
  db: Database,
  filterId: number,
  value: { text: string; generatedAt: Date; meta: Record<string, unknown> } | { error: string },
): Promise<void> {
  const set =
    'error' in value
      ? { summaryError: value.error }
      : {
          summaryText: value.text,
          summaryGeneratedAt: value.generatedAt,
          summaryError: null,
          summaryMeta: value.meta,
        };
  await db.orm.update(filters).set(set).where(eq(filters.id, filterId));
}

/** The metadata of the owner's summary (what it was built from), or null. */
export async function ownerSummaryMeta(db: Database, filterId: number): Promise<unknown> {
  const [owner] = await db.rows<{ meta: Record<string, unknown> | string | null }>(
    sql`SELECT summary_meta AS meta FROM filters WHERE id = ${filterId}`,
  );
  return json(owner?.meta ?? null);
}

/** The stored summary of one recipient, when it has a text. */
export async function recipientSummary(
  db: Database,
  filterId: number,
  userId: number,
): Promise<{ text: string; generatedAt: Date; meta: Record<string, unknown> } | undefined> {
  const [copy] = await db.rows<Row>(sql`
    SELECT summary_text AS text, summary_generated_at AS generated_at, summary_meta AS meta, summary_error AS error
    FROM filter_recipient_summaries WHERE filter_id = ${filterId} AND user_id = ${userId}`);
  if (!copy?.text || !copy.generated_at) return undefined;
  return {
    text: copy.text,
    generatedAt: new Date(copy.generated_at),
    meta: json(copy.meta) as Record<string, unknown>,
  };
}

/** The users a filter is shared with, ascending. */
export async function filterRecipients(db: Database, filterId: number): Promise<number[]> {
  const rows = await db.rows<{ user_id: number }>(
    sql`SELECT user_id FROM filter_shares WHERE filter_id = ${filterId} ORDER BY user_id`,
  );
  return rows.map((r) => Number(r.user_id));
}

/** Every filter whose summary is kept up to date (isSummarized), with its owner and settings, by id. */
export async function summarisedFilters(
  db: Database,
): Promise<Array<{ id: number; ownerId: number; settings: FilterDefinition }>> {
  const rows = await db.rows<{ id: number; owner_id: number; settings: Record<string, unknown> | string }>(
    sql`SELECT id, owner_id, settings FROM filters WHERE (settings->>'isSummarized')::boolean IS TRUE ORDER BY id`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    ownerId: Number(r.owner_id),
    settings: (typeof r.settings === 'string' ? JSON.parse(r.settings) : r.settings) as FilterDefinition,
  }));
}
