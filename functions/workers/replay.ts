/** The replay worker: SQS events of the replay queue (Replay jobs: a changed definition detected in memory, compared, nothing published). */
import { workerHandlers } from '../../lib/app/workers';
import { observed } from '../../lib/shared/observability';
import { withWorkers } from '../container';
import { withMemoryProbe } from './memory-probe';

export const handler = observed(withMemoryProbe('replay', withWorkers(workerHandlers).replay));
