/** The every-minute schedule's call into alerts (after a detection cycle, lib/app/workers.ts calls alertsAfterDetection). */
import { logger } from '../shared/logger';
import type { AlertDeps } from './deliveries';
import { alertsTick } from './digests';

/** Every minute (the cron schedule): due digests and retries. */
export async function alertsScheduleTick(deps: AlertDeps): Promise<unknown> {
  try {
    return await alertsTick(deps);
  } catch (e) {
    logger.error('alert schedule failed', { error: e });
    return { error: (e as Error).message };
  }
}
