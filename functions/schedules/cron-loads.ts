/** Every minute: enqueue the cron loads that are due, and recover jobs whose worker stopped. */
import { getContainer } from '../container';
import { alertsScheduleTick } from '../../lib/alerts/hooks';
import { alertDeps } from '../../lib/app/deps';
import { scheduleTick } from '../../lib/jobs/schedule';
import { observed } from '../../lib/shared/observability';

export const handler = observed(async () => {
  const c = await getContainer();
  const result = await scheduleTick(c);
  return { ...result, alerts: await alertsScheduleTick(alertDeps(c)) };
});
