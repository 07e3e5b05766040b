/**
 * `npm start`: the whole local service on the embedded database.
 * Opens PGlite in DATA_DIR and serves it on 127.0.0.1, migrates and seeds it, then runs the functions
 * with serverless-offline (same handlers as on AWS) on PORT and prints how to sign in.
 * Quiet: serverless-offline's route table and per-invocation lines go to DATA_DIR/service.log
 * (LOG_LEVEL=debug shows them on the console instead); the console gets a banner of at most 15 lines.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../lib/config/config';
import { connectDatabase } from '../lib/db/connect';
import { verifyStoredSecrets } from '../lib/connectors/service';
import { seedLocalUsers } from '../lib/identity/seed';
import { LOCAL_FUNCTION_NAMES } from '../lib/queue/local';
import { createSecretStore } from '../lib/secrets/index';
import { seedDemo } from './demo/seed';
import { startDemoSource } from './demo/source';
import { configuredMemory, usageMeter } from './local/billing';
import { startLocalEventSource } from './local/event-source';
import { loadOrCreateLocalKeys } from './local/keys';
import { servePglite } from './local/pglite-server';
import { freePort, portIsFree } from './local/ports';
import { ensureWebBuilt } from './local/web-build';
import { startScheduleTimer } from './local/schedule-timer';

const root = path.resolve(import.meta.dirname, '..');

/** The last lines of the service log, shown when the functions do not come up. */
function logTail(file: string | undefined, lines = 25): string {
  if (!file) return '';
  try {
    const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    return text ? `\n--- last lines of ${file} ---\n${text}` : '';
  } catch {
    return '';
  }
}

async function waitForHealth(
  url: string,
  child: { exitCode: number | null },
  timeoutMs: number,
  logFile: string | undefined,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  const where = logFile ? `see ${logFile}` : 'see its output above';
  while (Date.now() < until) {
    if (child.exitCode !== null)
      throw new Error(`serverless offline exited during start-up (${where})${logTail(logFile)}`);
    try {
      const r = await fetch(`${url}/api/v1/health`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(
    `the API did not answer ${url}/api/v1/health within ${timeoutMs / 1000} s (${where})${logTail(logFile)}`,
  );
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
  const meter = usageMeter(configuredMemory(path.join(root, 'serverless.yml')));
  const usageFile = path.join(config.dataDir, 'usage.json');
  writeFileSync(usageFile, '{}');
  // Workers' and schedules' invocations go through the local event source, which caps how many of one
  // function run at once, as SQS's event source does on AWS.
  const events = await startLocalEventSource({
    upstream: `http://127.0.0.1:${lambdaPort}`,
    concurrency: config.localWorkerConcurrency,
    functions: Object.values(LOCAL_FUNCTION_NAMES),
    onError: (fn, e) => console.error(`local invocation of ${fn} failed: ${e.message}`),
    // What each worker invocation would be billed on AWS, kept in DATA_DIR/usage.json (scripts/local/billing.ts).
    onFinished: (fn, ms) => {
      meter.record(fn, ms);
      writeFileSync(usageFile, JSON.stringify(meter.snapshot(), null, 1));
    },
  });
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    JWT_SECRET: keys.jwtSecret,
    MASTER_KEY: keys.masterKey,
    DATA_DIR: config.dataDir,
    PORT: String(config.port),
    LOCAL_LAMBDA_PORT: String(lambdaPort),
    LOCAL_LAMBDA_ENDPOINT: events.url,
    WEB_ROOT: path.join(root, 'web/dist'),
  };
  const bin = path.join(root, 'node_modules/.bin/serverless');
  // The functions' own output (route table, one block per invocation, JSON logs) is long: it goes to a
  // log file unless LOG_LEVEL=debug asks for everything on the console.
  const verbose = config.logLevel === 'debug';
  const logFile = verbose ? undefined : path.join(config.dataDir, 'service.log');
  const child = spawn(bin, ['offline', 'start', '--stage', 'local'], {
    cwd: root,
    env,
    stdio: ['ignore', verbose ? 'inherit' : 'pipe', verbose ? 'inherit' : 'pipe'],
  });
  if (logFile) {
    const log = createWriteStream(logFile, { flags: 'a' });
    log.write(`\n=== npm start ${new Date().toISOString()} ===\n`);
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
  }

  let stopSchedules = () => {};
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (child.exitCode === null) {
      // Wait (briefly) for serverless-offline to stop, so that nothing of it outlives npm start.
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    }
    stopSchedules();
    await events.close().catch(() => {});
    await demo?.close().catch(() => {});
    await served?.close().catch(() => {});
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  child.on('exit', (code) => {
    if (!stopping)
      console.error(`The functions stopped (exit code ${code})${logFile ? `; see ${logFile}` : ''}.`);
    void stop(code ?? 1);
  });

  const url = `http://127.0.0.1:${config.port}`;
  // Five minutes: a first start builds and loads every function, slow on a busy machine.
  await waitForHealth(url, child, 300_000, logFile);
  // The schedule starts once the functions answer: a tick before that finds nothing listening.
  stopSchedules = startScheduleTimer(env.LOCAL_LAMBDA_ENDPOINT, [
    { functionName: LOCAL_FUNCTION_NAMES.cronLoads, everyMs: 60_000 },
  ]);
  const admin = accounts.find((a) => a.role === 'admin')!;
  const user = accounts.find((a) => a.role === 'data-user');
  const demoLines = !demo
    ? ['  Demo:          off (DEMO=off)']
    : await seedDemo({ url, admin, user, connString: demo.connString, anchor: demo.anchor }).catch((e) => [
        `  Demo: not seeded (${(e as Error).message})`,
      ]);
  const generated = accounts.some((a) => a.generated);
  const lines = [
    `Anomaly monitor is running at ${url} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    `  API reference: ${url}/api/v1/docs`,
    `  Database:      ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${path.join(config.dataDir, 'service-db')}`}`,
    ...demoLines,
    `  Log:           ${logFile ?? 'on the console (LOG_LEVEL=debug)'}`,
    '  Sign in with:',
    ...accounts.map((a) => `    ${a.role.padEnd(9)} ${a.email}  password: ${a.password}`),
    ...(generated
      ? ['    (passwords are generated at each start; set SEED_ADMIN_PASSWORD / SEED_USER_PASSWORD)']
      : []),
    'Press Ctrl+C to stop.',
  ];
  console.log(lines.join('\n'));
}

main().catch((e) => {
  console.error(`npm start failed: ${(e as Error).message}`);
  process.exit(1);
});
