/** Runs the real service-cli process (node bin/service-cli.js) against a test service, and knows which routes exist yet. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registeredRoutes } from '../../functions/http/registry';
import { vi } from 'vitest';
import type { TestService } from '../support/service';

const BIN = fileURLToPath(new URL('../../bin/service-cli.js', import.meta.url));

// Each case is a journey of a dozen CLI processes (a Node start each): on a loaded machine (load 15-20 in CI
// beside other work) one took over 60 s. The files that run the CLI give their cases four minutes.
vi.setConfig({ testTimeout: 240_000 });

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: any;
}

export interface RunOptions {
  /** Bearer token in SERVICE_CLI_TOKEN; null for none. Default: the admin's. */
  token?: string | null;
  apiKey?: string;
  stdin?: string;
  env?: Record<string, string>;
}

export interface Cli {
  run(args: string[], opts?: RunOptions): Promise<CliResult>;
  /** The config file the CLI of this runner reads and `login` writes. */
  configFile: string;
  home: string;
  cleanup(): void;
}

/** A runner with its own HOME and config file, pointed at the service by SERVICE_CLI_URL. */
export function cliFor(s: Pick<TestService, 'url' | 'adminToken'>): Cli {
  const home = mkdtempSync(path.join(tmpdir(), 'service-cli-test-'));
  const configFile = path.join(home, 'config', 'service-cli.json');
  const run = (args: string[], opts: RunOptions = {}): Promise<CliResult> =>
    new Promise((resolve, reject) => {
      const token = opts.token === undefined ? s.adminToken : opts.token;
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        HOME: home,
        SERVICE_CLI_URL: s.url,
        SERVICE_CLI_CONFIG: configFile,
        ...(token ? { SERVICE_CLI_TOKEN: token } : {}),
        ...(opts.apiKey ? { SERVICE_CLI_API_KEY: opts.apiKey } : {}),
        ...opts.env,
      };
      // Asynchronous on purpose: the service answers from this very process.
      const child = spawn(process.execPath, [BIN, ...args], { env, cwd: home });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: code ?? -1, stdout, stderr, json });
      });
      child.stdin.end(opts.stdin ?? '');
    });
  return { run, configFile, home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * Fails when the service does not declare a route (method and path template) a command under test
 * calls: a renamed or removed route breaks its tests instead of silently skipping them.
 */
export function requireRoutes(...routes: Array<[method: string, template: string]>): void {
  const declared = registeredRoutes();
  const missing = routes.filter(([m, t]) => !declared.some((r) => r.method === m && r.path === t));
  if (missing.length)
    throw new Error(`the service declares no route ${missing.map(([m, t]) => `${m} ${t}`).join(', ')}`);
}

/** A failure message that shows what the CLI printed. */
export function explain(r: CliResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}
