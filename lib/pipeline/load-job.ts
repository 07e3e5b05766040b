/** The work of the load worker: load or custom load, then the process job when the view is enabled. */
import { readDeployedView } from '../dataviews/scope';
import type { DataViewRecord } from '../dataviews/views';
import { systemCaller } from '../identity/caller';
import { enqueueProcessAfterLoad, type JobDeps } from '../jobs/enqueue';
import { type JobRow, markShardDone, mergeJobDetail } from '../jobs/repository';
import { DETACHED, errorText } from '../jobs/runner';
import { runShardAttempt, type ShardWork } from '../jobs/shard-attempt';
import type { ShardAttempt } from '../jobs/worker';
import { logger } from '../shared/logger';
import { type LoadDeps, type LoadResult, runLoad } from './load';
import {
  abandonSplitLoad,
  combineSplitLoad,
  runLoadPart,
  type SplitDetail,
  startSplitLoad,
} from './load-split';
import type { OpenSource } from './source';

/** What the load worker needs: the jobs' ports (it queues the process job) and where it opens sources. */
export interface LoadJobDeps extends JobDeps {
  openSource: OpenSource;
}

function loadDeps(c: LoadJobDeps, job: JobRow): LoadDeps {
  return {
    db: c.db,
    log: logger.child({ jobId: job.id }),
    openSource: c.openSource,
    batchSize: c.config.jobs.loadBatchSize,
  };
}

/** The job detail of a committed load, with the process job it queued when the view is enabled. */
async function afterLoad(
  c: LoadJobDeps,
  view: DataViewRecord,
  job: JobRow,
  result: LoadResult,
): Promise<Record<string, unknown>> {
  const detail: Record<string, unknown> = { ...result };
  if (view.enabled) {
    try {
      detail.processJobId = await enqueueProcessAfterLoad(c, view, job.id);
    } catch (e) {
      // The data is committed: a process job that could not be queued is reported, not retried as a load.
      detail.processError = errorText(e);
      logger.error('process job not queued after load', { jobId: job.id, error: e });
    }
  }
  return detail;
}

/**
 * Load or custom load, then the process job when the view is enabled. A full load of more rows than
 * `jobs.loadSplitRows` is split into parts (load-split.ts): the job is handed on to their messages.
 */
export async function loadJob(
  c: LoadJobDeps,
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown> | typeof DETACHED> {
  const deps = loadDeps(c, job);
  const split = await startSplitLoad(deps, job, {
    splitRows: c.config.jobs.loadSplitRows,
    partChunks: c.config.jobs.loadPartChunks,
    maxParts: c.config.jobs.loadMaxParts,
    send: (shard) =>
      c.queue.send('load', { jobId: job.id, dataViewId: job.dataViewId, kind: job.kind, shard }),
  });
  if (split) return DETACHED;
  const { view, result } = await runLoad(deps, job, signal);
  return afterLoad(c, view, job, result);
}

/** The parts of split loads, delivered on the load queue: the last one combines and finishes the job. */
export function loadParts(c: LoadJobDeps): ShardAttempt {
  const work: ShardWork = {
    async run(job, shard, signal) {
      const deps = loadDeps(c, job);
      const view = await readDeployedView(systemCaller(), c.db, job.dataViewId);
      const detail = job.detail as { split?: SplitDetail; shardsDone?: number[] };
      const split = detail.split;
      if (!split || split.parts.length !== shard.count)
        throw new Error(`load job ${job.id} has no plan of ${shard.count} parts`);
      let done = detail.shardsDone?.includes(shard.index) ? detail.shardsDone.length : undefined;
      if (done === undefined) {
        const part = await runLoadPart(deps, view, split, shard.index, signal);
        await mergeJobDetail(c.db, job.id, { [`part${shard.index}`]: part });
        done = await markShardDone(c.db, job.id, shard.index, c.clock.now());
        if (done === undefined) return undefined;
        deps.log.info('load part done', { part: shard.index, of: shard.count, ...part });
      }
      if (done < shard.count) return undefined;
      const result = await combineSplitLoad(deps, job, view, split, signal);
      return afterLoad(c, view, job, result);
    },
    async abandon(job) {
      const split = (job.detail as { split?: SplitDetail }).split;
      const view = await readDeployedView(systemCaller(), c.db, job.dataViewId);
      if (split) await abandonSplitLoad(c.db, view.schema, split.tag);
    },
  };
  return (deps, message, receiveCount, signal) => runShardAttempt(deps, message, work, receiveCount, signal);
}
