/**
 * What one filter run may read and answer (docs/filters.md, "Bounds"): a Custom range spans at most two
 * years, a merged or aggregated run reads at most FILTER_MAX_RECORDS anomalies, a CSV at most 5 MiB, and
 * no answer passes the 6 MB a Lambda response can carry. Each refusal is a 4xx problem that says how to
 * ask for less, checked through the real handlers behind the local HTTP gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CSV_BYTES } from '../../../lib/anomalies/pages';
import { MAX_RESPONSE_BYTES } from '../../../lib/http/response-size';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';
import { addAnomalies, addComment, createView } from '../../integration/filters/fixtures';

const NOW = '2024-03-06T09:00:00Z';
const ANOMALIES = 3_000;
const CZ = 100;
const CAP = 500;

describe(`bounded reads and answers on ${backendName}`, () => {
  let s: TestService;
  let filterId: number;

  beforeAll(async () => {
    s = await startTestService({ FILTER_MAX_RECORDS: String(CAP) });
    s.container.clock = fixedClock(NOW);
    const db = s.testDb.db;
    const view = await createView(db, { domain: 'sales', name: 'orders', categories: ['Country', 'City'] });
    await addAnomalies(
      db,
      view,
      Array.from({ length: ANOMALIES }, (_, i) => ({
        startDate: `2024-03-0${1 + (i % 5)}`,
        change: i + 1,
        sin: ANOMALIES - i,
        categories: { Country: i < CZ ? 'CZ' : 'DE', City: `City ${String(i).padStart(4, '0')}` },
      })),
    );
    // One long comment over the whole window: every record carries it, in JSON and in CSV.
    await addComment(db, {
      dataViewId: view.id,
      text: 'Stock count, see the "inventory" note. '.repeat(50),
      dateFrom: '2024-03-01',
      dateTo: '2024-03-05',
    });
    const created = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'Everything', timeRange: 'Last 7 Days', sortBy: 'SIN', limit: ANOMALIES },
    });
    expect(created.status).toBe(201);
    filterId = created.body.id;
  });
  afterAll(async () => {
    await s?.stop();
  });

  const query = (body: Record<string, unknown>) =>
    s.call('POST', '/api/v1/anomalies/query', { auth: s.adminToken, body });
  const byFilter = (q: string) =>
    s.call('GET', `/api/v1/anomalies/by-filter/${filterId}${q}`, { auth: s.adminToken });
  const paths = (r: { body: { errors?: Array<{ path: string }> } }) => r.body.errors?.map((e) => e.path);

  it('refuses a Custom range longer than 731 days, run or saved, naming dateTo', async () => {
    const tooLong = { timeRange: 'Custom', dateFrom: '2021-01-01', dateTo: '2024-03-05', limit: 10 };
    const run = await query(tooLong);
    expect(run.status).toBe(400);
    expect(paths(run)).toEqual(['dateTo']);
    expect(run.body.errors[0].message).toMatch(/at most 731 days from dateFrom/);
    const saved = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'Three years', ...tooLong },
    });
    expect(saved.status).toBe(400);
    expect(paths(saved)).toEqual(['dateTo']);
    // Two years to the day, both ends included, is the longest allowed.
    const longest = await query({ ...tooLong, dateFrom: '2022-03-06' });
    expect(longest.status).toBe(200);
    expect(longest.body.timeRange).toMatchObject({ dateFrom: '2022-03-06', dateTo: '2024-03-05' });
  });

  it('refuses a merged or aggregated run over more than FILTER_MAX_RECORDS anomalies, naming timeRange', async () => {
    for (const setting of [{ mergeEvents: true }, { isAggregated: true }]) {
      const r = await query({ timeRange: 'Last 7 Days', limit: 10, ...setting });
      expect(r.status, JSON.stringify(setting)).toBe(413);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(paths(r)).toEqual(['timeRange']);
      expect(r.body.detail).toMatch(/more than 500 anomalies/);
    }
    // Narrowed below the cap, the same run answers.
    const narrowed = await query({
      timeRange: 'Last 7 Days',
      limit: 10,
      mergeEvents: true,
      categoriesFilter: 'Country=CZ',
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.anomalies).toHaveLength(10);
  });

  it('answers 413 instead of a JSON answer past the Lambda limit, and the pages of it', async () => {
    const whole = await byFilter('');
    expect(whole.status).toBe(413);
    expect(whole.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(whole.body.detail).toMatch(/more than the 6\.0 MB .*offset= and pageSize=/);
    let total = 0;
    for (let offset = 0; offset < ANOMALIES; offset += 1_000) {
      const page = await byFilter(`?offset=${offset}&pageSize=1000`);
      expect(page.status).toBe(200);
      expect(page.body.anomalies).toHaveLength(1_000);
      expect(page.body.anomalies[0].comments).toHaveLength(1);
      expect(page.body.page.total).toBe(ANOMALIES);
      total += Buffer.byteLength(page.text);
    }
    // The pages together are what the refused answer would have held.
    expect(total).toBeGreaterThan(MAX_RESPONSE_BYTES);
  });

  it('refuses a CSV over 5 MiB naming pageSize, and exports it in pages', async () => {
    const whole = await byFilter('?format=csv');
    expect(whole.status).toBe(413);
    expect(paths(whole)).toEqual(['pageSize']);
    expect(whole.body.detail).toMatch(/CSV of 3000 records would be .* MiB.*pageSize=/);
    const lines: string[] = [];
    for (let offset = 0; offset < ANOMALIES; offset += 1_000) {
      const page = await byFilter(`?format=csv&sortBy=sin&order=desc&offset=${offset}&pageSize=1000`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(Buffer.byteLength(page.text)).toBeLessThan(MAX_CSV_BYTES);
      lines.push(...page.text.split('\r\n').filter((l) => /^\d/.test(l)));
    }
    // Every record once, in pages of 1,000 (each line starts with the record's id).
    expect(new Set(lines.map((l) => l.split(',')[0])).size).toBe(ANOMALIES);
  });
});
