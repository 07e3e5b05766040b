/**
 * Browser tests: the whole service with the web UI on one origin in this process, the UI built once,
 * and Debian's chromium driven by playwright-core (tests skip when /usr/bin/chromium is absent).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { httpFunctions } from '../../functions/http/registry';
import * as system from '../../functions/http/system';
import * as web from '../../functions/http/web';
import { setConfig } from '../../lib/config/config';
import { type Gateway, startGateway } from '../../scripts/local/gateway';
import { ADMIN, startTestService, type TestService, USER } from '../support/service';

export { ADMIN, USER };

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const SKIP_REASON = `browser tests need Debian's chromium at ${CHROMIUM} (installed by .ci/run): skipped`;

const root = path.resolve(import.meta.dirname, '../..');
const webDir = path.join(root, 'web');
const distIndex = path.join(webDir, 'dist/index.html');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const isFresh = () => {
  const sources = Math.max(
    newestMtime(path.join(webDir, 'src')),
    statSync(path.join(webDir, 'index.html')).mtimeMs,
    statSync(path.join(webDir, 'vite.config.ts')).mtimeMs,
  );
  return existsSync(distIndex) && statSync(distIndex).mtimeMs >= sources;
};

/** Builds web/dist with Vite unless it is newer than every source of the UI; one build at a time across workers. */
export async function ensureWebBuilt(): Promise<void> {
  const lock = path.join(tmpdir(), 'anomaly-monitor-web-build.lock');
  for (;;) {
    if (isFresh()) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building: wait for it (a lock older than 2 minutes is stale).
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 120_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (!isFresh()) {
      execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', 'web', '--logLevel', 'warn'], {
        cwd: root,
        stdio: 'inherit',
      });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface WebService {
  /** The origin of the UI and the API. */
  url: string;
  /** startTestService's helpers (tokens, JSON calls) over the same container. */
  api: TestService;
  stop(): Promise<void>;
}

/**
 * startTestService (database, container, seeded accounts), plus a gateway that also routes '/' to the
 * `web` function serving web/dist: the browser sees the UI and the API on one origin.
 */
export async function startWebService(env: Record<string, string> = {}, port = 0): Promise<WebService> {
  // The job workers run in this process: queued jobs load and analyse.
  const api = await startTestService(env, { workers: true });
  setConfig({ ...api.container.config, webRoot: path.join(webDir, 'dist') });
  const gateway: Gateway = await startGateway(
    [
      {
        name: 'system',
        prefixes: ['/api/v1/health', '/api/v1/openapi.json', '/api/v1/docs'],
        handler: system.handler as never,
      },
      ...httpFunctions,
      { name: 'web', prefixes: ['/'], handler: web.handler as never },
    ],
    port,
  );
  return {
    url: gateway.url,
    api,
    async stop() {
      await gateway.close();
      await api.stop();
    },
  };
}

/** Debian's chromium, headless, with a fresh profile and no background network traffic. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Signs in through the form and waits for the signed-in shell. */
export async function signIn(
  page: Page,
  baseUrl: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(baseUrl);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

export const screenshotsDir = path.join(root, 'docs/screenshots');
/** Screenshots are written only when asked (UPDATE_SCREENSHOTS=1), so test runs leave the docs alone. */
export const updateScreenshots = process.env.UPDATE_SCREENSHOTS === '1';

export async function shot(page: Page, name: string): Promise<void> {
  if (!updateScreenshots) return;
  // Sticky panes sit where the page was scrolled: shoot from the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}
