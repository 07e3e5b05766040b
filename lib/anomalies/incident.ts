/**
 * GET /dataviews/{id}/incidents/{incidentId}: one incident as a filter with `incidents` shows it (its row,
 * named by its root cause, with `incident` and every member record, their comments and feedback), the
 * place a summary's citation `[incident N]` and an incident row link to. It runs the filter path itself
 * over the incident's days and view, so the row is the one a filter answers.
 */
import { sql } from 'drizzle-orm';
import { ident } from '../dataset/ddl';
import { readView } from '../dataviews/scope';
import type { AnomalyRecord } from '../filters/types';
import { type Caller, requireRead } from '../identity/caller';
import { readIncidents } from '../incidents/read';
import { NotFoundError } from '../shared/errors';
import { type AnomalyDeps, runFilterDefinition } from './run';

/** The incident's row with its members (docs/incidents.md, "Reading them"). */
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
  const [{ t }] = await deps.db.rows<{ t: boolean }>(
    sql`SELECT to_regclass(${`${ident(view.schema)}.incidents`}) IS NOT NULL AS t`,
  );
  if (!t) throw missing();
  const [incident] = await readIncidents(deps.db, { id: view.id, schema: view.schema }, [incidentId]);
  if (!incident) throw missing();
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
  const row = run.anomalies.find((a) => a.incidentId === incidentId && a.incident);
  // The incident outlived its records (a re-run since): it is gone.
  if (!row) throw missing();
  return row;
}
