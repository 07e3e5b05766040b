/**
 * The process job spread over workers: the job's own message plans the shards, creates the run's
 * staging table and sends one shard message per shard on the process queue; each shard worker
 * appends its anomalies and counts itself done in the job row (one transaction, so a redelivered
 * shard counts once); the worker that completes the count publishes (SIN, SIM, the atomic swap).
 * The view's previous anomalies stay as they were until that publish.
 */
import { sql } from 'drizzle-orm';
import type { ProcessJobDeps } from './ports';
import type { Database } from '../db/database';
import { dropStage, MEASURES, type Measure, stageTable } from './anomaly-store';
import {
  type DetectionDeps,
  detectShard,
  type PlanFindings,
  planRun,
  prepareRun,
  publishRun,
  type RunPlan,
  runSetups,
  runSummary,
  writeShard,
} from './run';
import { readDeployedView, readViews } from '../dataviews/scope';
import { systemCaller } from '../identity/caller';
import { findJob, type JobRow, markShardDone, mergeJobDetail, requeueJob } from '../jobs/repository';
import type { ShardRef } from '../queue/port';
import { logger } from '../shared/logger';

/** The detection deps of a job. */
export function detectionDeps(
  c: ProcessJobDeps,
  jobId: number,
  dataViewId: number,
  signal?: AbortSignal,
): DetectionDeps {
  return {
    db: c.db,
    log: logger.child({ jobId, dataViewId }),
    shardSize: c.config.detection.shardSize,
    signal,
    isRunning: async (id) => (await findJob(c.db, id))?.status === 'running',
  };
}

/** Whether the plan is worth spreading: fan-out on and more than one shard. */
export function fansOut(c: ProcessJobDeps, plan: RunPlan): boolean {
  return c.config.detection.fanOut && plan.shards.length > 1;
}

/** The coordinator: stages the run and sends its shard messages; the job stays running. */
export async function startFanOut(c: ProcessJobDeps, job: JobRow, plan: RunPlan): Promise<void> {
  const deps = detectionDeps(c, job.id, job.dataViewId);
  const count = plan.shards.length;
  try {
    await prepareRun(deps, plan, job.id);
    await mergeJobDetail(c.db, job.id, {
      shards: count,
      // Shard workers cut the series as the coordinator did, whatever their own setting says.
      shardSize: plan.shardSize,
      fingerprint: plan.layout.fingerprint,
      // What the plan found in the data: the shards (same fingerprint) take it instead of looking again.
      incompleteDays: plan.incompleteDays,
      measures: plan.measures,
      shardsDone: [],
    });
    for (let index = 0; index < count; index++) {
      const shard: ShardRef = { runId: job.id, index, count, attempt: job.attempts };
      await c.queue.send('process', { jobId: job.id, dataViewId: job.dataViewId, kind: 'Process', shard });
    }
  } catch (e) {
    // Shard messages already sent find the job pending (or a later attempt) and are dropped.
    await dropStage(c.db, plan.schema, job.id).catch(() => {});
    throw e;
  }
  deps.log.info('detection fanned out', { shards: count });
}

class AlreadyCounted extends Error {}

/** The coordinator's findings in a job detail, when it holds them whole and valid (else the shard looks again). */
export function knownFindings(detail: {
  incompleteDays?: unknown;
  measures?: unknown;
}): PlanFindings | undefined {
  const { incompleteDays, measures } = detail;
  if (typeof incompleteDays !== 'number' || !Number.isInteger(incompleteDays) || incompleteDays < 0)
    return undefined;
  if (
    !Array.isArray(measures) ||
    measures.length === 0 ||
    !measures.every((m) => MEASURES.includes(m)) ||
    new Set(measures).size !== measures.length
  )
    return undefined;
  return { incompleteDays, measures: measures as Measure[] };
}

