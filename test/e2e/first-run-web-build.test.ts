/** `npm start` builds the web UI when web/dist is missing or older than the UI's sources, and only then. */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureWebBuilt } from '../../scripts/local/web-build';

describe('npm start: the web UI build when stale', () => {
  // A checkout in miniature: web/ sources and a stand-in for Vite that writes web/dist/index.html and counts its runs.
  const root = mkdtempSync(path.join(tmpdir(), 'am-web-build-'));
  const runs = path.join(root, 'runs.txt');
  mkdirSync(path.join(root, 'web/src'), { recursive: true });
  mkdirSync(path.join(root, 'node_modules/.bin'), { recursive: true });
  writeFileSync(path.join(root, 'web/index.html'), '<div id="root"></div>');
  writeFileSync(path.join(root, 'web/vite.config.ts'), 'export default {};');
  writeFileSync(path.join(root, 'web/src/main.tsx'), 'export {};');
  const vite = path.join(root, 'node_modules/.bin/vite');
  writeFileSync(
    vite,
    `#!/bin/sh\nmkdir -p web/dist && echo built > web/dist/index.html && echo run >> runs.txt\n`,
  );
  chmodSync(vite, 0o755);
  const count = () => readFileSync(runs, 'utf8').trim().split('\n').length;
  const age = (file: string, secondsAgo: number) => {
    const t = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(file, t, t);
  };
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds a fresh clone, then leaves a fresh build alone', () => {
    expect(ensureWebBuilt(root)).toBe('built');
    expect(count()).toBe(1);
    expect(ensureWebBuilt(root)).toBe('fresh');
    expect(count()).toBe(1);
  });

  it('builds again when a UI source or the Vite config changed after the last build', () => {
    age(path.join(root, 'web/dist/index.html'), 60);
    age(path.join(root, 'web/vite.config.ts'), 120);
    age(path.join(root, 'web/index.html'), 120);
    age(path.join(root, 'web/src/main.tsx'), 10);
    expect(ensureWebBuilt(root)).toBe('built');
    expect(count()).toBe(2);
    age(path.join(root, 'web/dist/index.html'), 60);
    age(path.join(root, 'web/src/main.tsx'), 120);
    age(path.join(root, 'web/vite.config.ts'), 10);
    expect(ensureWebBuilt(root)).toBe('built');
    expect(count()).toBe(3);
  });
});
