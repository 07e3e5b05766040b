/**
 * The process job: detection over the loaded series of a data view (run.ts, shard.ts). A problem
 * of the definition (ValidationError) fails the job at once; anything else is retried. The view's
 * previous anomalies stay as they were until a run completes. A view of several shards is spread
 * over workers (fan-out.ts) unless DETECTION_FAN_OUT is off.
 */
import type { ProcessJobDeps } from './ports';
import { planRun, runViewDetection } from './run';
import type { JobRow } from '../jobs/repository';
import { DETACHED } from '../jobs/runner';
import { detectionDeps, fansOut, startFanOut } from './fan-out';
import { readDeployedView } from '../dataviews/scope';
import { systemCaller } from '../identity/caller';

/** Runs detection for the view in this worker; the job runner marks the job finished with the returned detail. */
export async function runDetection(
  c: ProcessJobDeps,
  dataViewId: number,
  jobId: number,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const view = await readDeployedView(systemCaller(), c.db, dataViewId);
  return { ...(await runViewDetection(detectionDeps(c, jobId, dataViewId, signal), view, jobId)) };
}

/** The job's own message: runs detection here, or hands it to shard messages (DETACHED). */
export async function startDetection(
  c: ProcessJobDeps,
  job: JobRow,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | typeof DETACHED> {
  const view = await readDeployedView(systemCaller(), c.db, job.dataViewId);
  const { shardSize, maxShards } = c.config.detection;
  const plan = await planRun(c.db, view, shardSize, undefined, maxShards);
  if (fansOut(c, plan)) {
    await startFanOut(c, job, plan);
    return DETACHED;
  }
  return {
    ...(await runViewDetection(detectionDeps(c, job.id, job.dataViewId, signal), view, job.id, plan)),
  };
}
