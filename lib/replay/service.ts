/**
 * Replay: what a changed, unsaved definition of a deployed view would do to its anomalies. The request
 * checks the definition as saving would and queues a job of its own kind (`Replay`); the job runs the
 * changed detectors over the loaded history in memory (detect.ts), compares the result with the records
 * the view holds (diff.ts) and stores the difference with the job. Nothing users see changes: no record,
 * incident, alert, summary or feedback is written, and no load waits for a replay.
 */
import type { Database } from '../db/database';
import { checkDraft } from '../dataviews/draft';
import { readDeployedView } from '../dataviews/scope';
import { type Caller, requireAdmin } from '../identity/caller';
import { failJob, findJob, insertJob, toJobView } from '../jobs/repository';
import type { EnqueuedJob } from '../jobs/types';
import { type JobQueue, queueOf } from '../queue/port';
import type { Clock } from '../shared/clock';
import { NotFoundError, UpstreamError } from '../shared/errors';
import { insertReplay, readReplayRow } from './store';
import type { ReplayAnswer } from './types';

export interface ReplayDeps {
  db: Database;
  queue: Pick<JobQueue, 'send'>;
  clock: Clock;
}

/**
 * POST /dataviews/{id}/replay (admins): checks `body` (JSON or YAML) as an update of the deployed view
 * would be checked, then queues its replay; answers the job (202).
 */
export async function requestReplay(
  deps: ReplayDeps,
  caller: Caller,
  id: number,
  body: unknown,
): Promise<EnqueuedJob> {
  requireAdmin(caller);
  const view = await readDeployedView(caller, deps.db, id, '; deploy and load it before replaying a change.');
  const definition = await checkDraft(deps.db, body, view);
  const job = await insertJob(deps.db, {
    dataViewId: view.id,
    kind: 'Replay',
    trigger: 'api',
    requestedBy: caller.email || null,
    createdAt: deps.clock.now(),
  });
  if (!job) throw new Error('the replay job was not inserted');
  await insertReplay(deps.db, job.id, view.id, definition);
  try {
    await deps.queue.send(queueOf('Replay'), { jobId: job.id, dataViewId: view.id, kind: 'Replay' });
  } catch (e) {
    const reason = `the job could not be queued: ${(e as Error).message}`;
    await failJob(deps.db, job.id, deps.clock.now(), reason);
    throw new UpstreamError(`Job ${job.id}: ${reason}`, e);
  }
  return toJobView({ job, title: view.title });
}

/** GET /dataviews/{id}/replay/{jobId} (admins): the replay job's status and, once finished, the difference. */
export async function readReplay(
  deps: Pick<ReplayDeps, 'db'>,
  caller: Caller,
  id: number,
  jobId: number,
): Promise<ReplayAnswer> {
  requireAdmin(caller);
  const view = await readDeployedView(caller, deps.db, id);
  const job = await findJob(deps.db, jobId);
  if (!job || job.kind !== 'Replay' || job.dataViewId !== view.id)
    throw new NotFoundError(`No replay ${jobId} of data view ${view.domain}/${view.name}.`);
  const row = await readReplayRow(deps.db, job.id);
  return { job: toJobView({ job, title: view.title }), result: row?.result ?? null };
}
