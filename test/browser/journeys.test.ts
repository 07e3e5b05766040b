/**
 * The main journeys of the web UI in Debian's chromium: an admin signs in, creates a connector, creates and
 * deploys a data view, loads it, sees its anomalies on Home, comments on one, pins and shares a filter;
 * the recipient signs in and sees it. Steps build on each other, in order.
 * UPDATE_SCREENSHOTS=1 also writes docs/screenshots/*.png.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedPglite } from '../../scripts/local/pglite-server';
import { backendName } from '../support/db';
import {
  CONNECTOR,
  connString,
  SALES_YAML,
  SUMMARY_TEXT,
  startFakeModel,
  startSalesSource,
} from './fixtures';
import {
  ADMIN,
  ensureWebBuilt,
  hasChromium,
  launchChromium,
  SKIP_REASON,
  shot,
  signIn,
  startWebService,
  USER,
  type WebService,
} from './support';
import { skippedBecause } from '../support/skip';

/** The demo data drops Brno's web sales by 70 % over the last week: detection reports it as a DOD anomaly. */
const BRNO_WEB_DROP = /Show chart of the DOD anomaly .*city=Brno · channel=web/;

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const go = (page: Page, name: string) => nav(page).getByRole('link', { name, exact: true }).click();

describe.skipIf(!hasChromium)(`web UI journeys on ${backendName}`, () => {
  let w: WebService;
  let source: ServedPglite;
  let model: Awaited<ReturnType<typeof startFakeModel>>;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  let dataViewId = 0;
  const requested: string[] = [];

  beforeAll(async () => {
    await ensureWebBuilt();
    source = await startSalesSource();
    model = await startFakeModel();
    w = await startWebService({ CONNECTOR_TIMEOUT_MS: '5000' });
    browser = await launchChromium();
    admin = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    admin.on('request', (r) => requested.push(r.url()));
    page = await admin.newPage();
    page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await browser?.close();
    await w?.stop();
    await source?.close();
    await model?.close();
  });

  it('signs an administrator in and shows the navigation for administrators', async () => {
    await page.goto(w.url);
    await page.getByLabel('E-mail').waitFor();
    await shot(page, 'sign-in');
    await signIn(page, w.url, ADMIN);
    const links = await nav(page).getByRole('link').allTextContents();
    expect(links).toEqual([
      'Home',
      'Filters',
      'Explorer',
      'Data views',
      'Connectors',
      'Comments',
      'My alerts',
      'Users',
      'API keys',
      'Licence',
      'Settings',
    ]);
    await expect.poll(() => page.getByText('No pinned or shared filters yet.').isVisible()).toBe(true);
  });

  it('creates connectors without showing their secrets again; a passing test turns one active (green), a failing one failed (red)', async () => {
    await go(page, 'Connectors');
    await page.getByRole('button', { name: 'New connector' }).click();
    await page.getByLabel('Name').fill(CONNECTOR);
    await page.getByLabel('Description').fill('Demo sales database');
    await page.getByLabel('Connection string').fill(connString(source));
    await shot(page, 'connector-form');
    await page.getByRole('button', { name: 'Create connector' }).click();
    await page.getByText(`Connector ${CONNECTOR} saved.`).waitFor();
    expect(await page.locator('main').textContent()).not.toContain('Password=demo');
    await page.getByRole('button', { name: `Test ${CONNECTOR} now` }).click();
    const badge = page.getByRole('row', { name: new RegExp(CONNECTOR) }).locator('.badge');
    await expect.poll(() => badge.textContent()).toBe('active');
    expect(await badge.getAttribute('class')).toContain('green');

    // A connector whose database is not there: its test fails and it turns red.
    await page.getByRole('button', { name: 'New connector' }).click();
    await page.getByLabel('Name').fill('warehouse');
    await page
      .getByLabel('Connection string')
      .fill('Host=127.0.0.1;Port=1;Database=dw;Username=etl;Password=secret');
    await page.getByRole('button', { name: 'Create connector' }).click();
    await page.getByText('Connector warehouse saved.').waitFor();
    await page.getByRole('button', { name: 'Test warehouse now' }).click();
    const red = page.getByRole('row', { name: /warehouse/ }).locator('.badge');
    await expect.poll(() => red.textContent()).toBe('failed');
    expect(await red.getAttribute('class')).toContain('red');
    await shot(page, 'connectors');
  });

  it('creates a data view in the YAML editor, with errors shown at their line, cron Validate and the sample data', async () => {
    await go(page, 'Data views');
    await page.getByRole('link', { name: 'New data view' }).click();
    const editor = page.getByLabel('Definition (YAML, schemaVersion 3)');
    // The page settles first (the definition's schema arrives and reconfigures the editor): a fill during that, on
    // a loaded machine, once landed beside the starter text instead of replacing it.
    await page.waitForLoadState('networkidle');
    await editor.fill(SALES_YAML.replace('name: daily_sales', 'name: daily sales'));
    await page.getByRole('button', { name: 'Create data view' }).click();
    const errors = page.getByRole('list', { name: 'Definition errors' });
    await expect.poll(() => errors.textContent()).toMatch(/Line 3.*metadata\.name/);
    await shot(page, 'dataview-errors');
    await editor.fill(SALES_YAML);
    await page.getByRole('button', { name: 'Create data view' }).click();
    await page.getByRole('heading', { name: 'retail / daily_sales' }).waitFor();
    dataViewId = Number(new URL(page.url()).pathname.split('/').pop());
    expect(dataViewId).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Validate' }).click();
    await expect.poll(() => page.locator('.next-runs li').count()).toBe(5);
    await page.getByRole('button', { name: 'Preview load query' }).click();
    await page.getByText('First 10 rows of the load query').waitFor();
    expect(await page.locator('table.results tbody tr').count()).toBe(10);
    await shot(page, 'dataview-editor');

    await page.getByLabel('Cron expression').fill('61 * * * * *');
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect.poll(() => page.locator('.field.invalid .field-error').first().textContent()).toBeTruthy();
  });

  it('deploys and enables the view, offering only the actions its state allows', async () => {
    const actions = page.getByRole('region', { name: 'Management' });
    expect(await actions.getByRole('button').allTextContents()).toEqual(['Deploy', 'Delete data view']);
    await actions.getByRole('button', { name: 'Deploy', exact: true }).click();
    await expect.poll(() => page.locator('.page-header .badge').textContent()).toBe('disabled');
    expect(await actions.getByRole('button', { name: 'Deploy', exact: true }).count()).toBe(0);
    await actions.getByRole('button', { name: 'Enable', exact: true }).click();
    await expect.poll(() => page.locator('.page-header .badge').textContent()).toBe('enabled');
    expect(await actions.getByRole('button').allTextContents()).toEqual([
      'Disable',
      'Start normal daily load',
      'Start detection analytics jobs',
      'Recalculate baseline tables',
      'Remove all queued jobs',
      'Clean deployment',
      'Delete deployment',
    ]);
    await go(page, 'Data views');
    const badge = page.getByRole('row', { name: /retail \/ daily_sales/ }).locator('.badge');
    expect(await badge.textContent()).toBe('enabled');
    expect(await badge.getAttribute('class')).toContain('green');
    await shot(page, 'dataviews');
  });

  it('loads the view and runs detection, the job list updating by itself until both finish', async () => {
    await page.goto(`${w.url}/dataviews/${dataViewId}`);
    const jobs = page.getByRole('region', { name: 'Jobs' });
    await page.getByRole('button', { name: 'Start normal daily load' }).click();
    await expect
      .poll(() => jobs.getByRole('row', { name: /Load.*finished/ }).count(), { timeout: 45_000 })
      .toBe(1);
    await page.getByRole('button', { name: 'Start detection analytics jobs' }).click();
    await expect
      .poll(() => jobs.getByRole('row', { name: /Process.*finished/ }).count(), { timeout: 45_000 })
      .toBeGreaterThan(0);
    await expect.poll(() => jobs.getByText('0 pending, 0 running').count(), { timeout: 45_000 }).toBe(1);
    expect(await jobs.getByRole('row', { name: /failed/ }).count()).toBe(0);
    await shot(page, 'dataview-jobs');
  });

  it('shows the anomalies of a pinned filter on Home with a chart, and takes a comment from an anomaly', async () => {
    await go(page, 'Filters');
    await page.getByRole('link', { name: 'New filter' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Retail drops');
    await page.getByLabel('Comment (header on Home)').fill('Where did retail sales drop?');
    await page.getByLabel('retail / daily_sales').check();
    await expect.poll(() => page.locator('.preview-pane tbody tr').count()).toBeGreaterThan(0);
    await shot(page, 'filter-editor');
    await page.getByRole('button', { name: 'Create filter' }).click();
    await page.getByRole('heading', { name: 'Filter: Retail drops' }).waitFor();
    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await page.getByText('Pinned: it shows on Home.').waitFor();

    await go(page, 'Home');
    const card = page.getByRole('region', { name: 'Where did retail sales drop?' });
    await card.getByRole('button', { name: BRNO_WEB_DROP }).click();
    await card.getByRole('img', { name: /anomaly of retail \/ daily_sales/ }).waitFor();
    await card.getByRole('button', { name: 'Add comment' }).click();
    await card.getByRole('button', { name: 'Load categories' }).click();
    await card.getByRole('checkbox', { name: 'Use Country' }).waitFor();
    await card.getByLabel('Comment', { exact: true }).fill('Web shop outage in Brno');
    await shot(page, 'home-comment-form');
    await card.getByRole('button', { name: 'Save comment' }).click();
    await card.locator('.comments').getByText('Web shop outage in Brno').waitFor();
    expect(await card.locator('.comment-marker').count()).toBe(1);
  });

  it("configures the language model and shows the filter's AI summary on Home", async () => {
    await go(page, 'Settings');
    await page.getByLabel('URL').fill(model.url);
    await page.getByLabel('Headers').fill('Authorization: Bearer test-key');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await page.getByRole('button', { name: 'Test the endpoint' }).click();
    await page.getByText(`The endpoint answered: ${SUMMARY_TEXT}`).waitFor();
    expect(await page.getByLabel('Headers').inputValue()).not.toContain('test-key');
    await shot(page, 'settings');

    await go(page, 'Filters');
    await page.getByRole('link', { name: 'Retail drops' }).click();
    await page.getByLabel('Summarise with AI').check();
    await page.getByLabel('Instructions').fill('Two sentences for the sales team.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Filter saved.').waitFor();

    await go(page, 'Home');
    const card = page.getByRole('region', { name: 'Where did retail sales drop?' });
    await card.getByRole('button', { name: 'Refresh summary' }).click();
    await card.getByText(SUMMARY_TEXT).waitFor();
    expect(model.prompts.at(-1)).toContain('Two sentences for the sales team.');
    await card.getByRole('button', { name: BRNO_WEB_DROP }).click();
    await card.getByRole('img', { name: /anomaly of retail \/ daily_sales/ }).waitFor();
    await shot(page, 'home');
  });

  it('shares the filter with a data user, who sees it on Home and can preview changes but not save them', async () => {
    await go(page, 'Users');
    await page.getByRole('button', { name: `Edit ${USER.email}` }).click();
    await page.getByLabel('retail / daily_sales').check();
    await page.getByRole('button', { name: 'Save user' }).click();
    await page.getByText(`${USER.email} saved.`).waitFor();
    await shot(page, 'users');

    await go(page, 'Filters');
    await shot(page, 'filters');
    await page.getByRole('link', { name: 'Retail drops' }).click();
    await page.getByLabel(USER.email).check();
    await page.getByRole('button', { name: 'Save sharing' }).click();
    await page.getByText('Shared with 1 user.').waitFor();

    const other = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const recipient = await other.newPage();
    recipient.setDefaultTimeout(15_000);
    await recipient.goto(w.url);
    // Keyboard only: type, Tab to the next field, Enter submits.
    await recipient.getByLabel('E-mail').fill(USER.email);
    await recipient.keyboard.press('Tab');
    await recipient.keyboard.type(USER.password);
    await recipient.keyboard.press('Enter');
    await nav(recipient).waitFor();
    expect(await nav(recipient).getByRole('link').allTextContents()).toEqual([
      'Home',
      'Explorer',
      'Comments',
      'My alerts',
    ]);
    const card = recipient.getByRole('region', { name: 'Where did retail sales drop?' });
    await card.getByText(`shared by ${ADMIN.email}`).waitFor();
    // The data user sees the admin's comment on the anomaly and adds one (on an assigned view).
    await card.getByRole('button', { name: BRNO_WEB_DROP }).click();
    await card.locator('.comments').getByText('Web shop outage in Brno').waitFor();
    await card.getByRole('button', { name: 'Add comment' }).click();
    await card.getByRole('button', { name: 'Load categories' }).click();
    expect(await card.getByRole('combobox', { name: 'City value' }).inputValue()).toBe('Brno');
    await card.getByLabel('Comment', { exact: true }).fill('Confirmed by the Brno store manager');
    await card.getByRole('button', { name: 'Save comment' }).click();
    await card.locator('.comments').getByText('Confirmed by the Brno store manager').waitFor();
    await shot(recipient, 'home-data-user');

    await card.getByRole('link', { name: 'Preview changes' }).click();
    await recipient.getByText('only the owner can save them').waitFor();
    expect(await recipient.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await recipient.getByLabel('Top N').fill('1');
    await expect.poll(() => recipient.locator('.preview-pane tbody tr').count()).toBe(1);
    await shot(recipient, 'filter-preview-recipient');
    await other.close();
  });

  it('lists the comment, creates an API key shown once, and counts the data view against the licence', async () => {
    await go(page, 'Comments');
    await page.getByRole('cell', { name: 'Web shop outage in Brno' }).waitFor();
    await shot(page, 'comments');

    await go(page, 'API keys');
    await page.getByLabel('Name').fill('orchestrator');
    await page.getByLabel('Start jobs (load, process, custom load)').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('.secret').textContent();
    expect(key?.length).toBeGreaterThan(20);
    await page.getByRole('cell', { name: 'orchestrator' }).waitFor();
    await shot(page, 'api-keys');
    await page.reload();
    await page.getByRole('cell', { name: 'orchestrator' }).waitFor();
    expect(await page.locator('main').textContent()).not.toContain(key);

    await go(page, 'Licence');
    await page.getByText('1 of 50').waitFor();
    await shot(page, 'licence');
  });

  it('fetched nothing but its own origin during the journeys (no CDN fonts or scripts)', () => {
    expect(requested.length).toBeGreaterThan(50);
    expect(requested.filter((u) => !u.startsWith(`${w.url}/`) && !u.startsWith('data:'))).toEqual([]);
  });
});

// Without chromium the journeys above are skipped; this line says why in the report.
if (!hasChromium) skippedBecause(SKIP_REASON);
