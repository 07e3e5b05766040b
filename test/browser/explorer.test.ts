/**
 * The series explorer and paged filter results in Debian's chromium: a data user searches the category tree,
 * opens a series, sees its chart (uPlot) with the anomaly, hovers for values, zooms, and reloads the address
 * to get the same state back; an admin pages, sorts and exports a filter's results on Home.
 * UPDATE_SCREENSHOTS=1 also writes docs/screenshots/explorer*.png and home-paged.png.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { loadedDetectionView } from '../support/detection-fixture';
import { createTestSource, type TestSource } from '../support/pipeline-source';
import { localHarness, type QueueHarness } from '../support/queue';
import { addAnomalies, addComment, createView } from '../integration/filters/fixtures';
import {
  ADMIN,
  ensureWebBuilt,
  hasChromium,
  launchChromium,
  shot,
  signIn,
  startWebService,
  USER,
  type WebService,
} from './support';

const DAYS = 56; // 2024-01-01 (Monday) .. 2024-02-25
const wave = (base: number) =>
  Array.from({ length: DAYS }, (_, t) => base + (t % 7 === 5 || t % 7 === 6 ? -base / 5 : 0));
const brno = wave(100).map((v, t) => (t === 45 ? 25 : v)); // 2024-02-15: a drop
const CITIES = ['Brno', 'Cheb', 'Decin', 'Jihlava', 'Kladno', 'Liberec', 'Most', 'Opava', 'Praha', 'Tabor'];

describe.skipIf(!hasChromium)(`series explorer and paged results in the browser on ${backendName}`, () => {
  let w: WebService;
  let source: TestSource;
  let queue: QueueHarness;
  let browser: Browser;
  let page: Page;
  let viewId = 0;
  let hiddenViewId = 0;

  beforeAll(async () => {
    await ensureWebBuilt();
    w = await startWebService();
    queue = localHarness();
    await queue.install(w.api.container);
    source = await createTestSource();
    const db = w.api.testDb.db;
    viewId = await loadedDetectionView(db, source, {
      name: 'explorer_sales',
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 40 } }],
      analysis: { specialDates: [{ date: '2024-02-05', impact: 'both' }] } as never,
      series: [
        ...CITIES.map((city) => ({
          categories: { country: 'CZ', city },
          values: city === 'Brno' ? brno : wave(100),
        })),
        { categories: { country: 'DE', city: 'Berlin' }, values: wave(300) },
      ],
    });
    const queued = await w.api.call('POST', `/api/v1/dataviews/${viewId}/jobs/process`, {
      auth: w.api.adminToken,
    });
    expect(queued.status).toBe(202);
    await queue.idle();
    await addComment(db, {
      dataViewId: viewId,
      text: 'Brno store closed for stocktaking',
      dateFrom: '2024-02-15',
      dateTo: '2024-02-15',
      categories: { city: 'Brno' },
    });
    // A second view the data user is not assigned to, and a large hand-made result for paging.
    const orders = await createView(db, { domain: 'sales', name: 'orders', categories: ['Country', 'City'] });
    hiddenViewId = orders.id;
    await addAnomalies(
      db,
      orders,
      Array.from({ length: 45 }, (_, i) => ({
        startDate: `2024-03-${String(1 + (i % 20)).padStart(2, '0')}`,
        change: i + 1,
        changePct: (i * 37) % 101,
        sin: 100 - i,
        categories: { Country: 'CZ', City: `Town ${String(i).padStart(2, '0')}` },
      })),
    );
    const filter = await w.api.call('POST', '/api/v1/anomaly-filters', {
      auth: w.api.adminToken,
      body: {
        name: 'March orders',
        comment: 'All March anomalies of orders',
        timeRange: 'Custom',
        dateFrom: '2024-03-01',
        dateTo: '2024-03-31',
        dataViews: 'sales / orders',
        sortBy: 'SIN',
        limit: 40,
      },
    });
    expect(filter.status).toBe(201);
    await w.api.call('PUT', `/api/v1/anomaly-filters/${filter.body.id}/pin`, {
      auth: w.api.adminToken,
      body: { pinned: true },
    });
    const users = (await w.api.call('GET', '/api/v1/users', { auth: w.api.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await w.api.call('PUT', `/api/v1/users/${userId}`, {
      auth: w.api.adminToken,
      body: { dataViewIds: [viewId] },
    });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await queue?.stop();
    await source?.stop();
    await w?.stop();
  });

  it('walks the tree, searches server-side and opens a series with its chart, anomaly and comment', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, w.url, USER);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Explorer' }).click();
    const select = page.getByLabel('Data view', { exact: true });
    // Only the assigned view is offered.
    await expect.poll(() => select.locator('option').count()).toBeGreaterThan(1);
    const options = await select.locator('option').allTextContents();
    expect(options).toEqual(['Choose a data view…', 'retail / explorer_sales']);
    expect(options.join()).not.toContain('orders');
    // The data user's only view opens at once, without a choice.
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe(String(viewId));
    expect(await select.inputValue()).toBe(String(viewId));
    const tree = page.getByRole('list', { name: 'Category tree' });
    // The root splits by country only (city needs its parent): CZ and DE are listed without a click.
    await tree.getByRole('button', { name: 'CZ', exact: true }).waitFor();
    await tree.getByRole('button', { name: 'Expand CZ' }).click();
    await tree.getByRole('button', { name: 'Tabor', exact: true }).waitFor();
    await page.getByLabel('Search categories').fill('brn');
    const hit = page
      .getByRole('list', { name: 'Series matching brn' })
      .getByRole('button', { name: 'CZ › Brno' });
    await hit.click();
    await page.getByRole('heading', { name: 'CZ › Brno', level: 2 }).waitFor();
    expect(new URL(page.url()).searchParams.get('c.city')).toBe('Brno');
    expect(new URL(page.url()).searchParams.get('view')).toBe(String(viewId));
    // The chart: uPlot's canvas and legend with the band; the anomaly in the table; the comment listed.
    await page.locator('.uplot-box canvas').waitFor();
    const legend = await page.locator('.u-legend').innerText();
    for (const s of ['Actual', 'Expected', 'Band low', 'Band high']) expect(legend).toContain(s);
    const rows = page.getByRole('table', { name: /Anomalies of this series/ }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const first = await rows.first().innerText();
    expect(first).toContain('2024-02-15');
    expect(first).toContain('Negative');
    expect(await page.locator('.series-notes').innerText()).toContain('Brno store closed for stocktaking');
    // The special dates are folded under their count; opened, they list the date.
    const special = page.locator('.series-notes details.special-dates');
    expect(await special.locator('summary').innerText()).toContain('Special dates (1)');
    await special.locator('summary').click();
    expect(await special.innerText()).toContain('2024-02-05');
    await shot(page, 'explorer');
  });

  it('shows the values under the cursor and shades the anomaly window', async () => {
    const over = page.locator('.u-over');
    const box = (await over.boundingBox())!;
    let found: { x: number; text: string } | null = null;
    for (let x = box.x + 2; x < box.x + box.width; x += 3) {
      await page.mouse.move(x, box.y + box.height / 2);
      const text = await page.locator('.u-legend').innerText();
      if (text.includes('2024-02-15')) {
        found = { x, text };
        break;
      }
    }
    expect(found, 'the cursor reaches 2024-02-15').not.toBeNull();
    // Legend rows: the date, then Actual 25 on the day of the drop.
    expect(found!.text).toMatch(/Actual\s*25(?!\d)/);
    // The anomaly window is shaded red behind the lines, near the top of the plot.
    const pixel = await page.evaluate(
      ({ x, y }) => {
        const canvas = document.querySelector('.uplot-box canvas') as HTMLCanvasElement;
        const r = canvas.getBoundingClientRect();
        const scale = canvas.width / r.width;
        const d = canvas.getContext('2d')!.getImageData((x - r.left) * scale, (y - r.top) * scale, 1, 1).data;
        return [...d];
      },
      { x: found!.x, y: box.y + 4 },
    );
    expect(pixel[3]).toBeGreaterThan(0);
    expect(pixel[0]).toBeGreaterThan(pixel[1] + 20);
  });

  it('keeps zoom, series and detector in the address: a reload restores them', async () => {
    const over = page.locator('.u-over');
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.9, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).not.toBeNull();
    const before = new URL(page.url()).searchParams;
    const from = before.get('from')!;
    const to = before.get('to')!;
    expect(from > '2024-01-15').toBe(true);
    expect(to <= '2024-02-25').toBe(true);
    await page.reload();
    await page.getByRole('heading', { name: 'CZ › Brno', level: 2 }).waitFor();
    await page.locator('.uplot-box canvas').waitFor();
    const after = new URL(page.url()).searchParams;
    expect(after.get('from')).toBe(from);
    expect(after.get('to')).toBe(to);
    expect(after.get('c.country')).toBe('CZ');
    // The tree opens along the path to the series and marks it.
    await page
      .getByRole('list', { name: 'Category tree' })
      .getByRole('button', { name: 'Brno', exact: true })
      .waitFor();
    const current = page.locator('.series-tree button[aria-current="true"]');
    expect(await current.first().innerText()).toBe('Brno');
    // The plot shows the restored range: its left edge is the zoomed start, not the first day.
    const zoomed = (await page.locator('.u-over').boundingBox())!;
    await page.mouse.move(zoomed.x + 1, zoomed.y + zoomed.height / 2);
    const leftDate = (await page.locator('.u-legend').innerText()).match(/\d{4}-\d{2}-\d{2}/)?.[0];
    expect(leftDate).toBe(from);
    await page.getByLabel('Detector').selectOption('dod');
    await shot(page, 'explorer-zoomed');
    // A node without its own chart state: the root total opens from the tree.
    await page
      .getByRole('list', { name: 'Category tree' })
      .getByRole('button', { name: 'All (total)', exact: true })
      .click();
    await page.getByRole('heading', { name: 'All (total)', level: 2 }).waitFor();
    expect(new URL(page.url()).searchParams.get('c.city')).toBeNull();
    expect(new URL(page.url()).searchParams.get('from')).toBeNull();
    await page.goBack();
    await page.getByRole('heading', { name: 'CZ › Brno', level: 2 }).waitFor();
  });

  it('refuses a view that is not assigned to the data user', async () => {
    await page.goto(`${w.url}/explorer?view=${hiddenViewId}`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/not found/i);
    await page.context().close();
  });

  it('opens an anomaly of Home in the explorer', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, w.url, ADMIN);
    const created = await w.api.call('POST', '/api/v1/anomaly-filters', {
      auth: w.api.adminToken,
      body: {
        name: 'Brno drop',
        timeRange: 'Custom',
        dateFrom: '2024-02-01',
        dateTo: '2024-02-25',
        dataViews: 'retail / explorer_sales',
        sortBy: 'SIN',
        limit: 5,
      },
    });
    await w.api.call('PUT', `/api/v1/anomaly-filters/${created.body.id}/pin`, {
      auth: w.api.adminToken,
      body: { pinned: true },
    });
    await page.reload();
    const card = page.getByRole('region', { name: 'Brno drop' });
    await card.getByRole('button', { name: /Show chart of the DOD anomaly .*starting 2024-02-15/ }).click();
    await card.getByRole('link', { name: 'Open in explorer' }).click();
    await page.getByRole('heading', { name: 'CZ › Brno', level: 2 }).waitFor();
    const q = new URL(page.url()).searchParams;
    expect(q.get('type')).toBe('dod');
    expect(q.get('from')).toBe('2024-01-04');
    expect(q.get('to')).toBe('2024-02-29');
    await shot(page, 'explorer-from-anomaly');
    await w.api.call('DELETE', `/api/v1/anomaly-filters/${created.body.id}`, { auth: w.api.adminToken });
    // The admin reads two views: the explorer without a view in the address opens the last one used.
    await page.goto(`${w.url}/explorer`);
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe(String(viewId));
    await page.getByRole('list', { name: 'Category tree' }).waitFor();
  });

  it('pages and sorts filter results on Home without loading them all, and exports them as CSV', async () => {
    const byFilter: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/anomalies/by-filter/')) byFilter.push(r.url());
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    await page.goto(w.url);
    const card = page.getByRole('region', { name: 'All March anomalies of orders' });
    const pager = card.getByRole('group', { name: 'Pages of March orders' });
    await pager.waitFor();
    expect(await pager.innerText()).toContain('1–20 of 40');
    expect(await card.innerText()).toContain('40 anomalies');
    const table = card.getByRole('table', { name: /Anomalies of March orders/ });
    const rowsOf = async () => (await table.locator('tbody tr').allInnerTexts()).map((t) => t.split('\t'));
    const page1 = await rowsOf();
    expect(page1).toHaveLength(20);
    // Every request asked for one page, never the whole result.
    expect(byFilter.every((u) => /pageSize=\d+/.test(u))).toBe(true);
    await pager.getByRole('button', { name: 'Next ▶' }).click();
    await expect.poll(async () => pager.innerText()).toContain('21–40 of 40');
    const towns = (rows: string[][]) => rows.map((r) => r.find((c) => c.includes('Town'))!);
    // The pager moves as soon as it is clicked; the rows follow when page 2 has arrived.
    await expect.poll(async () => towns(await rowsOf())[0]).not.toBe(towns(page1)[0]);
    const page2 = await rowsOf();
    expect(page2).toHaveLength(20);
    expect(new Set([...towns(page1), ...towns(page2)]).size).toBe(40);
    await shot(page, 'home-paged');
    // Sort by Change %: the page starts again at 1, largest first.
    await table.getByRole('button', { name: 'Change %' }).click();
    await expect.poll(async () => pager.innerText()).toContain('1–20 of 40');
    await expect
      .poll(async () => table.getByRole('columnheader', { name: /Change %/ }).getAttribute('aria-sort'))
      .toBe('descending');
    const header = await table.locator('thead th').allInnerTexts();
    const col = header.findIndex((h) => h.startsWith('Change %'));
    const pctsOf = async () => (await rowsOf()).map((r) => Number(r[col].replace(/[^\d.-]/g, '')));
    // The header turns first; the sorted page follows with its answer.
    await expect.poll(async () => (await pctsOf())[0]).toBe(100);
    const pcts = await pctsOf();
    expect(pcts).toEqual([...pcts].sort((a, b) => b - a));
    const download = page.waitForEvent('download');
    await pager.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    const csv = readFileSync((await file.path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(csv).toHaveLength(41);
    const csvHeader = csv[0].split(',');
    expect(csvHeader.slice(-2)).toEqual(['Country', 'City']);
    const pctCol = csvHeader.indexOf('changePct');
    expect(Number(csv[1].split(',')[pctCol])).toBe(100);
  });
});
