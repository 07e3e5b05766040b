/** Job requests (API, cron, a finished load): the state rules of the spec, one active load per view, then the queue. */
import type { Config } from '../config/config';
import type { Database } from '../db/database';
import type { JobKind } from '../db/tables/jobs';
import { licenseWarning } from '../dataviews/license';
import { readDeployedView, readView, readViewByName } from '../dataviews/scope';
import { assertDeployed, type DataViewRecord } from '../dataviews/views';
import { type Caller, requireAdmin, requireProcess } from '../identity/caller';
import { type JobQueue, queueOf } from '../queue/port';
import type { Clock } from '../shared/clock';
import { ConflictError, UpstreamError } from '../shared/errors';
import {
  activeJobs,
  activeLoad,
  cancelRunningJobs,
  deletePendingJobs,
  failJob,
  insertJob,
  type JobRow,
  toJobView,
} from './repository';
import type { EnqueuedJob, JobTrigger, JobView } from './types';

export interface JobDeps {
  db: Database;
  queue: JobQueue;
  clock: Clock;
  config: Config;
}

/** A data view addressed by id or by `{domain}/{name}`. */
export type ViewRef = { id: number } | { domain: string; name: string };

const label = (row: Pick<DataViewRecord, 'domain' | 'name'>) => `${row.domain}/${row.name}`;

/** The view the caller asked for; one not visible to the caller is not found. */
export async function resolveView(db: Database, caller: Caller, ref: ViewRef): Promise<DataViewRecord> {
  return 'id' in ref ? readView(caller, db, ref.id) : readViewByName(caller, db, ref.domain, ref.name);
}

/** Throws ConflictError when the view's state does not allow a job of `kind` (spec: job rules). */
export function assertJobAllowed(row: DataViewRecord, kind: JobKind): void {
  const name = label(row);
  assertDeployed(row, '; deploy it before starting jobs.');
  if (kind === 'CustomLoad') {
    if (!row.definition.source?.customLoadQuery?.trim()) {
      throw new ConflictError(`Data view ${name} has no custom load query (source.customLoadQuery).`);
    }
    return;
  }
  if (!row.enabled) throw new ConflictError(`Data view ${name} is disabled; enable it before starting jobs.`);
}

function alreadyQueued(what: 'load' | 'process', row: DataViewRecord, job: JobRow): ConflictError {
  return new ConflictError(
    `A ${what} task (job ${job.id}, ${job.status}) for data view ${label(row)} is already in the queue`,
  );
}

/** Inserts the job row and sends its message; a job whose message cannot be sent is failed, not left waiting. */
async function insertAndSend(
  deps: JobDeps,
  row: DataViewRecord,
  kind: JobKind,
  trigger: JobTrigger,
  requestedBy: string | null,
): Promise<JobRow | undefined> {
  const job = await insertJob(deps.db, {
    dataViewId: row.id,
    kind,
    trigger,
    requestedBy,
    createdAt: deps.clock.now(),
  });
  if (!job) return undefined;
  try {
    await deps.queue.send(queueOf(kind), { jobId: job.id, dataViewId: row.id, kind });
  } catch (e) {
    const reason = `the job could not be queued: ${(e as Error).message}`;
    await failJob(deps.db, job.id, deps.clock.now(), reason);
    throw new UpstreamError(`Job ${job.id}: ${reason}`, e);
  }
  return job;
}

async function enqueueForCaller(
  deps: JobDeps,
  caller: Caller,
  ref: ViewRef,
  kind: JobKind,
): Promise<EnqueuedJob> {
  requireProcess(caller);
  const row = await resolveView(deps.db, caller, ref);
  assertJobAllowed(row, kind);
  if (kind === 'Process') {
    const [pending] = (await activeJobs(deps.db, row.id, ['Process'])).filter((j) => j.status === 'pending');
    if (pending) throw alreadyQueued('process', row, pending);
  }
  const job = await insertAndSend(deps, row, kind, 'api', caller.email || null);
  if (!job) {
    const active = await activeLoad(deps.db, row.id);
    if (active) throw alreadyQueued('load', row, active);
    throw new ConflictError(`A load task for data view ${label(row)} is already in the queue`);
  }
  const view: EnqueuedJob = toJobView({ job, title: row.title });
  const warning = await licenseWarning(deps);
  if (warning) view.warnings = [warning];
  return view;
}

