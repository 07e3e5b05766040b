/** Reading a view's stored incidents (lib/incidents/store.ts writes them). */
import { sql } from 'drizzle-orm';
import { ident, intArrayLiteral } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { Incident, IncidentBroad, IncidentCause } from './types';

interface Row {
  id: number;
  result: 'Positive' | 'Negative';
  measures: string[];
  types: string[];
  start_date: string;
  end_date: string;
  size: number;
  broad: IncidentBroad;
  root_causes: IncidentCause[];
  head_series_id: number;
  head_measure: string;
  head_type: string;
  head_start: string;
  first_seen_at: string | Date;
  first_seen_job: number | null;
}

const SELECT = `SELECT id, result, measures, types, to_char(start_date, 'YYYY-MM-DD') AS start_date,
  to_char(end_date, 'YYYY-MM-DD') AS end_date, size, broad, root_causes, head_series_id, head_measure, head_type,
  to_char(head_start, 'YYYY-MM-DD') AS head_start, first_seen_at, first_seen_job`;

function toIncident(dataViewId: number, r: Row): Incident {
  return {
    id: Number(r.id),
    dataViewId,
    result: r.result,
    measures: r.measures,
    types: r.types,
    startDate: r.start_date,
    endDate: r.end_date,
    size: Number(r.size),
    broad: r.broad,
    rootCauses: r.root_causes,
    head: {
      seriesId: Number(r.head_series_id),
      measure: r.head_measure,
      type: r.head_type,
      startDate: r.head_start,
    },
    firstSeenAt: new Date(r.first_seen_at).toISOString(),
    firstSeenJobId: r.first_seen_job === null ? null : Number(r.first_seen_job),
  };
}

/** The incidents `ids` of a view (those that exist; none when the view has no incidents table yet). */
export async function readIncidents(
  db: Database,
  view: { id: number; schema: string },
  ids: readonly number[],
): Promise<Incident[]> {
  if (ids.length === 0) return [];
  const rows = await db.rows<Row>(
    sql.raw(
      `${SELECT} FROM ${ident(view.schema)}.incidents WHERE id = ANY('${intArrayLiteral(ids)}'::int[])`,
    ),
  );
  return rows.map((r) => toIncident(view.id, r));
}

/** The incidents of a view first seen by the process job `jobId`. */
export async function incidentsFirstSeenBy(
  db: Database,
  view: { id: number; schema: string },
  jobId: number,
): Promise<Incident[]> {
  const rows = await db.rows<Row>(
    sql.raw(
      `${SELECT} FROM ${ident(view.schema)}.incidents WHERE first_seen_job = ${Math.trunc(jobId)} ORDER BY id`,
    ),
  );
  return rows.map((r) => toIncident(view.id, r));
}
