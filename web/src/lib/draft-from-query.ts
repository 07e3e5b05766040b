/**
 * The answer of POST /dataviews/draft-from-query as the "New view from a query" page reads it, and the
 * small pure readings of it the page shows: which columns may be the date, value or count, the parent
 * links as chains (city → region → country), the history the sample covers.
 */
import type * as Api from './api-types.gen';

/** The answer (schemas/responses/dataviews.schema.json, `query-draft`). */
export type DraftFromQuery = Api.QueryDraft;
export type ColumnProfile = DraftFromQuery['columns'][number];
export type ColumnKind = ColumnProfile['kind'];
export type CategoryNode = DraftFromQuery['categories'][number];

/** The admin's choices; undefined leaves the column to the service's suggestion, countColumn null: none. */
export interface DraftChoices {
  dateColumn?: string;
  valueColumn?: string;
  countColumn?: string | null;
  categories?: string[];
}

/** The choices a first answer suggests, so the next request keeps them while one is changed. */
export function choicesOf(draft: DraftFromQuery): DraftChoices {
  return {
    dateColumn: draft.suggestion.dateColumn,
    valueColumn: draft.suggestion.valueColumn,
    countColumn: draft.suggestion.countColumn ?? null,
    categories: draft.categories.map((c) => c.name),
  };
}

/** Columns that can be the date (a DATE, TIMESTAMP, ISO text or integer YYYYMMDD day on every row). */
export const dateColumns = (columns: ColumnProfile[]) =>
  columns.filter((c) => c.kind === 'day' || c.kind === 'date').map((c) => c.name);

/** Columns of dates in another form, with how to convert them in the query (the service's note). */
export const dateNotes = (columns: ColumnProfile[]) =>
  columns.filter((c) => c.note).map((c) => ({ name: c.name, note: c.note as string }));

/** Columns that can be the value or the count (numeric on every row; a YYYYMMDD day is numeric too). */
export const measureColumns = (columns: ColumnProfile[]) =>
  columns.filter((c) => c.kind === 'number' || c.kind === 'day').map((c) => c.name);

/** Columns that can be categories: every column not taken as date, value or count. */
export function categoryColumns(columns: ColumnProfile[], choices: DraftChoices): string[] {
  const taken = new Set([choices.dateColumn, choices.valueColumn, choices.countColumn]);
  return columns.filter((c) => !taken.has(c.name)).map((c) => c.name);
}

/**
 * The parent links as chains from each most detailed category up to its top (city → region → country),
 * one per category that is no other's parent and has a parent; categories without links are left out.
 */
export function parentChains(categories: CategoryNode[]): string[][] {
  const parentOf = new Map(categories.filter((c) => c.parent).map((c) => [c.name, c.parent as string]));
  const parents = new Set(parentOf.values());
  const chains: string[][] = [];
  for (const c of categories) {
    if (parents.has(c.name) || !parentOf.has(c.name)) continue;
    const chain = [c.name];
    let p = parentOf.get(c.name);
    while (p && !chain.includes(p)) {
      chain.push(p);
      p = parentOf.get(p);
    }
    chains.push(chain);
  }
  return chains;
}

/** 20240526 as 2024-05-26. */
export function dayText(day: number | null): string {
  if (day === null) return '';
  const s = String(day);
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
}

/** The detector types of a drafted definition, in its order. */
export function draftDetectors(definition: Record<string, unknown> | null): string[] {
  const analysis = definition?.analysis as { detectors?: Array<{ type?: string }> } | undefined;
  return (analysis?.detectors ?? []).map((d) => String(d.type ?? ''));
}
