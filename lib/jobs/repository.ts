/** Rows of the jobs table: the only SQL of the jobs module. */
import { and, count, desc, eq, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { type JobKind, type JobStatus, jobs } from '../db/tables/jobs';
import { viewTitleOf } from '../dataviews/scope';
import type { JobCounts, JobListQuery, JobView } from './types';

export type JobRow = typeof jobs.$inferSelect;
/** The columns of a job that its API record shows. */
type ShownJob = Pick<
  JobRow,
  | 'id'
  | 'dataViewId'
  | 'kind'
  | 'status'
  | 'trigger'
  | 'attempts'
  | 'error'
  | 'detail'
  | 'requestedBy'
  | 'createdAt'
  | 'startedAt'
  | 'finishedAt'
>;
/** A job with the `<domain> / <name>` title of its view. */
type Labelled = { job: ShownJob; title: string };

const LOAD_KINDS: JobKind[] = ['Load', 'CustomLoad'];

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toJobView(r: Labelled): JobView {
  const j = r.job;
  return {
    id: j.id,
    dataViewId: j.dataViewId,
    dataView: r.title,
    kind: j.kind,
    status: j.status,
    trigger: j.trigger,
    attempts: j.attempts,
    error: j.error,
    detail: j.detail,
    requestedBy: j.requestedBy,
    createdAt: j.createdAt.toISOString(),
    startedAt: iso(j.startedAt),
    finishedAt: iso(j.finishedAt),
  };
}

function labelled(db: Database) {
  return db.orm.select({ job: jobs, title: viewTitleOf(jobs.dataViewId) }).from(jobs);
}

export interface NewJob {
  dataViewId: number;
  kind: JobKind;
  trigger: string;
  requestedBy?: string | null;
  createdAt: Date;
}

/** Inserts a pending job; undefined when the one-active-load rule (a unique index) refuses it. */
export async function insertJob(db: Database, job: NewJob): Promise<JobRow | undefined> {
  const rows = (await db.orm
    .insert(jobs)
    .values({ ...job, status: 'pending' })
    .onConflictDoNothing()
    .returning()) as JobRow[];
  return rows[0];
}

/** The pending or running jobs of a view among `kinds`, oldest first. */
export async function activeJobs(db: Database, dataViewId: number, kinds: JobKind[]): Promise<JobRow[]> {
  return (await db.orm
    .select()
    .from(jobs)
    .where(
      and(
        eq(jobs.dataViewId, dataViewId),
        inArray(jobs.kind, kinds),
        inArray(jobs.status, ['pending', 'running']),
      ),
    )
    .orderBy(jobs.id)) as JobRow[];
}

/** The load or custom load that waits or runs for the view, if any. */
export async function activeLoad(db: Database, dataViewId: number): Promise<JobRow | undefined> {
  return (await activeJobs(db, dataViewId, LOAD_KINDS))[0];
}

export async function findJob(db: Database, id: number): Promise<JobRow | undefined> {
  const rows = (await db.orm.select().from(jobs).where(eq(jobs.id, id))) as JobRow[];
  return rows[0];
}

export async function findJobView(db: Database, id: number): Promise<JobView | undefined> {
  const rows = (await labelled(db).where(eq(jobs.id, id))) as Labelled[];
  return rows[0] ? toJobView(rows[0]) : undefined;
}

/** How long a claimed attempt owns its job without renewing (its worker renews every third of it). */
export const LEASE_SECONDS = 60;

const leaseEnd = (now: Date) => new Date(now.getTime() + LEASE_SECONDS * 1000);

/**
 * A running job whose worker is gone: its lease ran out, or (a fanned-out job, whose shards hold no lease)
 * its attempt or last shard began before `staleBefore`.
 */
function lostWorker(now: Date, staleBefore: Date): SQL {
  return and(
    eq(jobs.status, 'running'),
    or(lt(jobs.leaseUntil, now), and(sql`${jobs.leaseUntil} IS NULL`, lt(jobs.startedAt, staleBefore))),
  ) as SQL;
}

/** The advisory lock class of "a job of this view is being claimed" (the second key is the view id). */
const VIEW_CLAIM_LOCK = 0x616d6a62; // 'amjb'

/**
 * Starts an attempt: a pending job, or a running one whose worker is gone (lease expired), becomes running
 * with its attempt counted and a fresh lease. One job of a view runs at a time: while another job of the view
 * runs (its lease live, or handed to its shard messages) the claim finds nothing; the claims of one view take
 * an advisory lock so that two of them cannot both see the view free. Answers undefined when not claimed.
 */
export async function claimJob(
  db: Database,
  id: number,
  now: Date,
  staleBefore: Date,
): Promise<JobRow | undefined> {
  return db.tx(async (tx) => {
    const [job] = await tx.rows<{ data_view_id: number }>(
      sql`SELECT data_view_id FROM jobs WHERE id = ${id}`,
    );
    if (!job) return undefined;
    const view = Number(job.data_view_id);
    await tx.rows(sql`SELECT pg_advisory_xact_lock(${VIEW_CLAIM_LOCK}, ${view})`);
    const rows = (await tx.orm
      .update(jobs)
      .set({
        status: 'running',
        attempts: sql`${jobs.attempts} + 1`,
        startedAt: now,
        finishedAt: null,
        leaseUntil: leaseEnd(now),
        detail: sql`${jobs.detail} - 'waitingFor'`,
      })
      .where(
        and(
          eq(jobs.id, id),
          or(eq(jobs.status, 'pending'), lostWorker(now, staleBefore)),
          sql`NOT EXISTS (SELECT 1 FROM jobs o WHERE o.data_view_id = ${view} AND o.id <> ${id}
            AND o.status = 'running' AND (o.lease_until > ${now.toISOString()}::timestamptz
              OR (o.lease_until IS NULL AND o.started_at >= ${staleBefore.toISOString()}::timestamptz)))`,
        ),
      )
      .returning()) as JobRow[];
    return rows[0];
  });
}

/** The running job of the view other than `id`, if any (a pending job that could not be claimed waits for it). */
export async function runningJobOfView(
  db: Database,
  dataViewId: number,
  id: number,
): Promise<number | undefined> {
  const [row] = await db.rows<{ id: number }>(sql`SELECT id FROM jobs
    WHERE data_view_id = ${dataViewId} AND id <> ${id} AND status = 'running' ORDER BY id LIMIT 1`);
  return row ? Number(row.id) : undefined;
}

/** Marks a pending job as waiting for job `other` of its view: the every-minute schedule sends it again when the view is free. */
export async function markWaiting(db: Database, id: number, other: number): Promise<void> {
  await db.rows(sql`UPDATE jobs SET detail = detail || jsonb_build_object('waitingFor', ${other}::int)
    WHERE id = ${id} AND status = 'pending'`);
}

/** Pending jobs that waited for another job of their view which no longer runs. */
export async function waitingJobsFree(db: Database): Promise<JobRow[]> {
  return (await db.orm
    .select()
    .from(jobs)
    .where(
      and(
        eq(jobs.status, 'pending'),
        sql`${jobs.detail} ? 'waitingFor'`,
        sql`NOT EXISTS (SELECT 1 FROM jobs o WHERE o.data_view_id = ${jobs.dataViewId} AND o.id <> ${jobs.id} AND o.status = 'running')`,
      ),
    )) as JobRow[];
}

/**
 * Extends the lease of attempt `attempt`; false when the job no longer runs that attempt (cancelled, taken over).
 * Never shortens it: a lease set further out by other means (an operator, a longer job limit) is not
 * cut back by a renewal that was queued before it.
 */
export async function renewLease(db: Database, id: number, attempt: number, now: Date): Promise<boolean> {
  const rows = await db.orm
    .update(jobs)
    .set({
      leaseUntil: sql`greatest(${jobs.leaseUntil}, ${leaseEnd(now).toISOString()}::timestamptz)`,
    })
    .where(and(eq(jobs.id, id), eq(jobs.status, 'running'), eq(jobs.attempts, attempt)))
    .returning({ id: jobs.id });
  return rows.length > 0;
}

/** A job handed on to its shard messages: no lease, the shards keep `started_at` fresh instead. */
export async function releaseLease(db: Database, id: number, attempt: number): Promise<void> {
  await db.orm
    .update(jobs)
    .set({ leaseUntil: null })
    .where(and(eq(jobs.id, id), eq(jobs.attempts, attempt)));
}

/** Ends a running job as finished, merging `detail` into what it had. */
export async function finishJob(
  db: Database,
  id: number,
  now: Date,
  detail: Record<string, unknown>,
  attempt?: number,
): Promise<void> {
  await db.orm
    .update(jobs)
    .set({
      status: 'finished',
      finishedAt: now,
      error: null,
      leaseUntil: null,
      detail: sql`${jobs.detail} || ${JSON.stringify(detail)}::jsonb`,
    })
    .where(and(eq(jobs.id, id), attempt === undefined ? undefined : eq(jobs.attempts, attempt)));
}

/** Ends a job as failed with its reason; a job already finished or failed keeps its outcome. */
export async function failJob(db: Database, id: number, now: Date, error: string): Promise<boolean> {
  const rows = await db.orm
    .update(jobs)
    .set({ status: 'failed', finishedAt: now, error, leaseUntil: null })
    .where(and(eq(jobs.id, id), inArray(jobs.status, ['pending', 'running'])))
    .returning({ id: jobs.id });
  return rows.length > 0;
}

/** Puts a job whose attempt failed back in the queue, keeping the reason for operators. */
export async function requeueJob(db: Database, id: number, error: string, attempt?: number): Promise<void> {
  await db.orm
    .update(jobs)
    .set({ status: 'pending', error, leaseUntil: null })
    .where(and(eq(jobs.id, id), attempt === undefined ? undefined : eq(jobs.attempts, attempt)));
}

/**
 * `jobs/clear` for running jobs: fails the view's running jobs whose worker is gone (or, with `force`, every
 * running one: its worker sees the lost lease at its next renewal and stops). Returns their ids.
 */
export async function cancelRunningJobs(
  db: Database,
  dataViewId: number,
  now: Date,
  staleBefore: Date,
  reason: string,
  force: boolean,
): Promise<number[]> {
  const rows = await db.orm
    .update(jobs)
    .set({ status: 'failed', finishedAt: now, error: reason, leaseUntil: null })
    .where(
      and(eq(jobs.dataViewId, dataViewId), force ? eq(jobs.status, 'running') : lostWorker(now, staleBefore)),
    )
    .returning({ id: jobs.id });
  return rows.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b);
}

