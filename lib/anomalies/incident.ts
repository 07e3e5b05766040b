import { readView } from '../dataviews/scope';
import type { AnomalyRecord } from '../filters/types';
import { type Caller, requireRead } from '../identity/caller';
import { hasIncidentsTable, movedTo, readIncidents } from '../incidents';
import { NotFoundError } from '../shared/errors';
import { type AnomalyDeps, runFilterDefinition } from './run';

/**
 * The incident's row with its members (docs/incidents.md, "Reading them"). An id that a regrouping dissolved
 * answers the incident that now holds most of its records, with `movedFrom` ({incidentId, movedTo}: every
 * incident that holds some); an id that never existed, or whose records are gone, is a 404.
 */
export async function incidentDetail(
  deps: AnomalyDeps,
  caller: Caller,
  dataViewId: number,
  incidentId: number,
): Promise<AnomalyRecord> {
  requireRead(caller);
  const view = await readView(caller, deps.db, dataViewId);
  const missing = () => new NotFoundError(`Incident ${incidentId} of data view ${dataViewId} was not found.`);
  if (!view.deployed) throw missing();
  if (!(await hasIncidentsTable(deps.db, view.schema))) throw missing();
  const row = await incidentRow(deps, caller, view, incidentId);
  if (row) return row;
  const to = await movedTo(deps.db, view.schema, incidentId);
  for (const id of to) {
    const moved = await incidentRow(deps, caller, view, id);
    if (moved) return { ...moved, movedFrom: { incidentId, movedTo: to } };
  }
  throw missing();
}

/** The row of one stored incident as a filter with `incidents` shows it, or undefined when it has none. */
async function incidentRow(
  deps: AnomalyDeps,
  caller: Caller,
  view: { id: number; schema: string; title: string },
  incidentId: number,
): Promise<AnomalyRecord | undefined> {
  const [incident] = await readIncidents(deps.db, { id: view.id, schema: view.schema }, [incidentId]);
  if (!incident) return undefined;
  const run = await runFilterDefinition(
    deps,
    caller,
    {
      name: `Incident ${incidentId}`,
      dataViews: view.title,
      timeRange: 'Custom',
      dateFrom: incident.startDate,
      dateTo: incident.endDate,
      measures: 'value;count',
      incidents: true,
      limit: 10_000,
    },
    true,
    { members: true },
  );
  // Undefined when the incident outlived its records (a re-run since).
  return run.anomalies.find((a) => a.incidentId === incidentId && a.incident);
}
