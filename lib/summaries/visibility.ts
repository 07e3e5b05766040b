/**
 * Which summary of a filter a reader may see. A summary records the data views it was built from
 * (`meta.dataViewIds`); a reader sees it only when they can read every one of them. The owner's summary is
 * stored on the filter; a recipient's own refresh (or a regeneration for their visibility) is stored apart,
 * per recipient, so it never changes what the owner and the others see. Nothing readable: withheld, with a note.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import type { Caller } from '../identity/caller';

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

export function readableBy(caller: Caller, ids: number[] | undefined): boolean {
  if (!ids) return false;
  return caller.dataViews === 'all' || ids.every((id) => (caller.dataViews as Set<number>).has(id));
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
  if (Number(owner.owner_id) === caller.userId) return ownerView;
  const [own] = await db.rows<Row>(sql`
    SELECT summary_text AS text, summary_generated_at AS generated_at, summary_meta AS meta, summary_error AS error
    FROM filter_recipient_summaries WHERE filter_id = ${filterId} AND user_id = ${caller.userId}`);
  const ownView = own
    ? { text: own.text, generatedAt: iso(own.generated_at), meta: json(own.meta), lastError: own.error }
    : undefined;
  const candidates = [ownerView, ownView].filter(
    (c): c is ReaderSummary => !!c && c.text !== null && readableBy(caller, builtFrom(c.meta)),
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
