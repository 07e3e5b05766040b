/** The process worker: SQS events of the process queue (detection jobs and their shards), partial batch failures reported. */
import { workerHandlers } from '../../lib/app/workers';
import { observed } from '../../lib/shared/observability';
import { getContainer } from '../container';

export const handler = observed(workerHandlers(getContainer).process);
