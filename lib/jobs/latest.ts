/**
 * The newest jobs of each kind per data view, in one read of the jobs table: what status and monitoring
 * show per kind (load, custom load, process), with their progress, plus the last finished load and
 * detection whose records carry the counts of the loaded data.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import type { JobKind, JobStatus } from './types';

export interface LatestJobRow {
  id: number;
  dataViewId: number;
  kind: JobKind;
  status: JobStatus;
  trigger: string;
  attempts: number;
  error: string | null;
  detail: Record<string, unknown>;
  requestedBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface LatestJobs {
  /** The newest job of each kind (whatever its status). */
  newest: Partial<Record<JobKind, LatestJobRow>>;
  /** The newest finished job of each kind. */
  finished: Partial<Record<JobKind, LatestJobRow>>;
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

/**
 * Per view: the newest finished, failed and active job of each kind (at most nine rows per view,
 * DISTINCT ON over the jobs table's own rows; no dataset table is read).
 */
export async function latestJobs(db: Database, ids: number[]): Promise<Map<number, LatestJobs>> {
  const out = new Map<number, LatestJobs>();
  if (ids.length === 0) return out;
  const rows = await db.rows<Record<string, unknown>>(sql`
    SELECT DISTINCT ON (data_view_id, kind, status = 'finished', status = 'failed')
      id, data_view_id, kind, status, trigger, attempts, error, detail, requested_by, created_at,
      started_at, finished_at
    FROM jobs
    WHERE data_view_id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})
    ORDER BY data_view_id, kind, status = 'finished', status = 'failed', created_at DESC, id DESC`);
  for (const r of rows) {
    const job: LatestJobRow = {
      id: Number(r.id),
      dataViewId: Number(r.data_view_id),
      kind: r.kind as JobKind,
      status: r.status as JobStatus,
      trigger: String(r.trigger),
      attempts: Number(r.attempts),
      error: (r.error as string | null) ?? null,
      detail: (typeof r.detail === 'string' ? JSON.parse(r.detail) : (r.detail ?? {})) as Record<
        string,
        unknown
      >,
      requestedBy: (r.requested_by as string | null) ?? null,
      createdAt: date(r.created_at)!,
      startedAt: date(r.started_at),
      finishedAt: date(r.finished_at),
    };
    const v = out.get(job.dataViewId) ?? { newest: {}, finished: {} };
    const seen = v.newest[job.kind];
    if (!seen || seen.createdAt < job.createdAt || (+seen.createdAt === +job.createdAt && seen.id < job.id))
      v.newest[job.kind] = job;
    if (job.status === 'finished') v.finished[job.kind] = job;
    out.set(job.dataViewId, v);
  }
  return out;
}

/** The newer of two finished jobs (by finish time): the last load of either load kind. */
export function newerFinished(a?: LatestJobRow, b?: LatestJobRow): LatestJobRow | undefined {
  if (!a) return b;
  if (!b) return a;
  return (a.finishedAt?.getTime() ?? 0) >= (b.finishedAt?.getTime() ?? 0) ? a : b;
}
