/**
 * Feedback and alerts in Debian's chromium: a data user opens a filter shared with them, marks an anomaly
 * "Expected" with a note (the badge shows in the table), subscribes the filter to a webhook (the secret is shown
 * once) under a name of their choice, finds the subscription on "My alerts" and renames it there.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnomalies, createView } from '../integration/filters/fixtures';
import {
  ADMIN,
  ensureWebBuilt,
  hasChromium,
  launchChromium,
  signIn,
  USER,
  type WebService,
  startWebService,
} from './support';

describe.skipIf(!hasChromium)('feedback and alerts in the browser', () => {
  let w: WebService;
  let browser: Browser;
  let page: Page;
  let filterId = 0;

  beforeAll(async () => {
    await ensureWebBuilt();
    w = await startWebService();
    const db = w.api.testDb.db;
    const view = await createView(db, { domain: 'retail', name: 'stores', categories: ['city'] });
    await addAnomalies(db, view, [
      { startDate: '2024-03-05', type: 'DOD', categories: { city: 'Brno' }, sin: 3 },
      { startDate: '2024-03-07', type: 'DOD', categories: { city: 'Praha' }, sin: 2 },
    ]);
    const users = (await w.api.call('GET', '/api/v1/users', { auth: w.api.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await w.api.call('PUT', `/api/v1/users/${userId}`, {
      auth: w.api.adminToken,
      body: { dataViewIds: [view.id] },
    });
    const f = await w.api.call('POST', '/api/v1/anomaly-filters', {
      auth: w.api.adminToken,
      body: { name: 'March stores', timeRange: 'Custom', dateFrom: '2024-03-01', dateTo: '2024-03-31' },
    });
    filterId = f.body.id;
    await w.api.call('POST', `/api/v1/anomaly-filters/${filterId}/share`, {
      auth: w.api.adminToken,
      body: { targetUserIds: [userId] },
    });
    // The test target is on loopback, which alert targets reach only where private networks are allowed.
    await w.api.call('PUT', '/api/v1/settings/alerts', {
      auth: w.api.adminToken,
      body: { allowPrivateNetwork: true },
    });
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await w?.stop();
  });

  it('lets a data user mark an anomaly expected with a note, and shows it', async () => {
    await signIn(page, w.url, USER);
    await page.goto(`${w.url}/filters/${filterId}`);
    await page.getByRole('button', { name: /Show chart of the DOD anomaly .*city=Brno/ }).click();
    await page.getByRole('button', { name: 'Give feedback' }).click();
    await page.getByRole('radio', { name: 'Expected' }).check();
    await page.getByLabel('Note (optional)').fill('Spring promotion');
    await page.getByRole('button', { name: 'Save feedback' }).click();
    const current = page.getByTestId('feedback-current');
    await expect.poll(() => current.textContent()).toContain('Spring promotion');
    expect(await current.textContent()).toContain(`Expected — Spring promotion by ${USER.email}`);
    const stored = await w.api.call('GET', '/api/v1/anomalies/feedback', { auth: w.api.adminToken });
    expect(stored.body).toHaveLength(1);
    expect(stored.body[0]).toMatchObject({ status: 'expected', note: 'Spring promotion', email: USER.email });
    // Reloaded, the table marks the record.
    await page.reload();
    await expect
      .poll(() => page.locator('.badge', { hasText: 'Expected' }).count(), { timeout: 15_000 })
      .toBe(1);
    // The filter setting hides it from the preview.
    await page.getByLabel('Hide anomalies marked expected or not an anomaly').check();
    await expect
      .poll(() => page.getByRole('button', { name: /Show chart of the DOD anomaly .*city=Brno/ }).count())
      .toBe(0);
    expect(
      await page.getByRole('button', { name: /Show chart of the DOD anomaly .*city=Praha/ }).count(),
    ).toBe(1);
  });

  it('subscribes the filter to a webhook (secret shown once) and lists it on My alerts', async () => {
    await page.goto(`${w.url}/filters/${filterId}`);
    const panel = page.getByRole('region', { name: 'Alerts' });
    await panel.getByLabel('Name').fill('ops hook');
    await panel.getByLabel('Channel').selectOption('webhook');
    await panel.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await panel.getByRole('button', { name: 'Subscribe' }).click();
    await panel.getByText('Copy the signing secret now').waitFor();
    const secret = (await panel.locator('code.secret').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(40);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'My alerts', exact: true })
      .click();
    await page.getByRole('heading', { name: 'My alerts' }).waitFor();
    const row = page.getByRole('row', { name: /March stores/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('http://127.0.0.1:9/hook');
    expect(await row.textContent()).toContain('ops hook');
    expect(await page.content()).not.toContain(secret);

    // Renamed in place: a blank name is refused at its field, a new one is saved and listed.
    await row.getByRole('button', { name: 'Rename ops hook' }).click();
    const form = page.getByRole('form', { name: 'Rename ops hook' });
    await form.getByLabel('Name').fill('   ');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.locator('.field-error').waitFor();
    expect(await page.getByRole('row', { name: /ops hook/ }).count()).toBe(1);
    await form.getByLabel('Name').fill('stores on call');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /stores on call/ }).waitFor();
    expect(await page.getByRole('form', { name: /^Rename/ }).count()).toBe(0);
  });

  it('shows the admin the alert settings form', async () => {
    const admin = await browser.newPage();
    await signIn(admin, w.url, ADMIN);
    await admin.goto(`${w.url}/my-alerts`);
    await admin.getByRole('form', { name: 'Alert settings (administrators)' }).waitFor();
    await admin.close();
  });
});