/** POST …/jobs/load: the normal load with the main load query (same path as the cron trigger). */
export function requestLoad(deps: JobDeps, caller: Caller, ref: ViewRef): Promise<EnqueuedJob> {
  return enqueueForCaller(deps, caller, ref, 'Load');
}

/** POST …/jobs/custom-load: a load with the custom load query; the view need not be enabled. */
export function requestCustomLoad(deps: JobDeps, caller: Caller, ref: ViewRef): Promise<EnqueuedJob> {
  return enqueueForCaller(deps, caller, ref, 'CustomLoad');
}

/** POST …/jobs/process: detection over the loaded data. */
export function requestProcess(deps: JobDeps, caller: Caller, ref: ViewRef): Promise<EnqueuedJob> {
  return enqueueForCaller(deps, caller, ref, 'Process');
}

/**
 * POST /{id}/jobs/clear (admins): deletes the view's pending jobs and fails its running jobs whose worker is
 * gone (lease expired), so that the one-active-load rule frees the view; with `force`, every running job is
 * cancelled (its worker stops at its next lease renewal). Refused when there is nothing to clear.
 */
export async function clearQueuedJobs(
  deps: JobDeps,
  caller: Caller,
  id: number,
  options: { force?: boolean } = {},
): Promise<{ dataViewId: number; removed: number; jobIds: number[]; cancelled?: number[] }> {
  requireAdmin(caller);
  const row = await readDeployedView(caller, deps.db, id);
  const jobIds = await deletePendingJobs(deps.db, row.id);
  const now = deps.clock.now();
  const staleBefore = new Date(now.getTime() - (deps.config.jobs.timeoutSeconds + 60) * 1000);
  const cancelled = await cancelRunningJobs(
    deps.db,
    row.id,
    now,
    staleBefore,
    options.force
      ? `Cancelled by ${caller.email} (jobs/clear with force).`
      : `Cancelled by ${caller.email}: its worker had stopped (crashed or timed out).`,
    options.force === true,
  );
  if (jobIds.length === 0 && cancelled.length === 0)
    throw new ConflictError(`No queued jobs were found for data view ${label(row)}.`);
  return {
    dataViewId: row.id,
    removed: jobIds.length,
    jobIds,
    ...(cancelled.length ? { cancelled } : {}),
  };
}

/**
 * The cron start rule: a scheduled load starts only when no load, custom load or process job of
 * the view waits or runs. Returns the job, or the reason it was not started.
 */
export async function enqueueScheduledLoad(
  deps: JobDeps,
  row: DataViewRecord,
): Promise<{ job?: JobView; skipped?: string }> {
  const busy = await activeJobs(deps.db, row.id, ['Load', 'CustomLoad', 'Process']);
  if (busy.length > 0)
    return { skipped: `job ${busy[0].id} (${busy[0].kind}, ${busy[0].status}) is in progress` };
  const job = await insertAndSend(deps, row, 'Load', 'cron', null);
  if (!job) return { skipped: 'a load task is already in the queue' };
  return { job: toJobView({ job, title: row.title }) };
}

/** After a successful load: the process job, unless one is already waiting (it will read the new data). */
export async function enqueueProcessAfterLoad(
  deps: JobDeps,
  row: DataViewRecord,
  loadJobId: number,
): Promise<number> {
  const [pending] = (await activeJobs(deps.db, row.id, ['Process'])).filter((j) => j.status === 'pending');
  if (pending) return pending.id;
  const job = await insertAndSend(deps, row, 'Process', 'load', `job ${loadJobId}`);
  return job!.id;
}
