/** Filter use cases: list, read, create, update, delete and pin (sharing is in sharing.ts). Only the owner saves and deletes. */
import { readsEveryView } from '../dataviews/scope';
import type { Database } from '../db/database';
import { type Caller, requireRead } from '../identity/caller';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors';
import { validate } from '../shared/validation';
import { readableViews, resolveViews } from './data-views';
import { parseDataViews, parseFilterSettings, writableFilterFields } from './parse';
import {
  deleteFilterRow,
  type FilterRow,
  findVisibleFilter,
  countSummarizedFilters,
  insertFilter,
  listPinnedFilters,
  listVisibleFilters,
  setPin,
  updateFilterSettings,
} from './repository';
import { summaryForReader } from './summary-store';
import type { FilterDefinition } from './types';

/** A filter as GET returns it: the writable fields plus the read-only ones (docs/filters.md, "API"). */
export type FilterRecord = FilterDefinition & {
  id: number;
  ownerId: number;
  ownerEmail: string;
  pinned: boolean;
  isOwner: boolean;
  sharedWith: number[];
  summary: { text: string; generatedAt: string | null } | null;
};

export interface LittleFilter {
  id: number;
  name: string;
  description: string;
}

/** The record one caller sees: `pinned` and `isOwner` are the caller's own. */
export function toFilterRecord(row: FilterRow, caller: Caller): FilterRecord {
  return {
    ...(row.settings as unknown as FilterDefinition),
    name: row.name,
    id: row.id,
    ownerId: row.ownerId,
    ownerEmail: row.ownerEmail,
    pinned: row.pinned,
    isOwner: row.ownerId === caller.userId,
    sharedWith: row.sharedWith,
    summary: row.summaryText === null ? null : { text: row.summaryText, generatedAt: row.summaryGeneratedAt },
  };
}

/** The filter if the caller owns it or was given it; anything else is not found. */
export async function loadVisibleFilter(db: Database, caller: Caller, id: number): Promise<FilterRow> {
  const row = await findVisibleFilter(db, caller.userId, id);
  if (!row) throw new NotFoundError(`Filter ${id} was not found.`);
  return row;
}

/** Recipients may run a changed copy (POST /anomalies/query) but never save, delete or share it. */
export function requireOwner(row: FilterRow, caller: Caller, action: string): void {
  if (row.ownerId !== caller.userId) {
    throw new ForbiddenError(`Only the owner of filter ${row.id} can ${action} it.`);
  }
}

/** Schema, `;` strings and data views (which must exist and be visible to the saving owner); returns what is stored. */
async function checkedSettings(db: Database, caller: Caller, body: unknown): Promise<FilterDefinition> {
  const definition = validate<FilterDefinition & { id?: number }>('filter', body);
  const settings = parseFilterSettings(definition);
  resolveViews(await readableViews(db, caller), settings.dataViews, true);
  return writableFilterFields(definition) as FilterDefinition;
}

/**
 * The records of filters as `caller` may see them: on a filter shared with them, only the data views they can
 * read (`hiddenDataViews` counts the others) and a summary only when built from views they can read.
 */
async function recordsFor(db: Database, caller: Caller, rows: FilterRow[]): Promise<FilterRecord[]> {
  if (readsEveryView(caller)) return rows.map((r) => toFilterRecord(r, caller));
  const views = await readableViews(db, caller);
  const readable = new Map(views.map((v) => [`${v.domain}/${v.name}`.toLowerCase(), v.categories]));
  return Promise.all(
    rows.map(async (r) => {
      const record = toFilterRecord(r, caller);
      // The owner's own summary too: built from views that may have been unassigned from them since.
      if (r.ownerId !== caller.userId || record.summary) {
        const summary = await summaryForReader(db, caller, r.id);
        record.summary =
          summary.text === null ? null : { text: summary.text, generatedAt: summary.generatedAt };
      }
      if (r.ownerId === caller.userId) return record;
      if (record.dataViews) {
        const entries = record.dataViews
          .split(';')
          .map((e) => e.trim())
          .filter(Boolean);
        const keptRefs: string[] = [];
        const kept = entries.filter((e) => {
          try {
            const refs = parseDataViews(e).map((ref) => `${ref.domain}/${ref.name}`.toLowerCase());
            if (!refs.every((k) => readable.has(k))) return false;
            keptRefs.push(...refs);
            return true;
          } catch {
            return false;
          }
        });
        if (kept.length < entries.length) {
          record.dataViews = kept.join('; ');
          (record as FilterRecord & { hiddenDataViews?: number }).hiddenDataViews =
            entries.length - kept.length;
          // The owner's category settings name categories (and values) of the hidden views too: the
          // recipient sees only those about categories of a view they can read.
          const known = new Set(keptRefs.flatMap((k) => readable.get(k) ?? []));
          record.categoriesFilter = keepCategoryEntries(record.categoriesFilter, known);
          record.graphWeights = keepCategoryEntries(record.graphWeights, known);
        }
      }
      return record;
    }),
  );
}

