/** The two places the rest of the service calls alerts from: after a detection cycle, and the every-minute schedule. */
import type { Container } from '../app/container';
import { readViews } from '../dataviews/scope';
import { systemCaller } from '../identity/caller';
import { logger } from '../shared/logger';
import { type AlertDeps, alertsAfterDetection, alertsTick } from './deliver';

export function alertDeps(c: Container, log = logger): AlertDeps {
  return { db: c.db, secrets: c.secrets, clock: c.clock, timeZone: c.config.timeZone, log };
}

/** After a successful detection cycle of the view; a failure is reported in the job detail, never fails the job. */
export async function alertsAfterCycle(c: Container, dataViewId: number, jobId: number): Promise<unknown> {
  const log = logger.child({ jobId });
  try {
    const [view] = await readViews(systemCaller(), c.db, { ids: [dataViewId] });
    if (!view) return [];
    return await alertsAfterDetection(alertDeps(c, log), view);
  } catch (e) {
    log.error('alerts not sent after detection', { error: e });
    return { error: (e as Error).message };
  }
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
