/** Sign-in protection: throttling per account and per address, dummy hashing for unknown e-mails, scrypt N = 2^17, token versions. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lockSeconds, THROTTLE } from '../../../lib/identity/sign-in-throttle';
import { ADMIN, startTestService, type TestService } from '../../support/service';

const verifyCalls = vi.hoisted(() => [] as string[]);
vi.mock('../../../lib/identity/passwords', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../lib/identity/passwords')>();
  return {
    ...real,
    verifyPassword: async (password: string, stored: string | null | undefined) => {
      verifyCalls.push(stored ?? '');
      return real.verifyPassword(password, stored);
    },
  };
});

describe('sign-in protection', () => {
  let s: TestService;
  // The test gateway reports every request from 127.0.0.1 (client headers are never trusted); a fresh address is simulated by clearing its row.
  const signIn = (email: string, password: string) =>
    s.call('POST', '/api/v1/auth/token', { body: { email, password } });
  const clearAddress = () => s.testDb.db.rows(sql`DELETE FROM sign_in_throttle WHERE key LIKE 'address:%'`);

  beforeAll(async () => {
    s = await startTestService();
  });
  afterAll(() => s?.stop());

  // Scrypt checks of 128 MiB each, one after the other: over a minute at load 19.
  it('answers 429 with Retry-After after a few failures of one account, even to the right password, with growing delays', async () => {
    await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'eve@example.com', role: 'data-user', password: 'eve-password-1' },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await signIn('eve@example.com', `wrong-${i}`)).status);
    expect(statuses.slice(0, THROTTLE.accountFreeFailures)).toEqual(
      Array(THROTTLE.accountFreeFailures).fill(401),
    );
    expect(statuses.slice(THROTTLE.accountFreeFailures)).toEqual(
      Array(20 - THROTTLE.accountFreeFailures).fill(429),
    );
    const locked = await signIn('eve@example.com', 'eve-password-1');
    expect(locked.status).toBe(429);
    expect(locked.headers.get('content-type')).toContain('application/problem+json');
    const first = Number(locked.headers.get('retry-after'));
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(THROTTLE.baseDelaySeconds);
    // The lock runs out (moved into the past); the next failure locks for longer.
    await s.testDb.db.rows(sql`UPDATE sign_in_throttle SET locked_until = now() - interval '1 second'`);
    expect((await signIn('eve@example.com', 'wrong-again')).status).toBe(401);
    const second = Number((await signIn('eve@example.com', 'eve-password-1')).headers.get('retry-after'));
    expect(second).toBeGreaterThan(THROTTLE.baseDelaySeconds);
    expect(lockSeconds(THROTTLE.accountFreeFailures + 1, THROTTLE.accountFreeFailures)).toBe(
      2 * lockSeconds(THROTTLE.accountFreeFailures, THROTTLE.accountFreeFailures),
    );
    expect(lockSeconds(1000, 5)).toBe(THROTTLE.maxDelaySeconds);
    // Once the lock is over, the right password works and clears the account's count.
    await s.testDb.db.rows(sql`UPDATE sign_in_throttle SET locked_until = now() - interval '1 second'`);
    await clearAddress();
    expect((await signIn('eve@example.com', 'eve-password-1')).status).toBe(200);
    const rows = await s.testDb.db.rows(
      sql`SELECT 1 FROM sign_in_throttle WHERE key = 'account:eve@example.com'`,
    );
    expect(rows).toEqual([]);
  }, 180_000);

  // 22 scrypt checks of 128 MiB each, one after the other: 2-4 s each at load 15.
  it('throttles one client address trying many accounts', async () => {
    await clearAddress();
    const statuses: number[] = [];
    for (let i = 0; i < THROTTLE.addressFreeFailures + 2; i++)
      statuses.push((await signIn(`nobody-${i}@example.com`, 'guess')).status);
    expect(statuses.filter((x) => x === 401)).toHaveLength(THROTTLE.addressFreeFailures);
    expect(statuses.at(-1)).toBe(429);
    // The same address is refused for an account it never tried, even the admin with the right password.
    expect((await signIn(ADMIN.email, ADMIN.password)).status).toBe(429);
    await clearAddress();
    expect((await signIn(ADMIN.email, ADMIN.password)).status).toBe(200);
  }, 180_000);

  it('counts parallel guesses before checking them: no more than the free failures reach the password check', async () => {
    await clearAddress();
    verifyCalls.length = 0;
    const guesses = 12;
    const statuses = await Promise.all(
      Array.from({ length: guesses }, (_, i) =>
        signIn('mallory@example.com', `guess-${i}`).then((r) => r.status),
      ),
    );
    expect(statuses.filter((x) => x === 401)).toHaveLength(THROTTLE.accountFreeFailures);
    expect(statuses.filter((x) => x === 429)).toHaveLength(guesses - THROTTLE.accountFreeFailures);
    expect(verifyCalls).toHaveLength(THROTTLE.accountFreeFailures);
  });

  it('prunes keys that have been quiet for the window: unknown e-mails do not grow the table forever', async () => {
    await clearAddress();
    await s.testDb.db.rows(sql`INSERT INTO sign_in_throttle (key, failures, last_failure_at)
      SELECT 'account:old-' || i || '@example.com', 3, now() - interval '2 hours' FROM generate_series(1, 50) i`);
    await s.testDb.db.rows(sql`INSERT INTO sign_in_throttle (key, failures, last_failure_at, locked_until)
      VALUES ('account:still-locked@example.com', 9, now() - interval '2 hours', now() + interval '5 minutes')`);
    expect((await signIn('fresh-guess@example.com', 'x')).status).toBe(401);
    const left = await s.testDb.db.rows<{ key: string }>(
      sql`SELECT key FROM sign_in_throttle WHERE key LIKE 'account:old-%' OR key = 'account:still-locked@example.com'`,
    );
    expect(left.map((r) => r.key)).toEqual(['account:still-locked@example.com']);
  });

  it('checks a password against a dummy scrypt hash when the e-mail is unknown', async () => {
    await clearAddress();
    verifyCalls.length = 0;
    expect((await signIn('unknown-person@example.com', 'whatever')).status).toBe(401);
    expect(verifyCalls).toHaveLength(1);
    expect(verifyCalls[0]).toMatch(/^scrypt\$131072\$8\$1\$/);
  });

  it('hashes with scrypt N = 2^17 and upgrades an older hash at sign-in', async () => {
    const [admin] = await s.testDb.db.rows<{ password_hash: string }>(
      sql`SELECT password_hash FROM users WHERE email = ${ADMIN.email}`,
    );
    expect(admin.password_hash.split('$')[1]).toBe(String(2 ** 17));
    expect(Number(admin.password_hash.split('$')[1])).toBeGreaterThanOrEqual(2 ** 17);
    // An account hashed with the earlier N = 2^14 still signs in, and comes out rehashed.
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const old = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync('old-password-1', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
    await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'old@example.com', role: 'data-user', password: 'placeholder-1' },
    });
    await s.testDb.db.rows(sql`UPDATE users SET password_hash = ${old} WHERE email = 'old@example.com'`);
    await clearAddress();
    expect((await signIn('old@example.com', 'old-password-1')).status).toBe(200);
    const [row] = await s.testDb.db.rows<{ password_hash: string }>(
      sql`SELECT password_hash FROM users WHERE email = 'old@example.com'`,
    );
    expect(row.password_hash.split('$')[1]).toBe(String(2 ** 17));
  });

  it('ends the tokens issued before a password change or a disable', async () => {
    await clearAddress();
    const created = await s.call('POST', '/api/v1/users', {
      auth: s.adminToken,
      body: { email: 'tok@example.com', role: 'data-user', password: 'tok-password-1' },
    });
    const id = created.body.id as number;
    const token = (await signIn('tok@example.com', 'tok-password-1')).body.accessToken as string;
    expect((await s.call('GET', '/api/v1/auth/me', { auth: token })).status).toBe(200);
    await s.call('PUT', `/api/v1/users/${id}`, { auth: s.adminToken, body: { password: 'tok-password-2' } });
    const after = await s.call('GET', '/api/v1/auth/me', { auth: token });
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/issued before a password change/);
    const fresh = (await signIn('tok@example.com', 'tok-password-2')).body.accessToken as string;
    expect((await s.call('GET', '/api/v1/auth/me', { auth: fresh })).status).toBe(200);
    // Disabled, then enabled again: the token from before the disable stays dead.
    await s.call('PUT', `/api/v1/users/${id}`, { auth: s.adminToken, body: { enabled: false } });
    await s.call('PUT', `/api/v1/users/${id}`, { auth: s.adminToken, body: { enabled: true } });
    expect((await s.call('GET', '/api/v1/auth/me', { auth: fresh })).status).toBe(401);
    expect((await signIn('tok@example.com', 'tok-password-2')).status).toBe(200);
  });
});
