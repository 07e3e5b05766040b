/** The process worker: SQS events of the process queue (detection jobs), partial batch failures reported. */
import { jobWorker } from '../../lib/jobs/worker';
import { processJob, processShards } from '../../lib/process-job/job';
import { registerWorker } from '../../lib/queue/local';
import { observed } from '../../lib/shared/observability';

export const handler = observed(jobWorker('process', processJob, processShards));
registerWorker('process', handler);
