/**
 * The dead-letter worker: a job whose message exhausted its deliveries is marked failed, and what a
 * crashed attempt left behind (a detection run's staging table) is dropped.
 */
import { workerHandlers } from '../../lib/app/workers';
import { observed } from '../../lib/shared/observability';
import { withWorkers } from '../container';

export const handler = observed(withWorkers(workerHandlers).deadLetters);
