/** The every-minute schedule's call into alerts (after a detection cycle, lib/app/workers.ts calls alertsAfterDetection). */
import type { Container } from '../app/container';
import { logger } from '../shared/logger';
import type { AlertDeps } from './deliveries';
import { alertsTick } from './digests';

export function alertDeps(c: Container, log = logger): AlertDeps {
  return { db: c.db, secrets: c.secrets, clock: c.clock, timeZone: c.config.timeZone, log };
}

/** Every minute (the cron schedule): due digests and retries. */
export async function alertsScheduleTick(c: Container): Promise<unknown> {
  try {
    return await alertsTick(alertDeps(c));
  } catch (e) {
    logger.error('alert schedule failed', { error: e });
    return { error: (e as Error).message };
  }
}
