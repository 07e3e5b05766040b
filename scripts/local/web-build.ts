/** Builds the web UI into web/dist when it is missing or older than its sources or Vite config (a fresh clone builds once, ~5 s). */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

export function ensureWebBuilt(root: string): 'fresh' | 'built' | 'absent' {
  const web = path.join(root, 'web');
  if (!existsSync(path.join(web, 'vite.config.ts'))) return 'absent';
  const index = path.join(web, 'dist', 'index.html');
  const sources = Math.max(
    newestMtime(path.join(web, 'src')),
    statSync(path.join(web, 'index.html')).mtimeMs,
    statSync(path.join(web, 'vite.config.ts')).mtimeMs,
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return 'fresh';
  console.log('Building the web UI …');
  // Vite's own lines (warnings such as chunk sizes) are shown only when the build fails: a quiet start.
  const r = spawnSync(path.join(root, 'node_modules/.bin/vite'), ['build', 'web', '--logLevel', 'warn'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
    throw new Error('the web UI did not build (see the output above)');
  }
  return 'built';
}
