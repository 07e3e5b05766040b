/** The load worker: SQS events of the load queue (Load and CustomLoad jobs), partial batch failures reported. */
import { workerHandlers } from '../../lib/app/workers';
import { observed } from '../../lib/shared/observability';
import { withWorkers } from '../container';
import { withMemoryProbe } from './memory-probe';

export const handler = observed(withMemoryProbe('load', withWorkers(workerHandlers).load));
