/** The work of the load worker: load or custom load, then the process job when the view is enabled. */
import { enqueueProcessAfterLoad, type JobDeps } from '../jobs/enqueue';
import type { JobRow } from '../jobs/repository';
import { errorText } from '../jobs/runner';
import { logger } from '../shared/logger';
import { runLoad } from './load';
import type { OpenSource } from './source';

/** What the load worker needs: the jobs' ports (it queues the process job) and where it opens sources. */
export interface LoadJobDeps extends JobDeps {
  openSource: OpenSource;
}

/** Load or custom load, then the process job when the view is enabled. */
export async function loadJob(
  c: LoadJobDeps,
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const log = logger.child({ jobId: job.id });
  const { view, result } = await runLoad(
    {
      db: c.db,
      log,
      openSource: c.openSource,
      batchSize: c.config.jobs.loadBatchSize,
    },
    job,
    signal,
  );
  const detail: Record<string, unknown> = { ...result };
  if (view.enabled) {
    try {
      detail.processJobId = await enqueueProcessAfterLoad(c, view, job.id);
    } catch (e) {
      // The data is committed: a process job that could not be queued is reported, not retried as a load.
      detail.processError = errorText(e);
      log.error('process job not queued after load', { error: e });
    }
  }
  return detail;
}
