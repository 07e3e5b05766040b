/**
 * Which data views a caller may read, decided here and nowhere else: the readers below return
 * typed views, and `readableBy` is the SQL scope every other module puts on its own rows (jobs,
 * comments, feedback, …). Admins read every view, a data user the views assigned to them; a view
 * the caller may not read is answered as not found, never as forbidden. Internal work (workers,
 * schedules) reads as `systemCaller()`. test/unit/architecture checks that use cases go through here.
 */
import { type Column, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import type { Caller } from '../identity/caller';
import { NotFoundError } from '../shared/errors';
import { findView, findViewByDomainName, listViews } from './repository';
import type { DataViewListQuery } from './types';
import { assertDeployed, type DataViewRecord } from './views';

/** True when the caller may read the data view: the one visibility rule of the service. */
export function canRead(caller: Caller, dataViewId: number): boolean {
  return caller.dataViews === 'all' || caller.dataViews.has(dataViewId);
}

/** 404 (`what` names the thing asked for) unless the caller may read the data view. */
export function assertReadable(caller: Caller, dataViewId: number, what = 'Data view'): void {
  if (!canRead(caller, dataViewId)) throw new NotFoundError(`${what} ${dataViewId} was not found.`);
}

/** True when the caller reads every view (admins): nothing to narrow. */
export function readsEveryView(caller: Caller): boolean {
  return caller.dataViews === 'all';
}

/** True when the caller may read every view of `ids` (a summary built from them, say); false without ids. */
export function canReadAll(caller: Caller, ids: readonly number[] | undefined): boolean {
  return ids?.every((id) => canRead(caller, id)) ?? false;
}

/** The same string for two callers exactly when they may read the same views. */
export function readableKey(caller: Caller): string {
  return caller.dataViews === 'all' ? 'all' : [...caller.dataViews].sort((a, b) => a - b).join(',');
}

/** The ids the caller may read; undefined means every view (admins). */
function readableIds(caller: Caller): number[] | undefined {
  return caller.dataViews === 'all' ? undefined : [...caller.dataViews];
}

/**
 * The SQL scope "rows of views this caller may read" over `column` (a data view id column, a
 * drizzle column or a raw SQL reference): TRUE for admins, FALSE when nothing is assigned.
 */
export function readableBy(caller: Caller, column: Column | SQL): SQL {
  const ids = readableIds(caller);
  if (!ids) return sql`TRUE`;
  if (ids.length === 0) return sql`FALSE`;
  return sql`${column} IN (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;
}

/** SQL for the `<domain> / <name>` title of the view whose id is in `column` (rows that name a view). */
export function viewTitleOf(column: Column | SQL): SQL<string> {
  return sql<string>`(SELECT v.domain || ' / ' || v.name FROM data_views v WHERE v.id = ${column})`;
}

/** The view, or 404 when it does not exist or the caller may not read it; `forUpdate` locks its row. */
export async function readView(
  caller: Caller,
  db: Database,
  id: number,
  opts: { forUpdate?: boolean } = {},
): Promise<DataViewRecord> {
  assertReadable(caller, id);
  const view = await findView(db, id, opts.forUpdate);
  if (!view) throw new NotFoundError(`Data view ${id} was not found.`);
  return view;
}

/** The view addressed as `{domain}/{name}` (any case), or 404 as readView. */
export async function readViewByName(
  caller: Caller,
  db: Database,
  domain: string,
  name: string,
): Promise<DataViewRecord> {
  const view = await findViewByDomainName(db, domain, name);
  if (!view || !canRead(caller, view.id))
    throw new NotFoundError(`Data view ${domain}/${name} was not found.`);
  return view;
}

/** readView, then 409 unless it is deployed (`rest` ends the message, see assertDeployed). */
export async function readDeployedView(
  caller: Caller,
  db: Database,
  id: number,
  rest?: string,
): Promise<DataViewRecord> {
  const view = await readView(caller, db, id);
  assertDeployed(view, rest);
  return view;
}

/**
 * The views the caller may read, ordered by domain and name: all of them, or those of `ids`
 * (unknown and unreadable ids left out), narrowed by the list query and state.
 */
export async function readViews(
  caller: Caller,
  db: Database,
  filter: DataViewListQuery & { ids?: readonly number[]; deployed?: boolean; enabled?: boolean } = {},
): Promise<DataViewRecord[]> {
  const visible = readableIds(caller);
  const ids = filter.ids ? filter.ids.filter((id) => canRead(caller, id)) : visible;
  return listViews(db, filter, ids);
}