/** Deletes the pending jobs of a view; returns their ids. */
export async function deletePendingJobs(db: Database, dataViewId: number): Promise<number[]> {
  const rows = await db.orm
    .delete(jobs)
    .where(and(eq(jobs.dataViewId, dataViewId), eq(jobs.status, 'pending')))
    .returning({ id: jobs.id });
  return rows.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b);
}

/** Jobs newest first, limited to `visibleIds` when given. */
export async function listJobRows(db: Database, q: JobListQuery, scope: SQL): Promise<JobView[]> {
  const conds: SQL[] = [scope];
  if (q.dataViewId !== undefined) conds.push(eq(jobs.dataViewId, q.dataViewId));
  if (q.status) conds.push(eq(jobs.status, q.status));
  if (q.kind) conds.push(eq(jobs.kind, q.kind));
  const rows = (await labelled(db)
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(q.limit ?? 100)) as Labelled[];
  return rows.map(toJobView);
}

/** Job counts by status per data view. */
export async function jobCountsByView(
  db: Database,
  ids: number[] | undefined,
): Promise<Map<number, JobCounts>> {
  const rows = (await db.orm
    .select({ id: jobs.dataViewId, status: jobs.status, n: count() })
    .from(jobs)
    .where(ids ? inArray(jobs.dataViewId, ids.length ? ids : [-1]) : undefined)
    .groupBy(jobs.dataViewId, jobs.status)) as Array<{ id: number; status: JobStatus; n: number }>;
  const out = new Map<number, JobCounts>();
  for (const r of rows) {
    const c = out.get(r.id) ?? { jobs: 0, pending: 0, running: 0, finished: 0, failed: 0 };
    c[r.status] += Number(r.n);
    c.jobs += Number(r.n);
    out.set(r.id, c);
  }
  return out;
}

