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
import type { DataViewRecord } from '../dataviews/views';
import { type Caller, requireAdmin, systemCaller } from '../identity/caller';
import { failJob, findJob, insertJob, type JobRow, toJobView } from '../jobs/repository';
import type { EnqueuedJob } from '../jobs/types';
import { type JobQueue, queueOf } from '../queue/port';
import type { Clock } from '../shared/clock';
import { NotFoundError, UpstreamError, ValidationError } from '../shared/errors';
import { detectInMemory } from './detect';
import { diffRecords, foldCountEchoes, keptRecords } from './diff';
import {
  insertReplay,
  readReplayRow,
  readSeriesCategories,
  readStoredRecords,
  writeReplayResult,
} from './store';
import type { ReplayAnswer, ReplayRecord, ReplayResult } from './types';

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

/** Fills in the category values of the rows an answer shows. */
async function withCategories(db: Database, view: DataViewRecord, result: ReplayResult): Promise<void> {
  const rows: ReplayRecord[] = [
    ...result.added,
    ...result.removed,
    ...result.changed.flatMap((c) => [c.before, c.after]),
  ];
  const names = (view.definition.categories ?? []).map((c) => c.name);
  const cats = await readSeriesCategories(
    db,
    view.schema,
    names,
    rows.map((r) => r.seriesId),
  );
  for (const r of rows) r.categories = cats.get(r.seriesId) ?? {};
}

/** The work of a Replay job (the process worker runs it): detect in memory, compare, store the difference. */
export async function runReplayJob(
  deps: Pick<ReplayDeps, 'db'> & { shardSize: number },
  job: JobRow,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const { db } = deps;
  const row = await readReplayRow(db, job.id);
  if (!row) throw new ValidationError(`Replay ${job.id} has no definition (it was removed).`);
  const deployed = await readDeployedView(systemCaller(), db, job.dataViewId);
  const replayed: DataViewRecord = { ...deployed, definition: row.definition };
  const detection = await detectInMemory(db, replayed, deps.shardSize, signal);
  const before = await readStoredRecords(db, deployed.schema);
  const after = [
    ...keptRecords(before, detection.run.replacedFrom, detection.detectors),
    ...foldCountEchoes(detection.records),
  ];
  const result: ReplayResult = { ...diffRecords(before, after), run: detection.run };
  await withCategories(db, replayed, result);
  await writeReplayResult(db, job.id, result);
  const c = result.counts;
  return {
    ...c,
    detected: detection.records.length,
    ms: detection.run.ms,
    message: `replayed: ${c.added} added, ${c.removed} removed, ${c.changed} changed of ${c.before} anomalies`,
  };
}
