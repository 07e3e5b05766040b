/**
 * A new data view from a query: runs the load query through its connector on a sample of rows, says
 * what each column is, suggests the date, value and count columns, the categories and their parent
 * links, counts the series the cube would have, and drafts the definition (compact form) for the
 * admin's choices. Nothing is stored: the draft goes to the editor, which saves it as any definition.
 */
import type { OpenNamedSource } from '../connectors/source-port';
import { type Caller, requireAdmin } from '../identity/caller';
import { UpstreamError, ValidationError } from '../shared/errors';
import { draftDefinition } from './draft-definition';
import { type ColumnProfile, profileColumns, type ShapeSuggestion, suggestShape } from './query-profile';
import { countSeries, suggestParents } from './query-hierarchy';
import { DAY_FORMS, toDay } from './rows';
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
  /** What ended an incomplete sample: SAMPLE_ROWS rows or SAMPLE_BYTES bytes; null when complete. */
  stoppedBy: 'rows' | 'bytes' | null;
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
/** At most about this many bytes of rows are kept (text by its length, other values 8 bytes each). */
export const SAMPLE_BYTES = 16 * 1024 * 1024;
/** Rows per round trip of the sample's cursor: what the byte bound can overshoot by. */
const SAMPLE_BATCH = 1000;

/** What a draft needs: where it opens the source, and the request's deadline (aborts the sample's query). */
export interface DraftDeps {
  openSource: OpenNamedSource;
  signal?: AbortSignal;
  /** Overrides SAMPLE_BYTES (tests). */
  sampleBytes?: number;
}

/** About the bytes a row holds: each value's text by its length, binary by its size, others 8. */
function rowBytes(row: Record<string, unknown>): number {
  let n = 0;
  for (const k in row) {
    const v = row[k];
    n += k.length + 8;
    if (typeof v === 'string') n += v.length;
    else if (v instanceof Uint8Array) n += v.byteLength;
  }
  return n;
}

function jsonSafe(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row))
    out[k] = typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.toISOString() : v;
  return out;
}

interface Sample {
  rows: Record<string, unknown>[];
  stoppedBy: 'rows' | 'bytes' | null;
}

/**
 * The first rows of the query, read by a cursor (never the bulk path), at most SAMPLE_ROWS rows and about
 * `maxBytes` bytes; leaving early cancels the rest of the query, and so does the request's deadline.
 */
async function sample(deps: DraftDeps, connector: string, query: string): Promise<Sample> {
  const source = await deps.openSource(connector);
  const rows: Record<string, unknown>[] = [];
  const maxBytes = deps.sampleBytes ?? SAMPLE_BYTES;
  let bytes = 0;
  let stoppedBy: Sample['stoppedBy'] = null;
  try {
    const opts = { batchSize: SAMPLE_BATCH, signal: deps.signal, bulk: false };
    for await (const batch of source.stream(query, opts)) {
      for (const row of batch) {
        if (rows.length >= SAMPLE_ROWS) stoppedBy = 'rows';
        else if (bytes >= maxBytes) stoppedBy = 'bytes';
        if (stoppedBy) break;
        rows.push(row);
        bytes += rowBytes(row);
      }
      if (stoppedBy) break;
    }
  } catch (e) {
    if (deps.signal?.aborted)
      throw new UpstreamError(
        'the query did not finish within the time of this request: it was cancelled. Narrow it (fewer rows, a WHERE on recent days) to draft from it; the load has its own, longer bound',
      );
    throw e;
  } finally {
    await source.close().catch(() => {});
  }
  return { rows, stoppedBy };
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
  if (!kinds.includes(p.kind))
    throw ValidationError.field(field, `column ${name} ${what}${p.note ? `: ${p.note}` : ''}`);
  return name;
}

export async function draftFromQuery(
  deps: DraftDeps,
  caller: Caller,
  input: DraftFromQueryInput,
): Promise<DraftFromQuery> {
  requireAdmin(caller);
  const { rows, stoppedBy } = await sample(deps, input.connector, input.query);
  if (rows.length === 0)
    throw ValidationError.field('query', 'the query returned no rows: a draft needs rows to look at');
  const columns = Object.keys(rows[0]);
  const profiles = profileColumns(columns, rows);
  const suggestion = suggestShape(profiles, rows.length);

  const dateColumn = input.dateColumn
    ? chosen(
        profiles,
        'dateColumn',
        input.dateColumn,
        ['day', 'date'],
        `is not a date on every row (${DAY_FORMS})`,
      )
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
  if (!dateColumn) missing.push(`a date column (${DAY_FORMS})`);
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
    complete: stoppedBy === null,
    stoppedBy,
    days,
    suggestion,
    categories,
    seriesCount: countSeries(rows, categories),
    definition,
    missing,
  };
}
