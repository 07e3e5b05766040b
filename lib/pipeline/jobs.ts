/** The work of the load and process workers, wired from the container. */
import type { Container } from '../app/container';
import { enqueueProcessAfterLoad } from '../jobs/enqueue';
import type { JobRow } from '../jobs/repository';
import { DETACHED, errorText, type ShardWork } from '../jobs/runner';
import { eq } from 'drizzle-orm';
import { dataViews } from '../db/tables/index';
import { logger } from '../shared/logger';
import { regenerateSummariesForView } from '../summaries/service';
import { alertsAfterCycle } from '../alerts/hooks';
import { runLoad } from './load';
import { abandonFanOut, abandonRun, runFanOutShard } from './fan-out';
import { startDetection } from './process';
import { connectorSources, type OpenSource } from './source';

/** Sources of this process; tests and the benchmark install their own. */
let sourceOverride: OpenSource | undefined;

export function setOpenSource(open: OpenSource | undefined): void {
  sourceOverride = open;
}

/** Load or custom load, then the process job when the view is enabled. */
export async function loadJob(
  c: Container,
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const log = logger.child({ jobId: job.id });
  const { view, result } = await runLoad(
    {
      db: c.db,
      log,
      openSource: sourceOverride ?? connectorSources(c),
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

/** Detection over the loaded data, here or handed to shard messages (then the last shard finishes the job). */
export async function processJob(
  c: Container,
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown> | typeof DETACHED> {
  const detail = await startDetection(c, job, signal);
  if (detail === DETACHED) return detail;
  detail.summaries = await regenerateSummaries(c, job.dataViewId, job.id);
  detail.alerts = await alertsAfterCycle(c, job.dataViewId, job.id);
  return detail;
}

/** The shard messages of a fanned-out process job; the last one also regenerates the summaries. */
export function processShards(c: Container): ShardWork {
  return {
    async run(job, shard, signal) {
      const detail = await runFanOutShard(c, job, shard, signal);
      if (detail) detail.summaries = await regenerateSummaries(c, job.dataViewId, job.id);
      if (detail) detail.alerts = await alertsAfterCycle(c, job.dataViewId, job.id);
      return detail;
    },
    abandon: (job, shard) => abandonFanOut(c, job, shard),
  };
}

/** Clean-up after a dead-lettered job: a process run's staging table (a crashed worker left it). */
export function abandonJob(c: Container): (job: JobRow) => Promise<void> {
  return (job) => abandonRun(c.db, job);
}

/** After a successful detection cycle: the summaries of summarised filters over the view; a failure never fails the job. */
async function regenerateSummaries(c: Container, dataViewId: number, jobId: number): Promise<unknown> {
  const log = logger.child({ jobId });
  try {
    const [view] = await c.db.orm
      .select({ id: dataViews.id, domain: dataViews.domain, name: dataViews.name })
      .from(dataViews)
      .where(eq(dataViews.id, dataViewId));
    if (!view) return [];
    const results = await regenerateSummariesForView(
      { db: c.db, secrets: c.secrets, clock: c.clock, timeZone: c.config.timeZone, log },
      view,
    );
    return results;
  } catch (e) {
    log.error('summaries not regenerated after detection', { error: e });
    return { error: errorText(e) };
  }
}
