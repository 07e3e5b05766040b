/**
 * The first ten minutes, as the README tells a new user: `npm start` (the real script, serverless-offline,
 * the demo on) in a fresh DATA_DIR, then Debian's chromium signs the data user in through the form and
 * finds Home filled: the pinned and shared demo filters with ranked anomaly rows and charts.
 * One start is shared by the file's tests. UPDATE_SCREENSHOTS=1 also writes docs/screenshots/first-run-*.png.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, screenshotsDir, signIn, updateScreenshots } from '../browser/support';
import { backendName } from '../support/db';
import { type NpmStart, startNpmStart } from '../support/npm-start';

const USER = { email: 'user@example.com', password: 'first-run-user-pw' };
const ADMIN = { email: 'admin@example.com', password: 'first-run-admin-pw' };
/** The start banner's budget (issue 18: address, API reference, database, demo, log, accounts). */
const MAX_BANNER_LINES = 15;

describe(`first run: npm start with the demo on ${backendName}`, () => {
  let s: NpmStart;
  let browser: Browser | undefined;

  beforeAll(async () => {
    s = await startNpmStart({
      name: 'first-run',
      env: {
        SEED_ADMIN_PASSWORD: ADMIN.password,
        SEED_USER_PASSWORD: USER.password,
        LOG_LEVEL: 'info',
        DEMO: 'on',
      },
      readyWithinMs: 280_000,
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('prints a short banner: address, API reference, database, the analysed demo, the log file, accounts', () => {
    const lines = s.output.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(MAX_BANNER_LINES);
    expect(s.output).toContain(`Anomaly monitor is running at ${s.url}`);
    expect(s.output).toContain(`${s.url}/api/v1/docs`);
    expect(s.output).toMatch(/Demo: demo \/ store_sales \(id \d+\): \d+ series, .* \d+ anomalies/);
    expect(s.output).toContain(USER.password);
    // serverless-offline's route table and invocation lines are in the log file, not on the console.
    expect(s.output).not.toContain('λ');
    const log = path.join(s.dataDir, 'service.log');
    expect(s.output).toContain(log);
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toContain('/api/v1/anomaly-filters');
  });

  it('seeds the data user: assigned to the demo view, a pinned filter and one shared by the admin, comments', async () => {
    const token = (
      (await (
        await fetch(`${s.url}/api/v1/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(USER),
        })
      ).json()) as { accessToken: string }
    ).accessToken;
    const get = async (p: string) =>
      (
        await fetch(`${s.url}/api/v1${p}`, { headers: { authorization: `Bearer ${token}` } })
      ).json() as Promise<any>;
    const views = (await get('/dataviews')) as Array<{ id: number; domain: string; name: string }>;
    const demo = views.find((v) => v.domain === 'demo' && v.name === 'store_sales');
    expect(demo).toBeDefined();
    const filters = (await get('/anomaly-filters')) as Array<{
      id: number;
      name: string;
      pinned: boolean;
      isOwner: boolean;
      ownerEmail: string;
    }>;
    expect(filters.filter((f) => f.isOwner && f.pinned).map((f) => f.name)).toContain(
      'What changed in the last 7 days',
    );
    expect(filters.filter((f) => !f.isOwner).map((f) => [f.name, f.ownerEmail])).toContainEqual([
      'Biggest drops this month',
      ADMIN.email,
    ]);
    // Relative ranges find anomalies: the demo data ends yesterday and its injections are recent.
    for (const f of filters) {
      const run = await get(`/anomalies/by-filter/${f.id}`);
      expect(run.anomalies.length, f.name).toBeGreaterThan(0);
    }
    const comments = (await get(`/comments/by-dataview/${demo!.id}`)) as Array<{ text: string }>;
    expect(comments.length).toBeGreaterThanOrEqual(2);
  });

  describe.skipIf(!hasChromium)('in chromium', () => {
    it('signs the data user in through the form and shows Home with ranked anomalies and charts', async () => {
      browser = await launchChromium();
      const page = await (await browser.newContext({ viewport: { width: 1360, height: 1000 } })).newPage();
      page.setDefaultTimeout(30_000);
      await signIn(page, s.url, USER);
      const main = page.getByRole('main');
      await main.getByRole('heading', { name: /What changed in the last 7 days/ }).waitFor();
      await main.getByRole('heading', { name: /Biggest drops/ }).waitFor();
      await expect(main.getByText(`shared by ${ADMIN.email}`).count()).resolves.toBeGreaterThan(0);
      // Ranked anomaly rows: each row's first cell opens its chart.
      const rows = main.getByRole('button', { name: /Show chart of the .* anomaly .*starting \d{4}-/ });
      await rows.first().waitFor();
      expect(await rows.count()).toBeGreaterThan(3);
      // Charts of the top series, drawn without a click.
      const charts = main.getByRole('region', { name: 'Charts of the top anomalies' }).first();
      const chart = charts.getByRole('img').first();
      await chart.waitFor();
      expect(await chart.locator('path.actual').getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+L/);
      // Without a language model the summary box says so; a data user is told to ask an administrator,
      // never sent to the admin-only Settings page.
      const noModel = main.getByText('No language model is configured').first();
      await noModel.waitFor();
      await expect(main.getByText(/Ask an administrator to set one up/).count()).resolves.toBeGreaterThan(0);
      await expect(main.getByRole('link', { name: /Settings/ }).count()).resolves.toBe(0);
      if (updateScreenshots) {
        // Every chart of the top series drawn, as a user sees Home a moment after it opens.
        await page.waitForFunction(() => !document.body.innerText.includes('Loading the series'));
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(screenshotsDir, 'first-run-home-data-user.png') });
      }
    });
  });
});
