/**
 * A new data view from a query: runs the load query through its connector on a sample of rows, says
 * what each column is, suggests the date, value and count columns, the categories and their parent
 * links, counts the series the cube would have, and drafts the definition (compact form) for the
 * admin's choices. Nothing is stored: the draft goes to the editor, which saves it as any definition.
 */
import type { OpenNamedSource } from '../connectors/source-port';
import { type Caller, requireAdmin } from '../identity/caller';
import { ValidationError } from '../shared/errors';
import { draftDefinition } from './draft-definition';
import { type ColumnProfile, profileColumns, type ShapeSuggestion, suggestShape } from './query-profile';
import { countSeries, suggestParents } from './query-hierarchy';
import { toDay } from './rows';
import type { CategoryNode } from './grouping';

export interface DraftFromQueryInput {
  connector: string;
  query: string;
  name?: string;
  domain?: string;
  /** The admin's choices; each left out is suggested from the sample. */
  dateColumn?: string;
  valueColumn?: string;
  countColumn?: string | null;
  categories?: string[];
}

export interface DraftFromQuery {
  columns: ColumnProfile[];
  /** The first 10 rows of the sample. */
  rows: Record<string, unknown>[];
  /** Rows read; `complete` when that was the whole result. */
  sampled: number;
  complete: boolean;
  days: { count: number; first: number | null; last: number | null };
  suggestion: ShapeSuggestion;
  /** The chosen categories, parents first, with the parent links the sample supports. */
  categories: CategoryNode[];
  /** Series of the cube over the sample (a lower bound when the sample is not complete); null: too many to count. */
  seriesCount: number | null;
  /** The draft, or null with what is missing for one. */
  definition: Record<string, unknown> | null;
  missing: string[];
}

/** At most this many rows are read: enough to see the hierarchy and the history, bounded in memory. */
export const SAMPLE_ROWS = 50_000;

function jsonSafe(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row))
    out[k] = typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.toISOString() : v;
  return out;
}

async function sample(
  openSource: OpenNamedSource,
  connector: string,
  query: string,
): Promise<{ rows: Record<string, unknown>[]; complete: boolean }> {
  const source = await openSource(connector);
  const rows: Record<string, unknown>[] = [];
  let complete = true;
  try {
    for await (const batch of source.stream(query, { batchSize: 5000 })) {
      rows.push(...batch.slice(0, SAMPLE_ROWS - rows.length));
      if (rows.length >= SAMPLE_ROWS) {
        complete = false;
        break;
      }
    }
  } finally {
    await source.close().catch(() => {});
  }
  return { rows, complete };
}

/** Checks a chosen column: it exists, and is of a kind the load accepts there. */
function chosen(
  profiles: ColumnProfile[],
  field: string,
  name: string,
  kinds: ColumnProfile['kind'][],
  what: string,
): string {
  const p = profiles.find((c) => c.name === name);
  if (!p) {
    const names = profiles.map((c) => c.name).join(', ');
    throw ValidationError.field(field, `the query has no column ${name} (its columns: ${names})`);
  }
  if (!kinds.includes(p.kind)) throw ValidationError.field(field, `column ${name} ${what}`);
  return name;
}

export async function draftFromQuery(
  deps: { openSource: OpenNamedSource },
  caller: Caller,
  input: DraftFromQueryInput,
): Promise<DraftFromQuery> {
  requireAdmin(caller);
  const { rows, complete } = await sample(deps.openSource, input.connector, input.query);
  if (rows.length === 0)
    throw ValidationError.field('query', 'the query returned no rows: a draft needs rows to look at');
  const columns = Object.keys(rows[0]);
  const profiles = profileColumns(columns, rows);
  const suggestion = suggestShape(profiles, rows.length);

  const dateColumn = input.dateColumn
    ? chosen(profiles, 'dateColumn', input.dateColumn, ['day'], 'is not a day as YYYYMMDD on every row')
    : suggestion.dateColumn;
  const measure = ['number', 'day'] as ColumnProfile['kind'][];
  const valueColumn = input.valueColumn
    ? chosen(profiles, 'valueColumn', input.valueColumn, measure, 'is not numeric on every row')
    : suggestion.valueColumn;
  const countColumn =
    input.countColumn === null
      ? undefined
      : input.countColumn
        ? chosen(profiles, 'countColumn', input.countColumn, measure, 'is not numeric on every row')
        : suggestion.countColumn;
  const measures = new Set([dateColumn, valueColumn, countColumn].filter(Boolean));
  const picked = input.categories ?? suggestion.categories.filter((c) => !measures.has(c));
  picked.forEach((c, i) => {
    chosen(profiles, `categories[${i}]`, c, ['text', 'number', 'day', 'empty'], '');
    if (measures.has(c))
      throw ValidationError.field(`categories[${i}]`, `column ${c} is already the date, value or count`);
  });
  const categories = suggestParents(rows, picked);

  const dayValues = dateColumn
    ? rows.map((r) => toDay(r[dateColumn])).filter((d) => typeof d === 'number')
    : [];
  const distinctDays = [...new Set(dayValues as number[])].sort((a, b) => a - b);
  const days = {
    count: distinctDays.length,
    first: distinctDays[0] ?? null,
    last: distinctDays[distinctDays.length - 1] ?? null,
  };

  const missing: string[] = [];
  if (!dateColumn) missing.push('a date column (integer YYYYMMDD)');
  if (!valueColumn) missing.push('a numeric value column');
  if (categories.length === 0) missing.push('at least one category');
  const definition =
    missing.length === 0
      ? draftDefinition(
          {
            name: input.name?.trim() || 'new_view',
            domain: input.domain?.trim() || 'default',
            connector: input.connector,
            loadQuery: input.query,
            dateColumn: dateColumn!,
            valueColumn: valueColumn!,
            countColumn,
            categories,
          },
          days.count,
        )
      : null;

  return {
    columns: profiles,
    rows: rows.slice(0, 10).map(jsonSafe),
    sampled: rows.length,
    complete,
    days,
    suggestion,
    categories,
    seriesCount: countSeries(rows, categories),
    definition,
    missing,
  };
}