/** Per view: when its last successful load finished, and its newest job. */
export async function lastImports(db: Database): Promise<Map<number, Date>> {
  const rows = await db.rows<{ id: number; at: Date | string }>(sql`
    SELECT data_view_id AS id, max(finished_at) AS at FROM jobs
    WHERE kind IN ('Load', 'CustomLoad') AND status = 'finished' GROUP BY data_view_id`);
  return new Map(rows.map((r) => [Number(r.id), new Date(r.at)]));
}

export async function newestJobs(db: Database, ids: number[]): Promise<Map<number, JobView>> {
  if (ids.length === 0) return new Map();
  const rows = (await labelled(db).where(
    inArray(
      jobs.id,
      db.orm
        .select({ id: sql<number>`max(${jobs.id})` })
        .from(jobs)
        .where(inArray(jobs.dataViewId, ids))
        .groupBy(jobs.dataViewId),
    ),
  )) as Labelled[];
  return new Map(rows.map((r) => [r.job.dataViewId, toJobView(r)]));
}

/** Running jobs whose worker is gone (lease expired; fanned-out jobs: no shard since `staleBefore`). */
export async function staleRunningJobs(db: Database, now: Date, staleBefore: Date): Promise<JobRow[]> {
  return (await db.orm.select().from(jobs).where(lostWorker(now, staleBefore)).orderBy(jobs.id)) as JobRow[];
}

