/** Every minute: enqueue the cron loads that are due, and recover jobs whose worker stopped. */
import { getContainer } from '../../lib/app/container';
import { scheduleTick } from '../../lib/jobs/schedule';

export const handler = async () => scheduleTick(await getContainer());
