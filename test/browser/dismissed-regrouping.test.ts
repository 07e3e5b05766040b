/**
 * Issue 41, a dismissed event stays dismissed, as a user meets it through `npm start` with the demo in
 * Chromium: an administrator opens Home's top incident, marks the whole incident "Not an anomaly" on its page,
 * runs detection again from the data view's page and waits for the job; then Home lists no row of that event
 * (no row on its series or within its root cause, the same way, in its window) in either pinned filter, nor
 * any incident of it new in that cycle; "Show dismissed" lists it with its badge after every row that is not
 * dismissed; and the old incident's URL shows the incident or where its event went, not "not found".
 * UPDATE_SCREENSHOTS=1 writes docs/screenshots/dismissed-*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { type NpmStart, startNpmStart } from '../support/npm-start';
import { hasChromium, launchChromium, shot, signIn } from './support';

const ADMIN = { email: 'admin@example.com', password: 'dismissed-admin-pw' };
type Json = Record<string, any>;
type Categories = Record<string, string | null>;

const DAY = 86_400_000;
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY;
/** True when `inner` is `outer` or lies under it (each category `outer` fixes, `inner` fixes alike). */
const within = (outer: Categories, inner: Categories) =>
  Object.entries(outer).every(([k, v]) => v === null || inner[k] === v);
const same = (a: Categories, b: Categories) => within(a, b) && within(b, a);

/** Every chart drawn, as a user sees the page a moment after it opens (for the screenshots). */
const settled = (page: Page) =>
  page.waitForFunction(() => !document.body.innerText.includes('Loading the series'), undefined, {
    timeout: 60_000,
  });

/** What the dismissed event was, as its incident's page read before: direction, window, series, causes. */
interface Event {
  id: number;
  result: string;
  start: number;
  end: number;
  series: Categories[];
  causes: Categories[];
}

/** A filter row that is the event again: the same way, its window touching, on one of its series or within a cause. */
function isTheEvent(row: Json, e: Event): boolean {
  if (row.result !== e.result) return false;
  if (day(row.startDate) > e.end + 1 || e.start > day(row.endDate) + 1) return false;
  const named: Categories[] = row.incident
    ? (row.incident.rootCauses as Json[]).map((c) => c.categories)
    : [row.categories];
  return named.some((c) => e.series.some((s) => same(s, c)) || e.causes.some((k) => within(k, c)));
}

