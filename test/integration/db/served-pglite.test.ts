import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../lib/db/connect';
import type { Database } from '../../../lib/db/database';
import { type ServedPglite, servePglite } from '../../../scripts/local/pglite-server';

// npm start serves PGlite over a socket: the functions reach it through a URL, yet it stays the
// 32-bit embedded database, so the load and the detection read size their work_mem for it.
describe('the embedded database served by npm start', () => {
  let served: ServedPglite;
  let db: Database;
  beforeAll(async () => {
    served = await servePglite('memory://');
    db = await connectDatabase({ databaseUrl: served.url, maxConnections: 1 });
  });
  afterAll(async () => {
    await db.close();
    await served.close();
  });

  it('is known as pglite, not as a PostgreSQL server, behind its URL', async () => {
    expect(db.kind).toBe('pglite');
    const [r] = await db.rows<{ one: number }>(sql`SELECT 1 AS one`);
    expect(Number(r.one)).toBe(1);
  });
});
