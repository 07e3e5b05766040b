/**
 * A new view from a query, in Debian's chromium against `npm start` with the demo: a new admin pastes a
 * load query against the demo's source, sees its first rows, the suggested columns, the parent links
 * and the number of series, sees an invalid parameter underlined before saving, and saves: the view is
 * deployed and enabled, and its first load fills the cube the page announced. No YAML is written by
 * hand. Steps build on each other, in order. UPDATE_SCREENSHOTS=1 also writes
 * docs/screenshots/from-query-*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { type NpmStart, startNpmStart } from '../support/npm-start';
import { hasChromium, launchChromium, shot, signIn } from './support';

/** The service answers after a pause in typing or a sample read: on a loaded machine that takes seconds. */
const ANSWERED = { timeout: 60_000 };

const ADMIN = { email: 'admin@example.com', password: 'from-query-admin-pw' };

const QUERY = [
  "SELECT CAST(to_char(sale_day, 'YYYYMMDD') AS integer) AS day,",
  '       country, region, city, channel, revenue, orders',
  'FROM daily_sales',
].join('\n');

describe.skipIf(!hasChromium)(`a new view from a query through npm start on ${backendName}`, () => {
  let s: NpmStart;
  let browser: Browser;
  let page: Page;
  let token = '';
  let viewId = 0;

  const api = async (path: string) => {
    const r = await fetch(`${s.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    return (await r.json()) as any;
  };

  /** The text of one fact of "What the data supports". */
  const fact = (name: string) =>
    page.locator('dl.draft-facts dt', { hasText: name }).locator('xpath=following-sibling::dd[1]');
  const underline = () => page.locator('.cm-lintRange-error');

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
      name: 'from-query',
      env: { SEED_ADMIN_PASSWORD: ADMIN.password, SEED_USER_PASSWORD: 'from-query-user-pw', DEMO: 'on' },
      readyWithinMs: 600_000,
    });
    const auth = await fetch(`${s.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    token = ((await auth.json()) as { accessToken: string }).accessToken;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 1100 } })).newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, s.url, ADMIN);
  }, 640_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('reads the query: first rows, suggested columns, parent links, series and detectors', async () => {
    await page.goto(`${s.url}/dataviews`);
    await page.getByRole('link', { name: 'New from a query' }).click();
    await page.getByRole('heading', { name: 'New view from a query' }).waitFor();
    await page.getByLabel('Connector').selectOption('demo_pgsql');
    await page.getByLabel('Name', { exact: true }).fill('sales_from_query');
    await page.getByLabel('Domain').fill('demo');
    await page.getByLabel('Query', { exact: true }).fill(QUERY);
    await page.getByRole('button', { name: 'Preview rows' }).click();

    await page.getByText(/^First 10 rows of the query \(all [\d,]+ rows read\)/).waitFor(ANSWERED);
    expect(await page.locator('table.results tbody tr').count()).toBe(10);
    expect(await page.getByLabel('Date column').inputValue()).toBe('day');
    expect(await page.getByLabel('Value column').inputValue()).toBe('revenue');
    expect(await page.getByLabel('Count column').inputValue()).toBe('orders');
    for (const c of ['country', 'region', 'city', 'channel'])
      expect(await page.getByRole('checkbox', { name: c, exact: true }).isChecked()).toBe(true);
    // The hierarchy the demo's rows hold, found from the rows.
    expect(await fact('Parent links').innerText()).toBe('city → region → country');
    // The demo view over the same rows has 84 series.
    expect(await fact('Series').innerText()).toBe('84');
    expect(await fact('Detectors').innerText()).toMatch(/^dod, gap, wow, spike, mom, mpy$/);
    // The draft is in the editor, with the links as parents.
    await page.locator('.cm-line', { hasText: 'parent: region' }).waitFor();
    await expect.poll(() => page.getByText('The definition is valid.').count(), ANSWERED).toBe(1);
    await shot(page, 'from-query-columns');
  }, 200_000);

  it('drafts again as the columns change: without the channel, fewer series', async () => {
    await page.getByRole('checkbox', { name: 'channel', exact: true }).uncheck();
    // The total, 3 countries, 6 regions (two named South) and 11 cities: 21 series instead of 21 × 4.
    await expect.poll(() => fact('Series').innerText(), ANSWERED).toBe('21');
    await expect.poll(() => page.locator('.cm-line', { hasText: 'name: channel' }).count(), ANSWERED).toBe(0);
    await page.getByRole('checkbox', { name: 'channel', exact: true }).check();
    await expect.poll(() => fact('Series').innerText(), ANSWERED).toBe('84');
    await page.locator('.cm-line', { hasText: 'name: channel' }).waitFor(ANSWERED);
  }, 200_000);

  it('underlines an invalid parameter in the draft before anything is saved', async () => {
    await goTo('type: dod');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    // A flow mapping on one line: no indentation to type.
    await page.keyboard.type('params: {percentualChange: -5');
    await expect.poll(() => underline().first().innerText(), ANSWERED).toBe('-5');
    await expect
      .poll(() => page.getByRole('list', { name: 'Definition errors' }).innerText(), ANSWERED)
      .toMatch(/analysis\.detectors\[0\]\.params\.percentualChange must be greater than 0/);
    expect(await page.getByRole('button', { name: 'Save and deploy' }).isDisabled()).toBe(true);
    await shot(page, 'from-query-invalid');
    // Nothing was saved.
    const views = (await api('/dataviews')) as Array<{ name?: string; metadata?: { name: string } }>;
    expect(views.some((v) => (v.metadata?.name ?? v.name) === 'sales_from_query')).toBe(false);
    // Fixed in place.
    await goTo('percentualChange: -5');
    await page.keyboard.type('percentualChange: 30');
    await expect.poll(() => underline().count(), ANSWERED).toBe(0);
    await expect.poll(() => page.getByText('The definition is valid.').count(), ANSWERED).toBe(1);
  }, 300_000);

  it('saves, deploys and enables the view; its first load fills the cube the page announced', async () => {
    await page.getByRole('button', { name: 'Save and deploy' }).click();
    await page.waitForURL(/\/dataviews\/\d+$/);
    viewId = Number(new URL(page.url()).pathname.split('/').pop());
    const status = page.getByRole('list', { name: 'Data view status' }).or(page.locator('dl.view-facts'));
    await expect.poll(() => status.innerText(), ANSWERED).toMatch(/enabled/);
    const stored = await api(`/dataviews/${viewId}`);
    expect(stored.analysis.detectors[0]).toMatchObject({ type: 'dod', params: { percentualChange: 30 } });
    expect(stored.categories.find((c: { name: string }) => c.name === 'city').parent).toBe('region');

    await page.getByRole('button', { name: 'Start normal daily load' }).click();
    await expect.poll(() => status.innerText(), { timeout: 300_000 }).toMatch(/Last load\s*finished/);
    await expect
      .poll(async () => (await api(`/dataviews/${viewId}/status`)).dataset?.series, { timeout: 60_000 })
      .toBe(84);
    await shot(page, 'from-query-loaded');
  }, 400_000);
});
