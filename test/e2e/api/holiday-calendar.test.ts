import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromEpochDay, toEpochDay, weekday } from '../../../lib/calendar/days';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../../lib/dataviews/definition/types';
import { validateDefinition } from '../../../lib/dataviews/definition/validate';
import { backendName } from '../../support/db';
import { loadedDetectionView, type SourceSeries } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';

// A year and a half of history: the view's first Christmas (2024) is the one judged.
const START = '2024-06-03';
const DAYS = 548; // .. 2025-12-02
const day0 = toEpochDay(START);
const WEEK = [1, 1.05, 1.1, 1.1, 1.3, 1.2, 0.6];

/** Shops that close on their country's holidays; `closed` maps a date to the share of sales left that day. */
function sales(level: number, closed: Record<string, number>, seed: number): number[] {
  let s = seed;
  const noise = () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (s / 2_147_483_648 - 0.5) * 0.06;
  };
  return Array.from({ length: DAYS }, (_, t) => {
    const date = fromEpochDay(day0 + t);
    return Math.round(level * WEEK[weekday(day0 + t)] * (1 + noise()) * (closed[date] ?? 1));
  });
}

// Austria closes on Christmas, St Stephen's, New Year and Epiphany; Germany on the first three only,
// but its series also drops on 6 January 2025: a real anomaly there (Epiphany is no German holiday).
const AT_CLOSED = {
  '2024-12-24': 0.6,
  '2024-12-25': 0.1,
  '2024-12-26': 0.1,
  '2025-01-01': 0.1,
  '2025-01-06': 0.3,
};
const DE_CLOSED = {
  '2024-12-24': 0.6,
  '2024-12-25': 0.1,
  '2024-12-26': 0.1,
  '2025-01-01': 0.1,
  '2025-01-06': 0.3,
};
const HOLIDAYS = ['2024-12-24', '2024-12-25', '2024-12-26', '2025-01-01'];
const DETECTORS = [{ type: 'dod' }, { type: 'wow' }, { type: 'spike' }, { type: 'dt' }];

interface Found {
  startDate: string;
  endDate: string;
  categories: Record<string, string | null>;
}

describe(`public-holiday calendars over HTTP on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  const admin = () => s.adminToken;

  /** Loads a view of the AT (and DE) series, sets the calendar part of its definition, runs detection. */
  async function detected(name: string, series: SourceSeries[], calendar: Partial<DataViewDefinition>) {
    const db = s.testDb.db;
    const id = await loadedDetectionView(db, source, {
      name,
      start: START,
      categories: [{ name: 'country' }],
      detectors: DETECTORS,
      series,
    });
    const [row] = await db.orm.select().from(dataViews).where(eq(dataViews.id, id));
    const def = row.definition as unknown as DataViewDefinition;
    if (calendar.analysis) def.analysis = { ...def.analysis, ...calendar.analysis };
    if (calendar.categories) def.categories = calendar.categories;
    // What is stored is what the service accepts.
    const checked = validateDefinition(def, { connectorExists: () => true });
    await db.orm
      .update(dataViews)
      .set({ definition: checked as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, id));
    const queued = await s.call('POST', `/api/v1/dataviews/${id}/jobs/process`, { auth: admin() });
    expect(queued.status).toBe(202);
    await queue.idle();
    const job = await s.call('GET', `/api/v1/jobs/${queued.body.id}`, { auth: admin() });
    expect(job.body.status).toBe('finished');
    const found = await s.call('POST', '/api/v1/anomalies/query', {
      auth: admin(),
      body: {
        timeRange: 'Custom',
        dateFrom: '2024-12-01',
        dateTo: '2025-01-31',
        dataViews: `retail / ${name}`,
        limit: 1000,
      },
    });
    expect(found.status).toBe(200);
    return found.body.anomalies as Found[];
  }

  const on = (list: Found[], country: string | null, dates: string[]) =>
    list.filter(
      (a) => a.categories.country === country && dates.some((d) => a.startDate <= d && a.endDate >= d),
    );

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
  }, 120_000);
  afterAll(async () => {
    await queue.stop();
    await source.stop();
    await s.stop();
  });

  it('reports the first Christmas of a new view as anomalies without a calendar', async () => {
    const list = await detected(
      'xmas_plain',
      [{ categories: { country: 'AT' }, values: sales(1000, AT_CLOSED, 7) }],
      {},
    );
    expect(on(list, 'AT', HOLIDAYS).length).toBeGreaterThan(0);
  }, 120_000);

  it('keeps the first Christmas out with calendar: {country: AT}', async () => {
    const list = await detected(
      'xmas_at',
      [{ categories: { country: 'AT' }, values: sales(1000, AT_CLOSED, 7) }],
      { analysis: { calendar: { country: 'AT', periods: false } } as DataViewDefinition['analysis'] },
    );
    expect(on(list, 'AT', [...HOLIDAYS, '2025-01-06'])).toEqual([]);
    expect(on(list, null, [...HOLIDAYS, '2025-01-06'])).toEqual([]);
  }, 120_000);

  it('gives each series the holidays of its country with categories: [{name: country, calendar: country}]', async () => {
    const list = await detected(
      'xmas_countries',
      [
        { categories: { country: 'Austria' }, values: sales(1500, AT_CLOSED, 7) },
        { categories: { country: 'DE' }, values: sales(1000, DE_CLOSED, 11) },
      ],
      { categories: [{ name: 'country', label: 'Country', calendar: 'country' }] },
    );
    expect(on(list, 'Austria', [...HOLIDAYS, '2025-01-06'])).toEqual([]);
    expect(on(list, 'DE', HOLIDAYS)).toEqual([]);
    // Epiphany is Austria's, not Germany's: the German drop that day is news.
    expect(on(list, 'DE', ['2025-01-06']).length).toBeGreaterThan(0);
    // The total is mostly Austrian: its holidays apply to it.
    expect(on(list, null, [...HOLIDAYS, '2025-01-06'])).toEqual([]);
  }, 120_000);
});
