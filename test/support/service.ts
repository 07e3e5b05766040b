/** The whole HTTP service in this process on 127.0.0.1, over a fresh test database, with seeded accounts. */
import { setContainer } from '../../functions/container';
import { buildContainer, type Container } from '../../lib/app/container';
import { workerHandlers } from '../../lib/app/workers';
import { loadConfig } from '../../lib/config/config';
import { inject } from 'vitest';
import { users } from '../../lib/db/tables/identity';
import { ADMIN, USER } from './accounts';
import { startGateway, type Gateway } from '../../scripts/local/gateway';
import { httpFunctions } from '../../functions/http/registry';
import * as system from '../../functions/http/system';
import { createTestDatabase, type TestDatabase } from './db';

export { ADMIN, USER } from './accounts';

export interface TestService {
  url: string;
  container: Container;
  testDb: TestDatabase;
  adminToken: string;
  userToken: string;
  /** JSON request; `auth` is a token, `{ apiKey }`, or null for none. */
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  stop(): Promise<void>;
}

export interface CallOptions {
  auth?: string | { apiKey: string } | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export interface TestServiceOptions {
  /** Run the job workers in this process (the local queue delivers to them): queued jobs really load and analyse. */
  workers?: boolean;
}

/** The token secret of the test service (a test signs its own tokens with it). */
export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256';

export async function startTestService(
  env: Record<string, string> = {},
  options: TestServiceOptions = {},
): Promise<TestService> {
  const testDb = await createTestDatabase();
  const config = loadConfig({
    JWT_SECRET: TEST_JWT_SECRET,
    MASTER_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    LOG_LEVEL: 'silent',
    SERVICE_STAGE: 'test',
    DATA_DIR: '/tmp/anomaly-monitor-test',
    ...env,
  });
  const container = await buildContainer(
    config,
    { db: testDb.db },
    options.workers ? { workers: (c) => workerHandlers(async () => c) } : {},
  );
  setContainer(container);
  // The two accounts npm start seeds, with their passwords hashed once for the whole run (test/global-setup.ts).
  const hashes = inject('testAccountHashes');
  const seeded = await testDb.db.orm
    .insert(users)
    .values([
      { email: ADMIN.email, role: 'admin', passwordHash: hashes.admin },
      { email: USER.email, role: 'data-user', passwordHash: hashes.user },
    ])
    .returning();
  const gateway: Gateway = await startGateway([
    {
      name: 'system',
      prefixes: ['/api/v1/health', '/api/v1/openapi.json', '/api/v1/docs'],
      handler: system.handler as never,
    },
    ...httpFunctions,
  ]);

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (typeof opts.auth === 'string') headers.authorization = `Bearer ${opts.auth}`;
    else if (opts.auth && 'apiKey' in opts.auth) headers['x-api-key'] = opts.auth.apiKey;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(gateway.url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  };

  // The tokens a sign-in would answer, issued by the service's own token service (the sign-in itself is
  // the auth tests' subject; here it would cost two more password checks per file).
  const token = (who: { email: string }) => {
    const u = seeded.find((x) => x.email === who.email)!;
    return container.tokens.issue({ id: u.id, email: u.email, role: u.role, tokenVersion: u.tokenVersion });
  };

  return {
    url: gateway.url,
    container,
    testDb,
    adminToken: await token(ADMIN),
    userToken: await token(USER),
    call,
    async stop() {
      await gateway.close();
      setContainer(undefined);
      await testDb.drop();
    },
  };
}
