/**
 * The dead-letter worker: a job whose message exhausted its deliveries is marked failed, and what a
 * crashed attempt left behind (a detection run's staging table) is dropped.
 */
import { deadLetterWorker } from '../../lib/jobs/worker';
import { abandonJob } from '../../lib/process-job/job';
import { registerWorker } from '../../lib/queue/local';
import { observed } from '../../lib/shared/observability';

export const handler = observed(deadLetterWorker(abandonJob));
registerWorker('deadLetters', handler);
