/** The load worker: SQS events of the load queue (Load and CustomLoad jobs), partial batch failures reported. */
import { jobWorker } from '../../lib/jobs/worker';
import { loadJob } from '../../lib/pipeline/load-job';
import { registerWorker } from '../../lib/queue/local';
import { observed } from '../../lib/shared/observability';

export const handler = observed(jobWorker('load', loadJob));
registerWorker('load', handler);
