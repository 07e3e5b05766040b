/**
 * "What would change", in Debian's chromium against `npm start` with the demo: the admin lowers the DOD
 * threshold and raises the spike threshold of the demo view in the editor, and before saving sees the
 * anomalies and incidents the change would add and remove, with a record's chart on demand (the edited
 * definition's expectation). Nothing is saved.
 * UPDATE_SCREENSHOTS=1 also writes docs/screenshots/replay-what-would-change.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { type NpmStart, startNpmStart } from '../support/npm-start';
import { hasChromium, launchChromium, shot, signIn } from './support';

const ADMIN = { email: 'admin@example.com', password: 'replay-admin-pw' };

describe.skipIf(!hasChromium)(
  `what a change would do, in the browser through npm start on ${backendName}`,
  () => {
    let s: NpmStart;
    let browser: Browser;
    let page: Page;
    let token = '';
    let demoId = 0;

    const api = async (path: string) => {
      const r = await fetch(`${s.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
      return (await r.json()) as any;
    };

    /** Puts the cursor at the end of the editor's line holding `text` (its search, as a user finds a line). */
    const endOf = async (text: string) => {
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+f');
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      await page.keyboard.press('End');
    };

    beforeAll(async () => {
      s = await startNpmStart({
        name: 'replay',
        env: { SEED_ADMIN_PASSWORD: ADMIN.password, SEED_USER_PASSWORD: 'replay-user-pw', DEMO: 'on' },
        readyWithinMs: 600_000,
      });
      const auth = await fetch(`${s.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      token = ((await auth.json()) as { accessToken: string }).accessToken;
      demoId = ((await api('/dataviews')) as Array<{ id: number; name: string }>).find(
        (v) => v.name === 'store_sales',
      )!.id;
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
      page.setDefaultTimeout(30_000);
      await signIn(page, s.url, ADMIN);
    }, 640_000);

    afterAll(async () => {
      await browser?.close();
      await s?.stop();
    });

    // The replay job may take minutes on a loaded machine (its counts are awaited up to 120 s).
    it(
      'shows the anomalies a threshold change would add and remove before it is saved',
      { timeout: 200_000 },
      async () => {
        await page.goto(`${s.url}/dataviews/${demoId}`);
        await page.locator('.cm-line', { hasText: 'type: dod' }).first().waitFor();
        // DOD from 40 % to 25 %: more day-over-day changes are anomalies.
        await endOf('percentualChange: 40');
        await page.keyboard.press('Backspace');
        await page.keyboard.press('Backspace');
        await page.keyboard.type('25');
        // The spike detector from its default 4 deviations to 8: fewer spikes. The export leaves defaults out,
        // so the threshold is a new line under the spike's own parameter.
        await endOf('minValue: 100');
        await page.keyboard.press('Enter');
        await page.keyboard.type('threshold: 8');
        await page.keyboard.press('Escape');

        const panel = page.getByRole('region', { name: 'What would change' });
        await panel.getByRole('button', { name: 'What would change' }).click();
        const counts = panel.locator('.replay-counts');
        // The counts, or the problem the panel shows instead (a refused definition, a failed job): a failure
        // names what the user saw rather than waiting out the bound.
        await counts.or(panel.locator('.problem')).first().waitFor({ timeout: 120_000 });
        if (!(await counts.isVisible())) {
          throw new Error(
            `the replay showed a problem: ${await panel.locator('.problem').first().innerText()}\n` +
              `the editor held:\n${await page.locator('.cm-content').innerText()}`,
          );
        }
        const text = await counts.innerText();
        const [, added, removed] = /(\d+) added, (\d+) removed/.exec(text) ?? [];
        expect(Number(added), text).toBeGreaterThan(0);
        expect(Number(removed), text).toBeGreaterThan(0);
        // Rows of both kinds, and the counts by type and measure.
        const rows = panel.locator('table.replay-rows tbody tr');
        await expect.poll(() => rows.filter({ hasText: 'added' }).count()).toBeGreaterThan(0);
        await expect.poll(() => rows.filter({ hasText: 'removed' }).count()).toBeGreaterThan(0);
        const types = await panel.locator('table.replay-types').innerText();
        console.info(`replay counts: ${text}\n${types}`);
        expect(types).toMatch(/SPIKE\s+value/i);
        // The incidents: the records of both sides grouped as a cycle groups them. Records removed leave
        // their events removed or changed.
        const incidentText = await panel.locator('.replay-incident-counts').innerText();
        const [, , iRemoved, iChanged] =
          /Incidents: (\d+) added, (\d+) removed, (\d+) changed/.exec(incidentText) ?? [];
        expect(Number(iRemoved) + Number(iChanged), incidentText).toBeGreaterThan(0);
        expect(await panel.locator('table.replay-incidents tbody tr').count()).toBeGreaterThan(0);

        // A record's series on demand, with the expectation of the edited detector computed with the
        // definition the replay ran (its params, special dates and analysis window).
        const chart = page.waitForResponse((r) => /\/replay\/\d+\/series\/\d+/.test(r.url()));
        await rows.filter({ hasText: 'removed' }).first().getByRole('button', { name: 'Chart' }).click();
        const answer = await chart;
        expect(answer.status()).toBe(200);
        expect(new URL(answer.url()).searchParams.get('detectorIndex')).toMatch(/^\d+$/);
        expect(((await answer.json()) as { definition: string }).definition).toBe('replayed');
        await panel.locator('.replay-chart-note', { hasText: 'the edited' }).waitFor();
        await panel.locator('svg').first().waitFor();
        await shot(page, 'replay-what-would-change');

        // Nothing was saved, and the view's anomalies are those of the saved definition.
        const stored = await api(`/dataviews/${demoId}`);
        expect(stored.analysis.detectors[0].params.percentualChange).toBe(40);
        const status = await api(`/dataviews/${demoId}/status`);
        expect(status.jobs.replay).toMatchObject({ kind: 'Replay', status: 'finished' });
        // For the record (docs/performance.md), not asserted: the replay's time beside the last detection's.
        const replay = await api(`/dataviews/${demoId}/replay/${status.jobs.replay.id}`);
        const ic = replay.result.incidents.counts;
        expect(incidentText).toContain(`${ic.added} added, ${ic.removed} removed, ${ic.changed} changed`);
        console.info(`replay incidents: ${JSON.stringify(ic)}`);
        const run = (await api(`/jobs?dataViewId=${demoId}&kind=Process&status=finished&limit=1`))[0];
        const d = run?.detail ?? {};
        console.info(
          `replay ${replay.result.run.ms} ms (read ${replay.result.run.readMs}, detect ${replay.result.run.detectMs}); ` +
            `last detection: read ${d.readMs}, detect ${d.detectMs}, write ${d.writeMs}, publish ${d.publishMs} ms`,
        );
      },
    );
  },
);
