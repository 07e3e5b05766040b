/**
 * Authoring data views with confidence, in Debian's chromium against the product as users run it:
 * `npm start` with the demo (serverless-offline, the demo source, connector and analysed view). The
 * admin edits the demo view in the schema-aware editor (completion of a detector's own params, an
 * invalid param underlined before saving). Steps build on each other, in order.
 * UPDATE_SCREENSHOTS=1 also writes docs/screenshots/authoring-*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { type NpmStart, startNpmStart } from '../support/npm-start';
import { hasChromium, launchChromium, shot, signIn } from './support';

/** The service checks the text after a pause in typing: on a loaded machine its answer takes seconds. */
const CHECKED = { timeout: 30_000 };

const ADMIN = { email: 'admin@example.com', password: 'authoring-admin-pw' };

describe.skipIf(!hasChromium)(
  `authoring data views in the browser through npm start on ${backendName}`,
  () => {
    let s: NpmStart;
    let browser: Browser;
    let page: Page;
    let token = '';
    let demoId = 0;

    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${s.url}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json().catch(() => undefined)) as any };
    };

    /** The errors underlined in the editor. */
    const underline = () => page.locator('.cm-lintRange-error');

    /** The editor's line that holds `text` (CodeMirror renders only what is near the viewport). */
    const line = (text: string) => page.locator('.cm-line', { hasText: text }).first();

    /** Puts the cursor on `text` in the editor with its search (Ctrl+F), as a user finds a line. */
    const goTo = async (text: string) => {
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+f');
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
    };

    beforeAll(async () => {
      s = await startNpmStart({
        name: 'authoring',
        env: { SEED_ADMIN_PASSWORD: ADMIN.password, SEED_USER_PASSWORD: 'authoring-user-pw', DEMO: 'on' },
        readyWithinMs: 600_000,
      });
      const auth = await fetch(`${s.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      token = ((await auth.json()) as { accessToken: string }).accessToken;
      const views = (await api('GET', '/dataviews')).body as Array<{ id: number; name: string }>;
      demoId = views.find((v) => v.name === 'store_sales')!.id;
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
      page.setDefaultTimeout(30_000);
      await signIn(page, s.url, ADMIN);
    }, 640_000);

    afterAll(async () => {
      await browser?.close();
      await s?.stop();
    });

    it('opens the demo view with its state, last load and next scheduled load, in a compact definition', async () => {
      await page.goto(`${s.url}/dataviews/${demoId}`);
      const facts = page.getByRole('list', { name: 'Data view status' }).or(page.locator('dl.view-facts'));
      await facts.waitFor();
      await expect.poll(() => facts.innerText(), { timeout: 15_000 }).toMatch(/Last load\s*finished/);
      const text = await facts.innerText();
      expect(text).toContain('enabled');
      expect(text).toMatch(/Next scheduled load\s*\d{4}-\d{2}-\d{2} 06:15 \(UTC, cron 0 15 6 \* \* \*\)/);
      // Only what differs from the defaults: dod shows its two own params, not all nine.
      await line('type: dod').waitFor();
      expect(await page.locator('.cm-line', { hasText: 'maxMissingPct' }).count()).toBe(0);
    });

    it("completes a detector's own params with their meaning and range", async () => {
      await goTo('minVolume: 50');
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
      await page.keyboard.type('ma');
      const popup = page.locator('.cm-tooltip-autocomplete');
      await popup.waitFor();
      const options = (await popup.locator('li').allInnerTexts()).join(' ');
      expect(options).toContain('maxMissingPct');
      expect(options).toContain('maxValue');
      // gap's params are not offered under dod.
      expect(options).not.toContain('longerThan');
      // The selected param's meaning and range beside the list.
      await expect
        .poll(() => page.locator('.cm-completionInfo').innerText(), CHECKED)
        .toMatch(/default 50\)/);
      // The list settles (every completion source answered) with maxMissingPct chosen before Enter takes it.
      await expect
        .poll(() => popup.locator('li[aria-selected="true"]').innerText(), CHECKED)
        .toContain('maxMissingPct');
      await shot(page, 'authoring-editor-completion');
      await page.keyboard.press('Enter');
      await expect.poll(() => line('maxMissingPct:').count(), CHECKED).toBe(1);
      await page.keyboard.type('101');
      // Out of its range (0-100): underlined as typed.
      await expect.poll(() => underline().first().innerText(), CHECKED).toBe('101');
      await page.getByRole('button', { name: 'Discard changes' }).click();
      await expect.poll(() => underline().count(), CHECKED).toBe(0);
    });

    it('underlines an invalid parameter as it is typed, before anything is saved', async () => {
      await goTo('percentualChange: 40');
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('-40');
      await expect.poll(() => underline().first().innerText(), CHECKED).toBe('-40');
      const errors = page.getByRole('list', { name: 'Definition errors' });
      await expect
        .poll(() => errors.innerText(), CHECKED)
        .toMatch(/Line \d+\s+analysis\.detectors\[0\]\.params\.percentualChange must be greater than 0/);
      await shot(page, 'authoring-editor-invalid');
      // Nothing was saved: the service still holds 40.
      const stored = await api('GET', `/dataviews/${demoId}`);
      expect(stored.body.analysis.detectors[0].params.percentualChange).toBe(40);
      // An unknown connector is the service's own check, shown the same way.
      await page.getByRole('button', { name: 'Discard changes' }).click();
      await goTo('connector: demo_pgsql');
      await page.keyboard.press('End');
      await page.keyboard.type('_old');
      await expect.poll(() => errors.innerText(), CHECKED).toMatch(/source\.connector .*demo_pgsql_old/);
      await page.getByRole('button', { name: 'Discard changes' }).click();
      await expect.poll(() => underline().count(), CHECKED).toBe(0);
    });
  },
);
