/**
 * `npm start` must not rebuild under a running service (issue 19): serverless-esbuild's watcher rebuilt the
 * bundles on any .ts/.js edit in the checkout and then had serverless-offline clean up its functions, which
 * terminates every worker thread, busy ones included: a running load or detection stopped silently.
 *
 * This builds the watcher exactly as serverless-esbuild's `watch()` does (its default watch options merged
 * with serverless.yml's custom.esbuild.watch; patterns: the default one plus the functions' package
 * patterns) over a scratch folder, edits files there and expects no event.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import chokidar from 'chokidar';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '../../..');

// serverless-esbuild's DEFAULT_BUILD_OPTIONS.watch (dist/index.js); WORK_FOLDER and BUILD_FOLDER are
// '.esbuild' and '.build'.
const DEFAULT_WATCH = {
  pattern: './**/*.(js|ts)',
  ignore: ['.esbuild', 'dist', 'node_modules', '.build'],
  chokidar: { ignoreInitial: true },
};

type Watch = { pattern: string | string[]; ignore: string | string[]; chokidar: Record<string, unknown> };

/** ramda's mergeDeepRight, which serverless-esbuild uses: plain objects merged, anything else replaced. */
function mergeDeepRight(a: unknown, b: unknown): unknown {
  const plain = (v: unknown): v is Record<string, unknown> =>
    Object.prototype.toString.call(v) === '[object Object]';
  if (!plain(a) || !plain(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in a ? mergeDeepRight(a[k], v) : v;
  return out;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function offlineWatcherOptions(): { patterns: string[]; options: Record<string, unknown> } {
  // Only custom.esbuild and the functions' package patterns are read; ${…} variables stay as text.
  const doc = parse(readFileSync(path.join(root, 'serverless.yml'), 'utf8')) as any;
  const stages = parse(readFileSync(path.join(root, 'deploy/stages.yml'), 'utf8')) as any;
  const watch = mergeDeepRight(DEFAULT_WATCH, doc.custom?.esbuild?.watch ?? {}) as Watch;
  const functions = { ...doc.functions, web: stages.local.webFunction };
  const fnPatterns = Object.values(functions).flatMap((f: any) => asArray<string>(f?.package?.patterns));
  const positive = fnPatterns.filter((p) => !p.startsWith('!'));
  const negative = [...fnPatterns.filter((p) => p.startsWith('!')), '!node_modules/serverless-esbuild'].map(
    (p) => p.slice(1),
  );
  return {
    patterns: [...asArray(watch.pattern), ...positive],
    options: { ignored: [...asArray(watch.ignore), ...negative], ...watch.chokidar },
  };
}

let scratch: string | undefined;
let watcher: chokidar.FSWatcher | undefined;

afterEach(async () => {
  await watcher?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('npm start (serverless-offline) source watching', () => {
  it('edits in the checkout trigger no rebuild, so no running function is terminated', async () => {
    const { patterns, options } = offlineWatcherOptions();
    expect(patterns.length).toBeGreaterThan(0);
    scratch = mkdtempSync(path.join(tmpdir(), 'offline-watch-'));
    mkdirSync(path.join(scratch, 'lib/pipeline'), { recursive: true });
    mkdirSync(path.join(scratch, 'web/dist'), { recursive: true });
    writeFileSync(path.join(scratch, 'lib/pipeline/load.ts'), 'export {};\n');
    writeFileSync(path.join(scratch, 'web/dist/index.html'), '<html></html>\n');
    const events: string[] = [];
    const cwd = scratch;
    watcher = chokidar.watch(patterns, { ...options, cwd });
    watcher.on('all', (event, p) => events.push(`${event} ${p}`));
    await new Promise<void>((resolve) => watcher!.once('ready', () => resolve()));
    // The events a colleague's edit, a new file and a UI build make in a shared checkout.
    writeFileSync(path.join(cwd, 'lib/pipeline/load.ts'), 'export const edited = 1;\n');
    writeFileSync(path.join(cwd, 'lib/pipeline/new-file.ts'), 'export {};\n');
    writeFileSync(path.join(cwd, 'web/dist/index.html'), '<html>rebuilt</html>\n');
    // The watcher with the defaults (next test) reports such edits well within this wait.
    await new Promise((r) => setTimeout(r, 1500));
    expect(events).toEqual([]);
  });

  it('the same probe is seen by a watcher with serverless-esbuild defaults (the test can fail)', async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'offline-watch-'));
    mkdirSync(path.join(scratch, 'lib'), { recursive: true });
    writeFileSync(path.join(scratch, 'lib/a.ts'), 'export {};\n');
    const events: string[] = [];
    const cwd = scratch;
    watcher = chokidar.watch([DEFAULT_WATCH.pattern], {
      ignored: DEFAULT_WATCH.ignore,
      ...DEFAULT_WATCH.chokidar,
      cwd,
    });
    const seen = new Promise<void>((resolve) => watcher!.on('all', () => resolve()));
    watcher.on('all', (event, p) => events.push(`${event} ${p}`));
    await new Promise<void>((resolve) => watcher!.once('ready', () => resolve()));
    writeFileSync(path.join(cwd, 'lib/a.ts'), 'export const edited = 1;\n');
    await seen;
    expect(events.length).toBeGreaterThan(0);
  });
});
