/** Serves the built web UI (web/dist) with SPA fallback to index.html; a placeholder page when it is not built. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticFile {
  status: number;
  contentType: string;
  body: Buffer;
  cacheControl: string;
}

const placeholder = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Anomaly monitor</title>
<style>body{font:16px system-ui,sans-serif;max-width:640px;margin:64px auto;color:#1d2430}</style></head>
<body><h1>Anomaly monitor</h1><p>The service is running. The web UI has not been built yet: run <code>npm run build:web</code>.</p>
<p><a href="/api/v1/docs">API reference</a> · <a href="/api/v1/health">Health</a></p></body></html>`;

const notFound = (): StaticFile => ({
  status: 404,
  contentType: 'text/plain',
  body: Buffer.from('Not found'),
  cacheControl: 'no-store',
});

/** The path percent-decoded, or undefined when an escape is malformed (`%E0%A4%A`, `%ZZ`) or decodes to NUL. */
export function decodeWebPath(urlPath: string): string | undefined {
  try {
    const decoded = decodeURIComponent(urlPath);
    return decoded.includes('\0') ? undefined : decoded;
  } catch {
    return undefined;
  }
}

/**
 * Reads `urlPath` below `root`, refusing anything that escapes it; a path that does not decode is a 400
 * (the caller's mistake, not the service's).
 */
export async function readStatic(root: string, urlPath: string): Promise<StaticFile> {
  const decoded = decodeWebPath(urlPath);
  if (decoded === undefined) {
    return {
      status: 400,
      contentType: 'text/plain',
      body: Buffer.from('Bad request: the path has a malformed percent-escape.'),
      cacheControl: 'no-store',
    };
  }
  const clean = path.normalize(decoded).replace(/^(\.\.(\/|\\|$))+/, '');
  const full = path.join(root, clean);
  if (!full.startsWith(path.resolve(root))) return notFound();
  const ext = path.extname(full);
  if (ext && ext !== '.html') {
    try {
      const body = await readFile(full);
      const immutable = clean.includes('/assets/');
      return {
        status: 200,
        contentType: types[ext] ?? 'application/octet-stream',
        body,
        cacheControl: immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
      };
    } catch {
      return notFound();
    }
  }
  try {
    return {
      status: 200,
      contentType: types['.html'],
      body: await readFile(path.join(root, 'index.html')),
      cacheControl: 'no-cache',
    };
  } catch {
    return {
      status: 200,
      contentType: types['.html'],
      body: Buffer.from(placeholder),
      cacheControl: 'no-cache',
    };
  }
}
