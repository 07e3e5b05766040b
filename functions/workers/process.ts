/** The process worker: SQS events of the process queue (detection jobs and their shards), partial batch failures reported. */
import { workerHandlers } from '../../lib/app/workers';
import { observed } from '../../lib/shared/observability';
import { withWorkers } from '../container';
import { withMemoryProbe } from './memory-probe';

export const handler = observed(withMemoryProbe('process', withWorkers(workerHandlers).process));
