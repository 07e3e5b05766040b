/**
 * The one way a test file says it cannot run here. A live test that needs what this machine may lack (a
 * PostgreSQL server at DATABASE_URL, Debian's chromium) reports one skipped test naming what it needs, so
 * the report shows why instead of a file that silently passes. Biome's noSkippedTests is off for this
 * file only (biome.json): anywhere else a skipped test fails `npm run lint`.
 */
import { describe, it } from 'vitest';

/** One skipped test titled with what is missing, inside `suite` when given. */
export function skippedBecause(reason: string, suite?: string): void {
  if (suite === undefined) it.skip(reason, () => {});
  else describe(suite, () => it.skip(reason, () => {}));
}
