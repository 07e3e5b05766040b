/** Builds the AWS artifact once (`serverless package`, no credentials) and reads its template and zip. */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';

const run = promisify(execFile);
export const root = path.resolve(import.meta.dirname, '../..');

/** Values planted in the packaging shell: none of them may reach the template. */
export const shellSentinels = {
  DATABASE_URL: 'postgres://sentinel-user:sentinel-password@shell.invalid/sentinel',
  JWT_SECRET: 'sentinel-jwt-secret-from-the-shell',
  MASTER_KEY: 'c2VudGluZWwtbWFzdGVyLWtleS1mcm9tLXNoZWxsISE=',
};

export type Json = Record<string, any>;

/** One function's zip: its size and its files by name. */
export interface FunctionArtifact {
  zipBytes: number;
  files: Map<string, Buffer>;
}

export interface Packaged {
  dir: string;
  template: Json;
  /** Every function's own artifact (package.individually), by function name in serverless.yml. */
  artifacts: Map<string, FunctionArtifact>;
  seconds: number;
}

const webDir = path.join(root, 'web');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function webIsFresh(): boolean {
  const index = path.join(webDir, 'dist/index.html');
  const sources = Math.max(
    newestMtime(path.join(webDir, 'src')),
    statSync(path.join(webDir, 'index.html')).mtimeMs,
  );
  return existsSync(index) && statSync(index).mtimeMs >= sources;
}

/**
 * Builds web/dist unless it is newer than the UI's sources, so the artifact carries the current UI.
 * Takes the same lock as the browser tests (test/browser/support.ts): one Vite build at a time.
 */
export async function ensureWebBuilt(): Promise<void> {
  if (!existsSync(path.join(webDir, 'vite.config.ts'))) return;
  const lock = path.join(tmpdir(), 'anomaly-monitor-web-build.lock');
  for (;;) {
    if (webIsFresh()) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 120_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (!webIsFresh()) {
      await run(path.join(root, 'node_modules/.bin/vite'), ['build', 'web', '--logLevel', 'warn'], {
        cwd: root,
        timeout: 300_000,
      });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Runs `serverless package --stage <stage>` without any AWS credentials; `cwd` defaults to the project root. */
export async function packageStage(stage: string, cwd = root): Promise<Packaged> {
  const dir = mkdtempSync(path.join(tmpdir(), `anomaly-monitor-package-${stage}-`));
  const env: NodeJS.ProcessEnv = { ...process.env, ...shellSentinels };
  for (const name of Object.keys(env)) {
    if (/^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|PROFILE)$/.test(name)) delete env[name];
  }
  env.AWS_SHARED_CREDENTIALS_FILE = path.join(dir, 'no-credentials');
  env.AWS_CONFIG_FILE = path.join(dir, 'no-config');
  // Its own esbuild folder: a start test running beside it builds into the default one.
  const workFolder = `.esbuild-package-${process.pid}`;
  env.ESBUILD_WORK_FOLDER = workFolder;
  const started = performance.now();
  await run(
    path.join(root, 'node_modules/.bin/serverless'),
    ['package', '--stage', stage, '--package', dir],
    { cwd, env, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
  ).finally(() => rmSync(path.join(cwd, workFolder), { recursive: true, force: true }));
  const seconds = (performance.now() - started) / 1000;
  const template = JSON.parse(
    readFileSync(path.join(dir, 'cloudformation-template-update-stack.json'), 'utf8'),
  );
  const artifacts = new Map<string, FunctionArtifact>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.zip'))) {
    const zip = readFileSync(path.join(dir, name));
    artifacts.set(name.replace(/\.zip$/, ''), { zipBytes: zip.length, files: readZip(zip) });
  }
  return { dir, template, artifacts, seconds };
}

/** The entries of a zip archive (stored or deflated), by name; enough for a Serverless artifact. */
export function readZip(buf: Buffer): Map<string, Buffer> {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip archive');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('damaged zip central directory');
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const nameLength = buf.readUInt16LE(p + 28);
    const skip = nameLength + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLength);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    if (!name.endsWith('/')) entries.set(name, method === 0 ? data : inflateRawSync(data));
    p += 46 + skip;
  }
  return entries;
}

/** Resources of one CloudFormation type, by logical id. */
export function resourcesOf(template: Json, type: string): Array<[string, Json]> {
  return Object.entries(template.Resources as Json).filter(([, r]) => r.Type === type);
}

/** The logical id a `{Fn::GetAtt: [id, Arn]}` or `{Ref: id}` points at. */
export function refTarget(value: unknown): string | undefined {
  const v = value as Json;
  return v?.['Fn::GetAtt']?.[0] ?? v?.Ref;
}

/** The policy statements of an IAM role, with Action and Resource always as arrays. */
export function statementsOf(role: Json): Array<{ Effect: string; Action: string[]; Resource: unknown[] }> {
  const out: Array<{ Effect: string; Action: string[]; Resource: unknown[] }> = [];
  for (const policy of role.Properties.Policies ?? []) {
    for (let s of policy.PolicyDocument.Statement) {
      // A statement granted only in a VPC: `{Fn::If: [InVpc, statement, NoValue]}`.
      if (s['Fn::If']) s = s['Fn::If'][1];
      out.push({ Effect: s.Effect, Action: [s.Action].flat(), Resource: [s.Resource].flat() });
    }
  }
  return out;
}

/** The Lambda environment with intrinsic values replaced by what CloudFormation would put there. */
export function renderedEnvironment(fn: Json): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.Properties.Environment.Variables as Json)) {
    if (typeof value === 'string') {
      env[name] = value.startsWith('{{resolve:') ? resolvedExample(name) : value;
    } else if (refTarget(value)) {
      env[name] = `https://sqs.eu-central-1.amazonaws.com/123456789012/${refTarget(value)}`;
    } else {
      env[name] = resolvedExample(name);
    }
  }
  return env;
}

function resolvedExample(name: string): string {
  return name === 'DATABASE_URL' ? 'postgres://monitor@db.internal:5432/monitor' : `resolved-${name}`;
}
