import { connectorDeps } from '../../lib/app/deps';
import { getContainer } from '../container';
import { testAllConnectors } from '../../lib/connectors/service';
import { logger } from '../../lib/shared/logger';
import { observed } from '../../lib/shared/observability';

/** EventBridge schedule: tests every connector (every few hours, CONNECTOR_TEST_INTERVAL_HOURS). */
export const handler = observed(testAll);

async function testAll(): Promise<{ tested: number; failed: number }> {
  const c = await getContainer();
  const results = await testAllConnectors({ ...connectorDeps(c), log: logger });
  const failed = results.filter((r) => !r.ok).length;
  logger.info('connector tests', { tested: results.length, failed });
  return { tested: results.length, failed };
}
