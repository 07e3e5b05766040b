import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition, FiscalCalendar } from '../../../lib/dataviews/definition/types';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { startTestService, type TestService } from '../../support/service';

describe(`fiscal time ranges over HTTP on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;

  async function view(name: string, fiscal?: FiscalCalendar): Promise<void> {
    const db = s.testDb.db;
    const id = await loadedDetectionView(db, source, {
      name,
      categories: [{ name: 'shop' }],
      detectors: [],
      series: [{ categories: { shop: 'S1' }, values: [1, 2, 3] }],
    });
    const [row] = await db.orm.select().from(dataViews).where(eq(dataViews.id, id));
    const def = row.definition as unknown as DataViewDefinition;
    if (fiscal) def.analysis.fiscal = fiscal;
    await db.orm
      .update(dataViews)
      .set({ definition: def as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, id));
  }
  const query = (timeRange: string, views: string) =>
    s.call('POST', '/api/v1/anomalies/query', { auth: s.adminToken, body: { timeRange, dataViews: views } });

  beforeAll(async () => {
    s = await startTestService();
    source = await createTestSource();
    await view('april_a', { startMonth: 4 });
    await view('april_b', { startMonth: 4 });
    await view('plain');
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

  it('refuses a fiscal time range over views of different fiscal calendars', async () => {
    const r = await query('This Fiscal Quarter', 'retail / april_a;retail / plain');
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ path: 'timeRange' })]);
    expect(r.body.errors[0].message).toMatch(/different fiscal calendars/);
  });
});
