/**
 * Run once after each deploy: `npx serverless invoke -f migrate --stage <stage>` applies pending migrations;
 * `--data '{"admin":{"email":"ops@example.com"}}'` also creates the first admin and answers its password once.
 */
import { getContainer } from '../container';
import { type SetupRequest, type SetupResult, setUpDatabase } from '../../lib/app/setup';
import { logger } from '../../lib/shared/logger';
import { observed } from '../../lib/shared/observability';

export const handler = observed(migrate);

async function migrate(event?: SetupRequest | null): Promise<SetupResult> {
  const c = await getContainer();
  const result = await setUpDatabase(c.db, event ?? {});
  logger.info('database set up', {
    applied: result.applied,
    admin: result.admin?.email,
    status: result.admin?.status,
  });
  return result;
}
