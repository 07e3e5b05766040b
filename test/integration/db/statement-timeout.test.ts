/**
 * A query that outlives the connection's statement_timeout (the HTTP functions on AWS set 25 s) ends as a
 * 503 problem that says what to do, not as a function timeout or a generic 500. PostgreSQL only: the
 * embedded PGlite runs without statement timeouts.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { connectDatabase, poolOptions } from '../../../lib/db/connect';
import { problemFor } from '../../../lib/http/problem';

describe('statement timeout', () => {
  it('sets statement_timeout on every connection only when asked', () => {
    expect(poolOptions({ statementTimeoutMs: 25_000 })).toMatchObject({
      connection: { statement_timeout: 25_000 },
    });
    expect(poolOptions({})).not.toHaveProperty('connection');
  });

  it('maps a query stopped by statement_timeout (57014, anywhere in the cause chain) to a 503 problem', () => {
    const stopped = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
      severity: 'ERROR',
    });
    const wrapped = new Error('Failed query: select …', { cause: stopped });
    const p = problemFor(wrapped, 'req-1');
    expect(p).toMatchObject({ status: 503, title: 'Service Unavailable', requestId: 'req-1' });
    expect(p.detail).toMatch(/longer than the service allows/);
    // Anything else stays a generic 500.
    expect(problemFor(new Error('boom'), 'req-2').status).toBe(500);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'stops a query on PostgreSQL past the timeout and the answer is that problem',
    async () => {
      const db = await connectDatabase({ databaseUrl: process.env.DATABASE_URL, statementTimeoutMs: 200 });
      try {
        const error = await db.rows(sql`SELECT pg_sleep(2)`).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeDefined();
        expect(problemFor(error, 'req-3').status).toBe(503);
        // A short query on the same pool still answers.
        await expect(db.rows(sql`SELECT 1 AS one`)).resolves.toEqual([{ one: 1 }]);
      } finally {
        await db.close();
      }
    },
  );
});
