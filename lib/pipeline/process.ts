/**
 * The process job: detection over the loaded series of a data view (lib/detection-run). A problem
 * of the definition (ValidationError) fails the job at once; anything else is retried. The view's
 * previous anomalies stay as they were until a run completes.
 */
import type { Container } from '../app/container';
import { runViewDetection } from '../detection-run/run';
import { findJob } from '../jobs/repository';
import { logger } from '../shared/logger';
import { deployedView } from './load';

/** Runs detection for the view; the job runner marks the job finished with the returned detail. */
export async function runDetection(
  c: Container,
  dataViewId: number,
  jobId: number,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const view = await deployedView(c.db, dataViewId);
  const summary = await runViewDetection(
    {
      db: c.db,
      log: logger.child({ jobId, dataViewId }),
      shardSize: c.config.detection.shardSize,
      signal,
      isRunning: async (id) => (await findJob(c.db, id))?.status === 'running',
    },
    view,
    jobId,
  );
  return { ...summary };
}
