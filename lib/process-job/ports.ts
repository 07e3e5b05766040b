/** What the process job needs of the service: the database, the queue its shard messages go on, a clock, its settings. */
import type { Config } from '../config/config';
import type { Database } from '../db/database';
import type { JobQueue } from '../queue/port';
import type { Clock } from '../shared/clock';

export interface ProcessJobDeps {
  db: Database;
  queue: Pick<JobQueue, 'send'>;
  clock: Clock;
  config: Pick<Config, 'detection'>;
}
