/**
 * The service's workers, one per queue, listed once: functions/workers/* export them as Lambda
 * handlers over their process's container (functions/container.ts `withWorkers`), which hands the same
 * list to its local queue's in-process delivery. Only the worker entrypoints and the tests that run jobs
 * in process import this list, so the other functions' bundles carry no job code.
 *
 * Here too is what follows a published detection cycle: the after-cycle hooks, in the order they run.
 */
import { alertsAfterDetection } from '../alerts/collect';
import { readViews } from '../dataviews/scope';
import { systemCaller } from '../identity/caller';
import type { JobRow } from '../jobs/repository';
import { DETACHED } from '../jobs/runner';
import { deadLetterWorker, jobWorker } from '../jobs/worker';
import { loadJob, loadParts } from '../pipeline/load-job';
import { type AfterPublish, abandonJob, processJob, processShards } from '../process-job/job';
import type { WorkerHandler } from '../queue/local';
import type { WorkerName } from '../queue/port';
import { logger } from '../shared/logger';
import { regenerateSummariesForView } from '../summaries/service';
import { seriesSource } from '../dataset/series-store';
import { buildIncidents } from '../incidents/step';
import { runReplayJob } from '../replay/job';
import { type AfterCycleHook, runAfterCycle } from './after-cycle';
import type { Container } from './container';
import { alertDeps, loadJobDeps, summaryDeps } from './deps';

/**
 * What runs after every published detection cycle, in this order: a hook sees in `earlier` what the
 * hooks before it returned. A failing hook is reported in the job detail under its name, never fails the job.
 */
export function afterCycleHooks(c: Container): AfterCycleHook[] {
  return [
    // First: alerts and summaries speak of incidents.
    {
      name: 'incidents',
      run: async ({ view, job, log }) => {
        const r = await buildIncidents(
          { db: c.db, log },
          { id: view.id, source: seriesSource(view), categories: view.definition.categories },
          job.id,
        );
        return { incidents: r.incidents, created: r.created, explained: r.explained, ms: Math.round(r.ms) };
      },
    },
    {
      name: 'summaries',
      run: ({ view, log, signal }) => regenerateSummariesForView(summaryDeps(c, log), view, { signal }),
    },
    {
      name: 'alerts',
      // One message per incident first seen in this cycle (none when the incidents hook failed).
      run: ({ view, log, signal, earlier }) =>
        alertsAfterDetection(
          alertDeps(c, log),
          view,
          (earlier.incidents as { created?: number[] } | undefined)?.created ?? [],
          { signal },
        ),
    },
  ];
}

/** The after-cycle hooks over `c`, as the process job's continuation after it published. */
function afterPublish(c: Container): AfterPublish {
  const readView = async (id: number) => (await readViews(systemCaller(), c.db, { ids: [id] }))[0];
  return (job, signal) => runAfterCycle({ readView, log: logger }, afterCycleHooks(c), job, signal);
}

/**
 * The process worker's work on the job's own message: detection, then the hooks when it published here.
 * A replay queued on the process queue before replays had a queue of their own is run as the replay worker runs it.
 */
export async function processCycle(
  c: Container,
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown> | typeof DETACHED> {
  if (job.kind === 'Replay') return replayCycle(c, job, signal);
  const detail = await processJob(c, job, signal);
  if (detail === DETACHED) return detail;
  return { ...detail, ...(await afterPublish(c)(job, signal)) };
}

/** The replay worker's work: a changed definition detected in memory and compared; it publishes nothing, no hook follows. */
export function replayCycle(
  c: Container,
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  return runReplayJob({ db: c.db, shardSize: c.config.detection.shardSize }, job, signal);
}

/** The worker of each queue over the container `container` gives (built by the caller, never fetched here). */
export function workerHandlers(container: () => Promise<Container>): Record<WorkerName, WorkerHandler> {
  return {
    load: jobWorker(
      container,
      'load',
      (c, job, signal) => loadJob(loadJobDeps(c), job, signal),
      (c) => loadParts(loadJobDeps(c)),
    ),
    process: jobWorker(container, 'process', processCycle, (c) => processShards(c, afterPublish(c))),
    replay: jobWorker(container, 'replay', replayCycle),
    deadLetters: deadLetterWorker(container, abandonJob),
  };
}
