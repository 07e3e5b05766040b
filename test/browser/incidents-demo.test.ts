/**
 * Incidents in the product as `npm start` runs it (the demo on), in Debian's chromium: Home's demo filter
 * (incidents on) shows one row per incident named by its root cause with a link to it; a row opened draws
 * "What drove this change?" as bars; the incident's page shows its root causes and members; the explorer
 * answers what drove any window. UPDATE_SCREENSHOTS=1 also writes docs/screenshots/incidents-*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { type NpmStart, startNpmStart } from '../support/npm-start';
import { hasChromium, launchChromium, shot, signIn } from './support';

const ADMIN = { email: 'admin@example.com', password: 'incidents-admin-pw' };

describe.skipIf(!hasChromium)(
  `incidents and what drove them, npm start with the demo on ${backendName}`,
  () => {
    let s: NpmStart;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      s = await startNpmStart({
        name: 'incidents-demo',
        env: { SEED_ADMIN_PASSWORD: ADMIN.password, SEED_USER_PASSWORD: 'incidents-user-pw', DEMO: 'on' },
        // The demo loads, detects and builds incidents before it is ready: minutes on a busy machine.
        readyWithinMs: 560_000,
      });
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1360, height: 1000 } })).newPage();
      page.setDefaultTimeout(30_000);
    }, 600_000);

    afterAll(async () => {
      await browser?.close();
      await s?.stop();
    });

    it('shows one row per incident on Home, each named by its root cause and linked to its incident', async () => {
      await signIn(page, s.url, ADMIN);
      const main = page.getByRole('main');
      const tables = main.locator('table.results', { has: page.locator('.root-cause') });
      await tables.first().waitFor();
      await expect.poll(() => tables.first().locator('.root-cause').count()).toBeGreaterThan(1);
      for (const table of await tables.all()) {
        const hrefs = await table
          .locator('.root-cause a')
          .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
        // One row per incident: no incident appears twice in a filter's table.
        expect(new Set(hrefs).size).toBe(hrefs.length);
        for (const h of hrefs) expect(h).toMatch(/^\/incidents\/\d+\/\d+$/);
        // Each names its root cause (a combination of the demo's categories) and what it explains.
        const causes = await table.locator('.root-cause .cause').allTextContents();
        expect(causes.length).toBe(hrefs.length);
        for (const c of causes) expect(c).toMatch(/^(all|[a-z_]+=.+)$/);
      }
      const notes = await tables.first().locator('.root-cause .muted').allTextContents();
      expect(notes.join('\n')).toMatch(/explains (\d[\d.,]* %|all) of |the whole series moved/);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, 'incidents-home');
    });

    it('draws what drove the change of an incident row as bars, agreeing with its root cause', async () => {
      const main = page.getByRole('main');
      const table = main.locator('table.results', { has: page.locator('.root-cause') }).first();
      const first = table.getByRole('button', { name: /Show chart of the / }).first();
      await first.click();
      const panel = main.getByRole('region', { name: 'What drove this change?' }).first();
      const chart = panel.getByRole('img').first();
      await chart.waitFor();
      const bars = chart.locator('rect.bar');
      expect(await bars.count()).toBeGreaterThan(0);
      const widths = await bars.evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('width'))));
      expect(Math.max(...widths)).toBeGreaterThan(50);
      // The bars are one category's values, largest change first, and the best explanation is named.
      await expect(panel.getByText(/Best explanation:|No smaller set explains it/).count()).resolves.toBe(1);
      const tabs = panel.getByRole('tab');
      expect(await tabs.count()).toBeGreaterThan(0);
      await shot(page, 'incidents-what-drove');
    });

    it("opens an incident's page with its root causes and member records", async () => {
      const main = page.getByRole('main');
      const link = main
        .locator('.root-cause')
        .getByRole('link', { name: /^incident \d+$/ })
        .first();
      const name = await link.textContent();
      await link.click();
      await main.getByRole('heading', { level: 1, name: new RegExp(`^I${name?.slice(1)}: `) }).waitFor();
      const facts = main.locator('.incident-facts');
      await expect(facts.getByText('Root cause').count()).resolves.toBe(1);
      // Members are grouped by series, a table each.
      const members = main.getByRole('table', { name: /Records of incident \d+/ }).first();
      await members.waitFor();
      expect(await members.getByRole('row').count()).toBeGreaterThan(1);
      await main.getByRole('region', { name: 'What drove this change?' }).getByRole('img').first().waitFor();
      await shot(page, 'incidents-detail');
    });

    it('answers what drove any window of a series in the explorer, and moves with the window', async () => {
      const main = page.getByRole('main');
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Explorer', exact: true })
        .click();
      const view = main.getByLabel('Data view', { exact: true });
      await view.waitFor();
      await expect.poll(() => view.locator('option').count()).toBeGreaterThan(1);
      const options = await view.locator('option').allTextContents();
      const demo = options.find((o) => /store_sales/.test(o));
      expect(demo).toBeDefined();
      // The only view opens by itself; choosing it again is harmless.
      if ((await view.inputValue()) === '') await view.selectOption({ label: demo as string });
      const panel = main.getByRole('region', { name: 'What drove this change?' });
      await panel.getByRole('img').first().waitFor();
      const before = await panel.locator('.contributions > p').first().textContent();
      const from = main.getByLabel('From', { exact: true });
      const value = await from.inputValue();
      const earlier = new Date(Date.parse(value) - 21 * 86_400_000).toISOString().slice(0, 10);
      await from.fill(earlier);
      await expect
        .poll(() => panel.locator('.contributions > p').first().textContent(), { timeout: 30_000 })
        .not.toBe(before);
      expect(await panel.locator('.contributions > p').first().textContent()).toContain(earlier);
      await shot(page, 'incidents-explorer');
    });
  },
);
