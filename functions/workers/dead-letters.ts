/** The dead-letter worker: a job whose message exhausted its deliveries is marked failed. */
import { deadLetterWorker } from '../../lib/jobs/worker';
import { registerWorker } from '../../lib/queue/local';

export const handler = deadLetterWorker();
registerWorker('deadLetters', handler);