/** One shard message: detect and append; the detail of the finished run when this shard was the last. */
export async function runFanOutShard(
  c: ProcessJobDeps,
  job: JobRow,
  shard: ShardRef,
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const started = performance.now();
  const log = logger.child({ jobId: job.id, shard: shard.index, of: shard.count });
  const view = await readDeployedView(systemCaller(), c.db, job.dataViewId);
  const detail = job.detail as {
    fingerprint?: string;
    shardsDone?: number[];
    shardSize?: number;
    incompleteDays?: number;
    measures?: Measure[];
  };
  const plan = await planRun(
    c.db,
    view,
    detail.shardSize ?? c.config.detection.shardSize,
    knownFindings(detail),
  );
  if (plan.layout.fingerprint !== detail.fingerprint || plan.shards.length !== shard.count) {
    // A load committed since the plan: the whole run starts again from the job's own message.
    log.info('the data of the view changed during detection; the process job runs again');
    await requeueJob(
      c.db,
      job.id,
      'the data of the view changed during detection (a load committed); detection runs again',
    );
    await c.queue.send('process', { jobId: job.id, dataViewId: job.dataViewId, kind: 'Process' });
    return undefined;
  }
  let done = detail.shardsDone?.includes(shard.index) ? detail.shardsDone.length : undefined;
  if (done === undefined) {
    signal.throwIfAborted();
    const planned = performance.now();
    // The setups (root series, feedback) are read beside the shard's series: the read time includes them.
    const setups = runSetups(c.db, plan);
    const times = { readMs: 0, detectMs: 0 };
    const result = await detectShard(c.db, plan, setups, shard.index, times);
    signal.throwIfAborted();
    const detected = performance.now();
    done = await c.db
      .tx(async (tx) => {
        await writeShard(tx, plan, shard.runId, result);
        const n = await markShardDone(tx, job.id, shard.index, c.clock.now());
        if (n === undefined) throw new AlreadyCounted();
        return n;
      })
      .catch((e) => {
        if (e instanceof AlreadyCounted) return undefined;
        throw e;
      });
    // Where a shard's time goes (the plan; the read, the setups read beside it; detection; the write; setup: the rest).
    log.info('detection shard done', {
      planMs: Math.round(planned - started),
      setupMs: Math.round(detected - planned - times.readMs - times.detectMs),
      readMs: Math.round(times.readMs),
      detectMs: Math.round(times.detectMs),
      writeMs: Math.round(performance.now() - detected),
      series: plan.shards[shard.index].seriesCount,
      anomalies: result.reduce((k, r) => k + r.result.anomalies.length, 0),
    });
    if (done === undefined) return undefined;
  } else if (done < shard.count) {
    return undefined; // a redelivered shard that another worker already counted
  }
  if (done < shard.count) return undefined;
  // The last shard (or its redelivery after a failed publish): publish once every shard is in.
  const [{ n }] = await c.db.rows<{ n: number }>(
    sql.raw(`SELECT count(*)::int AS n FROM ${stageTable(plan.schema, shard.runId)}`),
  );
  const publishing = performance.now();
  const published = await publishRun(c.db, plan, shard.runId);
  log.info('detection published', {
    anomalies: Number(n),
    publishMs: Math.round(performance.now() - publishing),
  });
  await dropStage(c.db, plan.schema, shard.runId).catch((e) =>
    log.warn('staging table not dropped', { error: e }),
  );
  return { ...runSummary(plan, Number(n), published), fannedOut: true };
}

/** After the job failed by a shard: its staging table goes. */
export async function abandonFanOut(c: ProcessJobDeps, job: JobRow, shard: ShardRef): Promise<void> {
  await abandonRun(c.db, job, shard.runId);
}

/** The staging table of a failed process job's run (the run id is the job id). */
export async function abandonRun(db: Database, job: JobRow, runId = job.id): Promise<void> {
  if (job.kind !== 'Process') return;
  // A view deleted since has no dataset left, so no staging table either.
  const [view] = await readViews(systemCaller(), db, { ids: [job.dataViewId] });
  if (view) await dropStage(db, view.schema, runId);
}
