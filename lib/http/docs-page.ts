/**
 * The API reference page: Swagger UI (swagger-ui-dist, a maintained renderer) served by the service
 * itself from /api/v1/docs/assets/* (no CDN), reading /api/v1/openapi.json. Its scripts are files, not
 * inline, so the page runs under a strict content security policy.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The page's own policy: its scripts and styles from the service, nothing framed, no framing. */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Anomaly monitor</title>
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css">
</head>
<body><div id="swagger-ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/assets/init.js"></script>
</body></html>`;
}

const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: false,
  tryItOutEnabled: false,
});
`;

/** The files the page loads, with their content types; anything else is not an asset. */
export const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'init.js': 'text/javascript; charset=utf-8',
};

/**
 * Where swagger-ui-dist lies: node_modules locally; in the Lambda artifact the two files travel beside
 * the bundle (serverless.yml, the system function's package patterns) under `taskRoot`/node_modules
 * (/var/task on Lambda: the config's taskRoot).
 */
function distDir(taskRoot: string): string {
  try {
    return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    return path.join(taskRoot, 'node_modules/swagger-ui-dist');
  }
}

/** An asset's text, or undefined for a name that is not one. */
export async function docsAsset(
  name: string,
  taskRoot: string,
): Promise<{ body: string; contentType: string } | undefined> {
  const contentType = DOCS_ASSETS[name];
  if (!contentType) return undefined;
  if (name === 'init.js') return { body: INIT, contentType };
  return { body: await readFile(path.join(distDir(taskRoot), name), 'utf8'), contentType };
}
