/** The migrate task's use case: migrations after a deploy, and the first admin of a new deployment. */
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUpDatabase } from '../../lib/app/setup';
import { connectDatabase } from '../../lib/db/connect';
import { migrations } from '../../lib/db/migrations/index';
import { verifyPassword } from '../../lib/identity/passwords';
import { createTestDatabase, type TestDatabase } from '../support/db';

async function passwordHash(t: TestDatabase, email: string): Promise<string | undefined> {
  const [row] = await t.db.rows<{ password_hash: string; role: string }>(
    sql`SELECT password_hash, role FROM users WHERE email = ${email}`,
  );
  return row && row.role === 'admin' ? row.password_hash : undefined;
}

describe('setting up the database of a deployment', () => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase();
  });
  afterEach(async () => t.drop());

  it('applies every migration to an empty database, and none the second time', async () => {
    const empty = await connectDatabase({});
    try {
      expect((await setUpDatabase(empty)).applied).toEqual(migrations.map((m) => m.name));
      expect((await setUpDatabase(empty)).applied).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it('creates the first admin with a generated password that is answered once and signs in', async () => {
    const result = await setUpDatabase(t.db, { admin: { email: 'ops@example.com' } });

    expect(result.admin).toMatchObject({ email: 'ops@example.com', status: 'created' });
    const password = result.admin?.password as string;
    expect(await verifyPassword(password, await passwordHash(t, 'ops@example.com'))).toBe(true);
  });

  it('never changes an account that already exists', async () => {
    await setUpDatabase(t.db, { admin: { email: 'ops@example.com', password: 'first-password' } });

    const again = await setUpDatabase(t.db, {
      admin: { email: 'ops@example.com', password: 'second-password' },
    });

    expect(again.admin).toEqual({ email: 'ops@example.com', status: 'kept' });
    expect(await verifyPassword('first-password', await passwordHash(t, 'ops@example.com'))).toBe(true);
  });

  it('refuses an admin without a usable e-mail address, naming the field', async () => {
    await expect(setUpDatabase(t.db, { admin: { email: 'not-an-address' } })).rejects.toMatchObject({
      errors: [{ path: 'admin.email', message: 'must be an e-mail address' }],
    });
    expect(await t.db.rows(sql`SELECT 1 FROM users`)).toEqual([]);
  });
});
