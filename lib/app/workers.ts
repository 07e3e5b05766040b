/**
 * The service's workers, one per queue, listed once: functions/workers/* export them as Lambda
 * handlers over their process's container (functions/container.ts `withWorkers`), which hands the same
 * list to its local queue's in-process delivery. Only the worker entrypoints and the tests that run jobs
 * in process import this list, so the other functions' bundles carry no job code.
 */
import { deadLetterWorker, jobWorker } from '../jobs/worker';
import { loadJob } from '../pipeline/load-job';
import { abandonJob, processJob, processShards } from '../process-job/job';
import type { WorkerHandler } from '../queue/local';
import type { WorkerName } from '../queue/port';
import type { Container } from './container';

/** The worker of each queue over the container `container` gives (built by the caller, never fetched here). */
export function workerHandlers(container: () => Promise<Container>): Record<WorkerName, WorkerHandler> {
  return {
    load: jobWorker(container, 'load', loadJob),
    process: jobWorker(container, 'process', processJob, processShards),
    deadLetters: deadLetterWorker(container, abandonJob),
  };
}
