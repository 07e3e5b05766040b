import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { dataViews } from '../../../lib/db/tables/dataviews';
import { runDetection } from '../../../lib/process-job/start';
import type { DataViewDefinition, FiscalCalendar } from '../../../lib/dataviews/definition/types';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { startTestService, type TestService } from '../../support/service';

describe(`fiscal time ranges over HTTP on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;

  async function view(name: string, fiscal?: FiscalCalendar, values = [1, 2, 3]): Promise<number> {
    const db = s.testDb.db;
    const id = await loadedDetectionView(db, source, {
      name,
      categories: [{ name: 'shop' }],
      detectors: [{ type: 'dod', params: { percentualChange: 30 } }],
      series: [{ categories: { shop: 'S1' }, values }],
    });
    const [row] = await db.orm.select().from(dataViews).where(eq(dataViews.id, id));
    const def = row.definition as unknown as DataViewDefinition;
    if (fiscal) def.analysis.fiscal = fiscal;
    await db.orm
      .update(dataViews)
      .set({ definition: def as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, id));
    return id;
  }
  const query = (timeRange: string, views: string) =>
    s.call('POST', '/api/v1/anomalies/query', { auth: s.adminToken, body: { timeRange, dataViews: views } });

  beforeAll(async () => {
    s = await startTestService();
    source = await createTestSource();
    await view('april_a', { startMonth: 4 });
    await view('april_b', { startMonth: 4 });
    await view('plain');
    // 2024-01-01 .. 2024-01-28, one doubled day on 2024-01-26 (fiscal month 10 of FY2023 from April).
    const spikeView = await view(
      'april_spike',
      { startMonth: 4 },
      Array.from({ length: 28 }, (_, t) => (t === 25 ? 200 : 100)),
    );
    await runDetection(
      { db: s.testDb.db, config: loadConfig({ LOG_LEVEL: 'silent' }) } as unknown as Container,
      spikeView,
      9000 + spikeView,
    );
  }, 120_000);
  afterAll(async () => {
    await source.stop();
    await s.stop();
  });

  it("resolves a fiscal time range with the views' fiscal calendar", async () => {
    const r = await query('Previous Fiscal Year', 'retail / april_a;retail / april_b');
    expect(r.status).toBe(200);
    const { dateFrom, dateTo } = r.body.timeRange;
    expect(dateFrom.slice(5)).toBe('04-01');
    expect(dateTo.slice(5)).toBe('03-31');
    expect(Number(dateTo.slice(0, 4))).toBe(Number(dateFrom.slice(0, 4)) + 1);
  });

  it('uses calendar periods for views without one', async () => {
    const r = await query('Previous Fiscal Year', 'retail / plain');
    expect(r.status).toBe(200);
    expect(r.body.timeRange.dateFrom.slice(5)).toBe('01-01');
    expect(r.body.timeRange.dateTo.slice(5)).toBe('12-31');
  });

  it('names the fiscal period of each record of a view with a fiscal calendar', async () => {
    const r = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: {
        timeRange: 'Custom',
        dateFrom: '2024-01-01',
        dateTo: '2024-01-31',
        dataViews: 'retail / april_spike',
      },
    });
    expect(r.status).toBe(200);
    const spike = r.body.anomalies.find((a: { startDate: string }) => a.startDate === '2024-01-26');
    expect(spike).toMatchObject({ type: 'DOD', fiscalPeriod: 'FY2023 M10' });
  });

  it('refuses a fiscal time range over views of different fiscal calendars', async () => {
    const r = await query('This Fiscal Quarter', 'retail / april_a;retail / plain');
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ path: 'timeRange' })]);
    expect(r.body.errors[0].message).toMatch(/different fiscal calendars/);
  });
});