/** Merges `detail` into a job's detail (the fan-out's plan, written before its shard messages go out). */
export async function mergeJobDetail(
  db: Database,
  id: number,
  detail: Record<string, unknown>,
): Promise<void> {
  await db.orm
    .update(jobs)
    .set({ detail: sql`${jobs.detail} || ${JSON.stringify(detail)}::jsonb` })
    .where(eq(jobs.id, id));
}

/**
 * Records shard `index` of a running fan-out job as done (the shared counter: `shardsDone` holds the
 * indexes done, so a redelivered shard counts once) and keeps the job from looking stale. Returns
 * how many shards are done, or undefined when the job does not run any more or the shard was done.
 */
export async function markShardDone(
  db: Database,
  id: number,
  index: number,
  now: Date,
): Promise<number | undefined> {
  const done = sql`coalesce(${jobs.detail}->'shardsDone', '[]'::jsonb)`;
  const rows = await db.rows<{ done: number }>(sql`
    UPDATE jobs SET detail = jsonb_set(detail, '{shardsDone}', ${done} || to_jsonb(${index}::int)),
      started_at = ${now.toISOString()}::timestamptz
    WHERE id = ${id} AND status = 'running' AND NOT ${done} @> to_jsonb(${index}::int)
    RETURNING jsonb_array_length(detail->'shardsDone') AS done`);
  return rows[0] === undefined ? undefined : Number(rows[0].done);
}

/** How many jobs of the view wait or run. */
export async function activeJobCounts(
  db: Database,
  dataViewId: number,
): Promise<{ pending: number; running: number }> {
  const rows = await db.orm
    .select({ status: jobs.status, n: count() })
    .from(jobs)
    .where(and(eq(jobs.dataViewId, dataViewId), inArray(jobs.status, ['pending', 'running'])))
    .groupBy(jobs.status);
  const out = { pending: 0, running: 0 };
  for (const r of rows as Array<{ status: string; n: number }>)
    out[r.status as 'pending' | 'running'] = Number(r.n);
  return out;
}

/** Removes every job row of a view (its dataset was cleaned or dropped); answers how many went. */
export async function deleteJobsOfView(db: Database, dataViewId: number): Promise<number> {
  const rows = await db.orm.delete(jobs).where(eq(jobs.dataViewId, dataViewId)).returning({ id: jobs.id });
  return rows.length;
}

/** A job's status and attempt, its row locked until the end of the transaction; undefined when it was removed. */
export async function lockJobAttempt(
  db: Database,
  id: number,
): Promise<{ status: JobStatus; attempts: number } | undefined> {
  const [row] = await db.rows<{ status: JobStatus; attempts: number }>(
    sql`SELECT status, attempts FROM jobs WHERE id = ${id} FOR UPDATE`,
  );
  return row ? { status: row.status, attempts: Number(row.attempts) } : undefined;
}

/** The `rows` detail of the view's last finished job of `job`'s kind (another job than `job`), if any. */
export async function lastFinishedRows(db: Database, job: JobRow): Promise<number | null> {
  const [r] = await db.rows<{ n: unknown }>(
    sql`SELECT (detail->>'rows')::bigint AS n FROM jobs WHERE data_view_id = ${job.dataViewId}
      AND kind = ${job.kind} AND status = 'finished' AND id <> ${job.id}
      ORDER BY finished_at DESC NULLS LAST LIMIT 1`,
  );
  const n = Number(r?.n);
  return Number.isFinite(n) && n > 0 ? n : null;
}
