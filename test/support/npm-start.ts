/**
 * `npm start` as a new user runs it, for the end-to-end tests: the real script (serverless-offline,
 * the embedded PGlite or the test server of DATABASE_URL) in a fresh DATA_DIR on a free port, with
 * esbuild bundles of its own, until it prints that it is ready.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/local/ports';
import { ensureWebBuilt } from '../browser/support';
import { createTestDatabase, type TestDatabase } from './db';

const root = path.resolve(import.meta.dirname, '../..');

export interface NpmStart {
  url: string;
  dataDir: string;
  /** Everything printed so far (stdout and stderr). */
  readonly output: string;
  /** Stops the process (SIGTERM, 10 s at most) and removes its data, bundles and test database. */
  stop(): Promise<void>;
}

/** Starts `npm start` with `env` over the defaults; rejects with the output when it exits or is not ready in time. */
export async function startNpmStart(opts: {
  /** Names the DATA_DIR and the esbuild work folder. */
  name: string;
  env: Record<string, string>;
  readyWithinMs: number;
}): Promise<NpmStart> {
  await ensureWebBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), `am-${opts.name}-`));
  const workFolder = `.esbuild-${opts.name}-${process.pid}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_BUILD: 'skip',
    // Bundles of its own: other serverless runs in this checkout (tests running in parallel) keep theirs.
    ESBUILD_WORK_FOLDER: workFolder,
    ...opts.env,
  };
  delete env.DATABASE_URL;
  let testDb: TestDatabase | undefined;
  if (process.env.DATABASE_URL) {
    testDb = await createTestDatabase();
    env.DATABASE_URL = testDb.url!;
  }
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env,
    stdio: 'pipe',
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const started: NpmStart = {
    url,
    dataDir,
    get output() {
      return output;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      }
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(path.join(root, workFolder), { recursive: true, force: true });
      await testDb?.drop();
    },
  };
  const until = Date.now() + opts.readyWithinMs;
  while (!output.includes('Press Ctrl+C to stop.')) {
    const failure =
      child.exitCode !== null ? 'exited' : Date.now() > until ? 'did not become ready' : undefined;
    if (failure) {
      await started.stop();
      throw new Error(`npm start ${failure}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return started;
}
