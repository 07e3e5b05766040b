/**
 * The work of the process worker (detection), its shard messages and its dead-letter clean-up, wired from
 * the container. The job publishes and returns: what runs after a published cycle is handed in by the
 * composition (lib/app/workers.ts), so this module knows nothing of who reads the anomalies.
 */
import type { ProcessJobDeps } from './ports';
import type { JobRow } from '../jobs/repository';
import type { ShardAttempt } from '../jobs/worker';
import type { DETACHED } from '../jobs/runner';
import { abandonFanOut, abandonRun, runFanOutShard } from './fan-out';
import { runShardAttempt, type ShardWork } from '../jobs/shard-attempt';
import { startDetection } from './start';

/** Runs after a cycle published the view's anomalies; its answer joins the job detail. */
export type AfterPublish = (job: JobRow, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** Detection over the loaded data, here or handed to shard messages (then the last shard finishes the job). */
export function processJob(
  c: ProcessJobDeps,
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown> | typeof DETACHED> {
  return startDetection(c, job, signal);
}

/**
 * The process worker's handler of the shard messages of a fanned-out process job (one delivery each,
 * `shard-attempt.ts`); the last shard, which publishes, also runs `afterPublish`.
 */
export function processShards(c: ProcessJobDeps, afterPublish?: AfterPublish): ShardAttempt {
  const work: ShardWork = {
    async run(job, shard, signal) {
      const detail = await runFanOutShard(c, job, shard, signal);
      if (!detail || !afterPublish) return detail;
      return { ...detail, ...(await afterPublish(job, signal)) };
    },
    abandon: (job, shard) => abandonFanOut(c, job, shard),
  };
  return (deps, message, receiveCount, signal) => runShardAttempt(deps, message, work, receiveCount, signal);
}

/** Clean-up after a dead-lettered job: a process run's staging table (a crashed worker left it). */
export function abandonJob(c: ProcessJobDeps): (job: JobRow) => Promise<void> {
  return (job) => abandonRun(c.db, job);
}
