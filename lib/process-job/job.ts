/** The work of the process worker (detection), its shard messages and its dead-letter clean-up, wired from the container. */
import type { Container } from '../app/container';
import type { JobRow } from '../jobs/repository';
import type { ShardAttempt } from '../jobs/worker';
import { DETACHED, errorText } from '../jobs/runner';
import { readViews } from '../dataviews/scope';
import { systemCaller } from '../identity/caller';
import { logger } from '../shared/logger';
import { regenerateSummariesForView } from '../summaries/service';
import { alertsAfterCycle } from '../alerts/hooks';
import { abandonFanOut, abandonRun, runFanOutShard } from './fan-out';
import { runShardAttempt, type ShardWork } from './shard-attempt';
import { startDetection } from './start';

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

/**
 * The process worker's handler of the shard messages of a fanned-out process job (one delivery each,
 * `shard-attempt.ts`); the last shard also regenerates the summaries and sends the alerts.
 */
export function processShards(c: Container): ShardAttempt {
  const work: ShardWork = {
    async run(job, shard, signal) {
      const detail = await runFanOutShard(c, job, shard, signal);
      if (detail) detail.summaries = await regenerateSummaries(c, job.dataViewId, job.id);
      if (detail) detail.alerts = await alertsAfterCycle(c, job.dataViewId, job.id);
      return detail;
    },
    abandon: (job, shard) => abandonFanOut(c, job, shard),
  };
  return (deps, message, receiveCount, signal) => runShardAttempt(deps, message, work, receiveCount, signal);
}

/** Clean-up after a dead-lettered job: a process run's staging table (a crashed worker left it). */
export function abandonJob(c: Container): (job: JobRow) => Promise<void> {
  return (job) => abandonRun(c.db, job);
}

/** After a successful detection cycle: the summaries of summarised filters over the view; a failure never fails the job. */
async function regenerateSummaries(c: Container, dataViewId: number, jobId: number): Promise<unknown> {
  const log = logger.child({ jobId });
  try {
    const [view] = await readViews(systemCaller(), c.db, { ids: [dataViewId] });
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