/** The `Category=…` entries of a `;` list whose category is in `known` (the others left out). */
function keepCategoryEntries(text: string, known: ReadonlySet<string>): string {
  if (!text) return text;
  return text
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e && known.has(e.slice(0, e.indexOf('=') < 0 ? e.length : e.indexOf('=')).trim()))
    .join('; ');
}

export async function listFilters(db: Database, caller: Caller): Promise<FilterRecord[]> {
  requireRead(caller);
  return recordsFor(db, caller, await listVisibleFilters(db, caller.userId));
}

/** GET /little: id, name and the comment as description. */
export async function listLittleFilters(db: Database, caller: Caller): Promise<LittleFilter[]> {
  requireRead(caller);
  return (await listVisibleFilters(db, caller.userId)).map((r) => ({
    id: r.id,
    name: r.name,
    description: typeof r.settings.comment === 'string' ? r.settings.comment : '',
  }));
}

export async function listPinned(db: Database, caller: Caller): Promise<FilterRecord[]> {
  requireRead(caller);
  return recordsFor(db, caller, await listPinnedFilters(db, caller.userId));
}

export async function getFilter(db: Database, caller: Caller, id: number): Promise<FilterRecord> {
  requireRead(caller);
  return (await recordsFor(db, caller, [await loadVisibleFilter(db, caller, id)]))[0];
}

/** Summarised filters one user may own: each is refreshed by a language model after every detection. */
export const MAX_SUMMARIZED_FILTERS_PER_USER = 20;

async function checkSummaryLimit(db: Database, caller: Caller, definition: FilterDefinition, id?: number) {
  if (!definition.isSummarized) return;
  if ((await countSummarizedFilters(db, caller.userId, id)) >= MAX_SUMMARIZED_FILTERS_PER_USER)
    throw new ConflictError(
      `Limit reached: at most ${MAX_SUMMARIZED_FILTERS_PER_USER} summarised filters per user (isSummarized).`,
    );
}

/** POST /: the caller becomes the owner. */
export async function createFilter(db: Database, caller: Caller, body: unknown): Promise<FilterRecord> {
  requireRead(caller);
  const definition = await checkedSettings(db, caller, body);
  await checkSummaryLimit(db, caller, definition);
  const id = await insertFilter(
    db,
    caller.userId,
    definition.name,
    definition as unknown as Record<string, unknown>,
  );
  return getFilter(db, caller, id);
}

/** PUT / with the id in the body: replaces every writable field; owner only. */
export async function updateFilter(db: Database, caller: Caller, body: unknown): Promise<FilterRecord> {
  requireRead(caller);
  const id = (body as { id?: unknown } | null)?.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
    throw ValidationError.field('id', 'is required: PUT /anomaly-filters takes the filter id in the body');
  }
  return db.tx(async (tx) => {
    requireOwner(await loadVisibleFilter(tx, caller, id), caller, 'change');
    const definition = await checkedSettings(tx, caller, body);
    await checkSummaryLimit(tx, caller, definition, id);
    await updateFilterSettings(tx, id, definition.name, definition as unknown as Record<string, unknown>);
    return getFilter(tx, caller, id);
  });
}

/** DELETE /{id}: gone for everyone, with its shares and pins; owner only. */
export async function deleteFilter(db: Database, caller: Caller, id: number): Promise<void> {
  requireRead(caller);
  await db.tx(async (tx) => {
    requireOwner(await loadVisibleFilter(tx, caller, id), caller, 'delete');
    await deleteFilterRow(tx, id);
  });
}

/** PUT /{id}/pin: pins are per user; anyone who sees the filter may pin it. */
export async function pinFilter(
  db: Database,
  caller: Caller,
  id: number,
  pinned: boolean,
): Promise<FilterRecord> {
  requireRead(caller);
  await loadVisibleFilter(db, caller, id);
  await setPin(db, id, caller.userId, pinned);
  return getFilter(db, caller, id);
}