describe.skipIf(!hasChromium)(
  `a dismissed incident across the next detection, npm start with the demo on ${backendName}`,
  () => {
    let s: NpmStart;
    let browser: Browser;
    let page: Page;
    let token = '';
    const api = async (path: string, expected = 200): Promise<Json> => {
      const r = await fetch(`${s.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(r.status, path).toBe(expected);
      return (await r.json()) as Json;
    };
    let pinned: Json[] = [];
    let event: Event;
    let dataViewId = 0;
    let job: Json;

    beforeAll(async () => {
      s = await startNpmStart({
        name: 'dismissed',
        env: { SEED_ADMIN_PASSWORD: ADMIN.password, SEED_USER_PASSWORD: 'dismissed-user-pw', DEMO: 'on' },
        // The demo loads, detects and builds incidents before it is ready: minutes on a busy machine.
        readyWithinMs: 560_000,
      });
      const auth = await fetch(`${s.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      token = ((await auth.json()) as { accessToken: string }).accessToken;
      pinned = ((await api('/anomaly-filters')) as unknown as Json[]).filter((f) => f.pinned);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1360, height: 1000 } })).newPage();
      page.setDefaultTimeout(60_000);
    }, 600_000);

    afterAll(async () => {
      await browser?.close();
      await s?.stop();
    });

    /** Home's incident tables, one per pinned filter card, once every card has run. */
    const homeTables = async () => {
      const main = page.getByRole('main');
      await expect
        .poll(() => main.locator('section.filter-card').count(), { timeout: 60_000 })
        .toBe(pinned.length);
      await expect.poll(() => main.getByText('Running the filter').count(), { timeout: 120_000 }).toBe(0);
      return main.locator('section.filter-card table.results', { has: page.locator('.root-cause') });
    };

    it("marks Home's top incident, the whole of it, not an anomaly on its page", async () => {
      await signIn(page, s.url, ADMIN);
      const tables = await homeTables();
      const link = tables
        .first()
        .locator('tbody .root-cause')
        .getByRole('link', { name: /^incident \d+$/ })
        .first();
      const href = (await link.getAttribute('href')) as string;
      const [, view, id] = href.match(/^\/incidents\/(\d+)\/(\d+)$/) as RegExpMatchArray;
      dataViewId = Number(view);
      const detail = await api(`/dataviews/${view}/incidents/${id}`);
      event = {
        id: Number(id),
        result: detail.result,
        start: day(detail.incident.startDate ?? detail.startDate),
        end: day(detail.incident.endDate ?? detail.endDate),
        series: (detail.members as Json[]).map((m) => m.categories),
        causes: (detail.incident.rootCauses as Json[]).filter((c) => !c.broad).map((c) => c.categories),
      };
      expect(event.series.length).toBeGreaterThan(1);
      await link.click();
      const main = page.getByRole('main');
      await main.getByRole('heading', { level: 1, name: new RegExp(`^Incident ${id}: `) }).waitFor();
      const card = main.getByRole('region', { name: 'The incident' });
      await card.getByRole('button', { name: 'Give feedback' }).click();
      await card.getByRole('radio', { name: 'Not an anomaly' }).check();
      const whole = card.getByLabel(`Apply to the whole incident #${id}`, { exact: false });
      expect(await whole.isChecked()).toBe(true);
      await card.getByLabel('Note (optional)').fill('Planned app maintenance');
      await card.getByRole('button', { name: 'Save feedback' }).click();
      const current = card.getByTestId('feedback-current');
      await expect.poll(() => current.textContent()).toContain('Not an anomaly');
      expect(await current.textContent()).toContain(`(on the whole incident #${id})`);
      // Every member of the incident carries it.
      const after = await api(`/dataviews/${view}/incidents/${id}`);
      expect((after.members as Json[]).every((m) => m.feedback?.status === 'not-anomaly')).toBe(true);
    });

    it("runs detection again from the data view's page and waits for the job", async () => {
      const main = page.getByRole('main');
      await page.goto(`${s.url}/dataviews/${dataViewId}`);
      await main.getByRole('button', { name: 'Start detection analytics jobs' }).click();
      const notice = main.getByText(/Start detection analytics jobs: job #\d+ \(\w+\) queued\./);
      await notice.waitFor();
      const jobId = Number(((await notice.textContent()) as string).match(/job #(\d+)/)?.[1]);
      // A loaded machine runs the cycle (detection, then its incidents) in minutes: poll the job's state.
      await expect
        .poll(async () => (await api(`/jobs/${jobId}`)).status, { timeout: 540_000, interval: 2_000 })
        .toMatch(/^(finished|failed)$/);
      job = await api(`/jobs/${jobId}`);
      expect(job.status, JSON.stringify(job.error)).toBe('finished');
      // The incidents of the cycle were built (the hook reports them, not an error).
      expect(job.detail.incidents?.error).toBeUndefined();
      expect(job.detail.incidents?.incidents).toBeGreaterThan(0);
      // The jobs panel says so too.
      const last = main.getByRole('group', { name: 'Last detection job' });
      await expect
        .poll(() => last.textContent(), { timeout: 60_000 })
        .toMatch(new RegExp(`finished.*#${jobId}`));
    }, 600_000);

    it('leaves the event out of both pinned filters on Home, in no form and not as a new incident', async () => {
      await page.goto(s.url);
      const main = page.getByRole('main');
      const toggle = main.getByRole('checkbox', { name: /Show dismissed/ });
      expect(await toggle.isChecked()).toBe(false);
      const tables = await homeTables();
      expect(await main.locator('.badge', { hasText: 'Not an anomaly' }).count()).toBe(0);
      const created = new Set<number>(job.detail.incidents.created ?? []);
      const hrefs = (
        await tables.locator('.root-cause a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
      ).map((h) => Number(h?.split('/').pop()));
      expect(hrefs).not.toContain(event.id);
      for (const f of pinned) {
        // What each card shows is the service's first page without dismissed rows: none of them is the event.
        const rows = (await api(`/anomalies/by-filter/${f.id}?pageSize=20&showDismissed=false`))
          .anomalies as Json[];
        const card = main.getByRole('region', { name: f.comment || f.name });
        const shown = (
          await card
            .locator('table.results .root-cause a')
            .evaluateAll((as) => as.map((a) => a.getAttribute('href')))
        ).map((h) => Number(h?.split('/').pop()));
        expect(shown).toEqual(rows.filter((r) => r.incident).map((r) => r.incident.id));
        const again = rows.filter((r) => isTheEvent(r, event));
        expect(again, `${f.name}: the dismissed event is listed again`).toEqual([]);
        expect(rows.every((r) => r.feedback === null || r.feedback === undefined)).toBe(true);
        // An incident first seen in this cycle that is the event is not listed; any listed one is another event.
        for (const r of rows.filter((x) => created.has(x.incident?.id)))
          expect(isTheEvent(r, event), `new incident ${r.incident.id}`).toBe(false);
      }
      await settled(page);
      await shot(page, 'dismissed-hidden');
    }, 300_000);

    it('lists it with its "Not an anomaly" badge after every row that is not dismissed when asked', async () => {
      const main = page.getByRole('main');
      await main.getByRole('checkbox', { name: /Show dismissed/ }).check();
      const badges = main.locator('section.filter-card table.results .badge', { hasText: 'Not an anomaly' });
      await expect.poll(() => badges.count(), { timeout: 120_000 }).toBeGreaterThan(0);
      const tables = await homeTables();
      let listed = 0;
      for (const table of await tables.all()) {
        const flags = await table
          .locator('tbody > tr:not(.detail-row)')
          .evaluateAll((trs) =>
            trs.map((tr) =>
              Array.from(tr.querySelectorAll('.badge')).some((b) => b.textContent === 'Not an anomaly'),
            ),
          );
        const first = flags.indexOf(true);
        if (first < 0) continue;
        listed++;
        // Dismissed rows come after the others: none that is not dismissed follows the first dismissed one.
        expect(flags.slice(first).every(Boolean), `table ${listed}: ${JSON.stringify(flags)}`).toBe(true);
      }
      expect(listed).toBeGreaterThan(0);
      // The rows shown dismissed are the event's (as it stands after the regrouping), by the feedback given on it.
      for (const f of pinned) {
        const rows = (await api(`/anomalies/by-filter/${f.id}?pageSize=20&showDismissed=true`))
          .anomalies as Json[];
        for (const r of rows.filter((x) => x.feedback?.status === 'not-anomaly'))
          expect(r.feedback.incidentId, `${f.name}: row ${r.id}`).toBe(event.id);
      }
      await settled(page);
      await shot(page, 'dismissed-shown');
      await main.getByRole('checkbox', { name: /Show dismissed/ }).uncheck();
    }, 300_000);

    it("opens the old incident's URL: the incident, or the incident its event moved to, never not found", async () => {
      const answer = await api(`/dataviews/${dataViewId}/incidents/${event.id}`);
      await page.goto(`${s.url}/incidents/${dataViewId}/${event.id}`);
      const main = page.getByRole('main');
      const shown = answer.movedFrom ? answer.incident.id : event.id;
      await main.getByRole('heading', { level: 1, name: new RegExp(`^Incident ${shown}: `) }).waitFor();
      if (answer.movedFrom) {
        expect(answer.movedFrom.incidentId).toBe(event.id);
        await expect
          .poll(() => main.getByRole('status').filter({ hasText: 'was regrouped' }).textContent())
          .toContain(`Incident ${event.id} was regrouped: its records are now in incident ${shown}`);
        expect(new URL(page.url()).pathname).toBe(`/incidents/${dataViewId}/${shown}`);
      }
      expect(await main.getByText(/not found/i).count()).toBe(0);
      // What it shows is the dismissed event: its feedback given on the old id.
      const card = main.getByRole('region', { name: 'The incident' });
      await expect.poll(() => card.getByTestId('feedback-current').textContent()).toContain('Not an anomaly');
      expect(await card.getByTestId('feedback-current').textContent()).toContain(
        `(on the whole incident #${event.id})`,
      );
      await settled(page);
      await shot(page, 'dismissed-old-url');
    });
  },
);
