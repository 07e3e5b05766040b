/**
 * Results at scale: the anomalies of a saved filter one page at a time, sorted by any column, with the total,
 * and the whole result as CSV. The filter's own Top N (its sortBy and limit) is the set that is paged; `sortBy`
 * here orders that set for the table (`rank`, the default, keeps the filter's order).
 *
 *   GET /anomalies/by-filter/{id}?offset=&pageSize=&sortBy=&order=   → {…answer, anomalies: page, page: {…}}
 *   GET /anomalies/by-filter/{id}?format=csv (or Accept: text/csv)    → every record as CSV
 *   GET /anomalies/by-filter/{id}?format=csv&offset=&pageSize=         → one page of it as CSV
 *
 * Without any of these parameters the answer is the plain run, unchanged. A CSV larger than MAX_CSV_BYTES
 * is refused (413) with the hint to export it in pages.
 */
import type { Caller } from '../identity/caller';
import type { AnomalyRecord } from '../filters/types';
import { TooLargeError, ValidationError } from '../shared/errors';
import { recordsToCsv } from './csv';
import type { AnomalyDeps, FilterAnswer } from './run';
import { anomaliesByFilter, membersParam } from './use-cases';
import { ownValue } from '../shared/own';

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 50;
/** The largest CSV answered at once (5 MiB): under the 6 MB a Lambda response can carry, with room for headers. */
export const MAX_CSV_BYTES = 5 * 1024 * 1024;

/** Columns a page can be sorted by: `rank` (the filter's order), record fields, `categories.<name>`. */
export const SORT_COLUMNS = [
  'rank',
  'startDate',
  'endDate',
  'type',
  'dataView',
  'duration',
  'actualValue',
  'predictedValue',
  'change',
  'changePct',
  'changeCum',
  'sharePct',
  'recurrence',
  'result',
  'sin',
  'sim',
  'measure',
  'comments',
] as const;

export interface PageQuery {
  offset: number;
  pageSize: number;
  sortBy: string;
  order: 'asc' | 'desc';
}

export interface PagedAnswer extends FilterAnswer {
  page?: PageQuery & { total: number };
}

function wholeNumber(value: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw ValidationError.field(name, `must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return Number(value);
}

/** The paging parameters of a query string, or null when none is given; a bad one is a 400 naming it. */
export function parsePageQuery(query: Record<string, string | undefined>): PageQuery | null {
  const given = (k: string) => query[k] !== undefined && query[k] !== '';
  if (!['offset', 'pageSize', 'sortBy', 'order'].some(given)) return null;
  const sortBy = given('sortBy') ? (query.sortBy as string) : 'rank';
  if (
    !(SORT_COLUMNS as readonly string[]).includes(sortBy) &&
    !(sortBy.startsWith('categories.') && sortBy.length > 'categories.'.length)
  ) {
    throw ValidationError.field(
      'sortBy',
      `must be one of ${SORT_COLUMNS.join(', ')} or categories.<name>, got '${sortBy}'`,
    );
  }
  const order = given('order') ? (query.order as string) : 'asc';
  if (order !== 'asc' && order !== 'desc')
    throw ValidationError.field('order', `must be asc or desc, got '${order}'`);
  return {
    offset: given('offset') ? wholeNumber(query.offset as string, 'offset', 0, Number.MAX_SAFE_INTEGER) : 0,
    pageSize: given('pageSize')
      ? wholeNumber(query.pageSize as string, 'pageSize', 1, MAX_PAGE_SIZE)
      : DEFAULT_PAGE_SIZE,
    sortBy,
    order,
  };
}

function sortValue(a: AnomalyRecord, column: string): unknown {
  if (column.startsWith('categories.'))
    return ownValue(a.categories, column.slice('categories.'.length)) ?? null;
  if (column === 'comments') return a.comments?.length ?? 0;
  return (a as unknown as Record<string, unknown>)[column] ?? null;
}

/** The records in column order (nulls last either way; ties keep the filter's order). */
export function sortRecords(
  records: readonly AnomalyRecord[],
  sortBy: string,
  order: 'asc' | 'desc',
): AnomalyRecord[] {
  const ranked = records.map((a, i) => ({ a, i }));
  if (sortBy === 'rank') {
    if (order === 'desc') ranked.reverse();
    return ranked.map((x) => x.a);
  }
  const dir = order === 'asc' ? 1 : -1;
  ranked.sort((x, y) => {
    const u = sortValue(x.a, sortBy);
    const v = sortValue(y.a, sortBy);
    const uNull = u === null || (typeof u === 'number' && Number.isNaN(u));
    const vNull = v === null || (typeof v === 'number' && Number.isNaN(v));
    if (uNull || vNull) return uNull && vNull ? x.i - y.i : uNull ? 1 : -1;
    let cmp: number;
    if (typeof u === 'number' && typeof v === 'number') cmp = u - v;
    else cmp = String(u).localeCompare(String(v));
    return cmp !== 0 ? cmp * dir : x.i - y.i;
  });
  return ranked.map((x) => x.a);
}

/** One page of a run's anomalies, with the total and the paging that produced it. */
export function pageOf(answer: FilterAnswer, q: PageQuery): PagedAnswer {
  const sorted = sortRecords(answer.anomalies, q.sortBy, q.order);
  return {
    ...answer,
    anomalies: sorted.slice(q.offset, q.offset + q.pageSize),
    page: { ...q, total: sorted.length },
  };
}

function csvTooLarge(bytes: number, records: number): TooLargeError {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const perPage = Math.max(1, Math.min(MAX_PAGE_SIZE, Math.floor((records * MAX_CSV_BYTES) / bytes / 2)));
  const message = `the CSV of ${records} records would be ${mib(bytes)}, more than the ${mib(MAX_CSV_BYTES)} answered at once: export it in pages with offset= and pageSize= (for example pageSize=${perPage})`;
  return new TooLargeError(`The ${message}.`, [{ path: 'pageSize', message }]);
}

export type ByFilterResult =
  | { kind: 'json'; body: PagedAnswer }
  | { kind: 'csv'; body: string; filename: string };

/** GET /anomalies/by-filter/{id} with its paging, sorting and CSV options. */
export async function anomaliesByFilterPaged(
  deps: AnomalyDeps,
  caller: Caller,
  id: number,
  query: Record<string, string | undefined>,
  accept?: string,
): Promise<ByFilterResult> {
  const format = query.format === undefined || query.format === '' ? undefined : query.format;
  if (format !== undefined && format !== 'json' && format !== 'csv')
    throw ValidationError.field('format', `must be json or csv, got '${format}'`);
  const csv = format === 'csv' || (format === undefined && /\btext\/csv\b/.test(accept ?? ''));
  const paging = parsePageQuery(query);
  const answer = await anomaliesByFilter(deps, caller, id, membersParam(query));
  if (csv) {
    const sorted = paging ? sortRecords(answer.anomalies, paging.sortBy, paging.order) : answer.anomalies;
    // Only an explicit offset or pageSize pages a CSV: an export in the table's order is every record.
    const paged = paging && (query.offset || query.pageSize);
    const records = paged ? sorted.slice(paging.offset, paging.offset + paging.pageSize) : sorted;
    const body = recordsToCsv(records as unknown as Array<Record<string, unknown>>);
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_CSV_BYTES) throw csvTooLarge(bytes, records.length);
    return { kind: 'csv', body, filename: `filter-${id}-anomalies.csv` };
  }
  return { kind: 'json', body: paging ? pageOf(answer, paging) : answer };
}
