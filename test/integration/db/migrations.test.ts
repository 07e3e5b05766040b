import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../lib/db/migrate';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';

describe(`service database on ${backendName}`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('has every table after migrating', async () => {
    const rows = await t.db.rows<{ table_name: string }>(
      sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        'users',
        'api_keys',
        'data_views',
        'connectors',
        'comments',
        'jobs',
        'filters',
      ]),
    );
  });

  it('applies nothing twice', async () => {
    expect(await migrate(t.db)).toEqual([]);
  });

  it('undoes everything written in a transaction that throws', async () => {
    await expect(
      t.db.tx(async (tx) => {
        await tx.rows(sql`INSERT INTO users (email, role) VALUES ('x@example.com', 'admin')`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const rows = await t.db.rows(sql`SELECT 1 FROM users WHERE email = 'x@example.com'`);
    expect(rows).toHaveLength(0);
  });
});
