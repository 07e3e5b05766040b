/** The anomalies API: run a saved filter (by-filter) or unsaved filter settings (query, the preview of a local change). */
import { type Caller, requireRead } from '../identity/caller';
import { loadVisibleFilter } from '../filters/service';
import type { FilterDefinition } from '../filters/types';
import { ValidationError } from '../shared/errors';
import { validate } from '../shared/validation';
import { type AnomalyDeps, type FilterAnswer, type RunOptions, runFilterDefinition } from './run';

/** A boolean of a query string: true | 1 | false | 0 (absent: undefined); anything else is a 400 naming it. */
function boolParam(query: Record<string, string | undefined> | undefined, name: string): boolean | undefined {
  const v = query?.[name];
  if (v === undefined || v === '') return undefined;
  if (v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw ValidationError.field(name, `must be true or false, got '${v}'`);
}

/**
 * The run options of a query string: `members` (absent = false) and `showDismissed` (absent: the filter's
 * hideDismissed decides); anything else than true/false/1/0 is a 400 naming the parameter.
 */
export function membersParam(query: Record<string, string | undefined> | undefined): RunOptions {
  const members = boolParam(query, 'members') ?? false;
  const showDismissed = boolParam(query, 'showDismissed');
  return showDismissed === undefined ? { members } : { members, showDismissed };
}

/** GET /anomalies/by-filter/{id}: owner or recipient; data views the caller cannot see are skipped with a warning. */
export async function anomaliesByFilter(
  deps: AnomalyDeps,
  caller: Caller,
  id: number,
  options: RunOptions = {},
): Promise<FilterAnswer> {
  requireRead(caller);
  const row = await loadVisibleFilter(deps.db, caller, id);
  const answer = await runFilterDefinition(
    deps,
    caller,
    row.settings as Partial<FilterDefinition>,
    false,
    options,
  );
  return { filter: { id: row.id, name: row.name }, ...answer };
}

/**
 * POST /anomalies/query: filter fields that need not be saved (`name` optional); anyone with read access.
 * Unknown or invisible data views are a 400 naming dataViews.
 */
export async function queryAnomalies(
  deps: AnomalyDeps,
  caller: Caller,
  body: unknown,
  options: RunOptions = {},
): Promise<FilterAnswer> {
  requireRead(caller);
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw ValidationError.field('', 'must be a JSON object');
  const definition = validate<FilterDefinition>('filter', { name: 'Preview', ...(body as object) });
  return runFilterDefinition(deps, caller, definition, true, options);
}
