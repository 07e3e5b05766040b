/**
 * `npm start`: the whole local service on the embedded database.
 * Opens PGlite in DATA_DIR and serves it on 127.0.0.1, migrates and seeds it, then runs the functions
 * with serverless-offline (same handlers as on AWS) on PORT and prints how to sign in.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../lib/config/config';
import { connectDatabase } from '../lib/db/connect';
import { verifyStoredSecrets } from '../lib/connectors/service';
import { seedLocalUsers } from '../lib/identity/seed';
import { LOCAL_FUNCTION_NAMES } from '../lib/queue/local';
import { createSecretStore } from '../lib/secrets/index';
import { seedDemo } from './demo/seed';
import { startDemoSource } from './demo/source';
import { loadOrCreateLocalKeys } from './local/keys';
import { servePglite } from './local/pglite-server';
import { freePort, portIsFree } from './local/ports';
import { ensureWebBuilt } from './local/web-build';
import { startScheduleTimer } from './local/schedule-timer';

const root = path.resolve(import.meta.dirname, '..');

async function waitForHealth(
  url: string,
  child: { exitCode: number | null },
  timeoutMs: number,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null)
      throw new Error('serverless offline exited during start-up (see its output above)');
    try {
      const r = await fetch(`${url}/api/v1/health`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the API did not answer ${url}/api/v1/health within ${timeoutMs / 1000} s`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfig();
  if (!(await portIsFree(config.port))) {
    throw new Error(`port ${config.port} is in use; set PORT to another port`);
  }
  if (config.webBuild === 'auto') ensureWebBuilt(root);
  mkdirSync(config.dataDir, { recursive: true });
  const keys = loadOrCreateLocalKeys(config.dataDir, {
    jwtSecret: config.auth.jwtSecret,
    masterKey: config.secrets.masterKey,
  });

  let databaseUrl = config.databaseUrl;
  let served: Awaited<ReturnType<typeof servePglite>> | undefined;
  if (!databaseUrl) {
    console.log(`Opening the embedded database in ${path.join(config.dataDir, 'service-db')} …`);
    served = await servePglite(path.join(config.dataDir, 'service-db'));
    databaseUrl = served.url;
  }
  const db = await connectDatabase({ databaseUrl, migrate: true, maxConnections: 2 });
  try {
    if (config.secrets.backend === 'local') {
      await verifyStoredSecrets({
        db,
        secrets: createSecretStore({ backend: 'local', masterKey: keys.masterKey }),
      });
    }
  } catch (e) {
    await db.close();
    await served?.close();
    throw e;
  }
  const accounts = await seedLocalUsers(db, config.seed);
  await db.close();
  const demo = config.demo ? await startDemoSource(config.dataDir) : undefined;

  const lambdaPort = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    JWT_SECRET: keys.jwtSecret,
    MASTER_KEY: keys.masterKey,
    DATA_DIR: config.dataDir,
    PORT: String(config.port),
    LOCAL_LAMBDA_PORT: String(lambdaPort),
    LOCAL_LAMBDA_ENDPOINT: `http://127.0.0.1:${lambdaPort}`,
    WEB_ROOT: path.join(root, 'web/dist'),
  };
  const bin = path.join(root, 'node_modules/.bin/serverless');
  const child = spawn(bin, ['offline', 'start', '--stage', 'local'], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  const stopSchedules = startScheduleTimer(env.LOCAL_LAMBDA_ENDPOINT, [
    { functionName: LOCAL_FUNCTION_NAMES.cronLoads, everyMs: 60_000 },
  ]);
  const stop = async (code: number) => {
    if (child.exitCode === null) child.kill('SIGTERM');
    stopSchedules();
    await demo?.close().catch(() => {});
    await served?.close().catch(() => {});
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  child.on('exit', (code) => void stop(code ?? 1));

  const url = `http://127.0.0.1:${config.port}`;
  await waitForHealth(url, child, 120_000);
  const admin = accounts.find((a) => a.role === 'admin')!;
  const demoLines = !demo
    ? []
    : await seedDemo({ url, admin, connString: demo.connString }).catch((e) => [
        `  Demo: not seeded (${(e as Error).message})`,
      ]);
  const lines = [
    '',
    `Anomaly monitor is running at ${url} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    `  API reference: ${url}/api/v1/docs`,
    `  Database:      ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`}`,
    ...demoLines,
    '  Sign in with:',
    ...accounts.map(
      (a) =>
        `    ${a.role.padEnd(9)} ${a.email}  password: ${a.password}${a.generated ? '  (generated; set SEED_' + (a.role === 'admin' ? 'ADMIN' : 'USER') + '_PASSWORD to choose)' : ''}`,
    ),
    `  Token: curl -s -X POST ${url}/api/v1/auth/token -H 'content-type: application/json' -d '{"email":"${accounts[0].email}","password":"${accounts[0].password}"}'`,
    'Press Ctrl+C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}

main().catch((e) => {
  console.error(`npm start failed: ${(e as Error).message}`);
  process.exit(1);
});
