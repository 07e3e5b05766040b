/**
 * The ratio measure through the process job: value ÷ count per day, Σ value ÷ Σ count at every level,
 * records of measure "ratio" with their figures per event, the definition's `analysis.measures`, the
 * chart of a ratio anomaly, feedback on it and the filters' `measures`.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnomalyDeps } from '../../../lib/anomalies/run';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../../lib/dataviews/definition/types';
import { putFeedback } from '../../../lib/feedback/service';
import { recordEndDate } from '../../../lib/process-job';
import { systemCaller } from '../../../lib/identity/caller';
import { runDetection } from '../../../lib/process-job/start';
import { seriesChart } from '../../../lib/series-explorer/series-chart';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadView } from '../../support/detection-fixture';
import { createDeployedView } from '../../support/pipeline-fixture';
import { createCaller } from '../filters/fixtures';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const DAYS = 28; // 2024-01-01 .. 2024-01-28
const ymd = (t: number) => {
  const d = new Date(Date.UTC(2024, 0, 1 + t));
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
};

interface Row {
  series: string;
  series_id: number;
  measure: string;
  type: string;
  start_date: string;
  result: string;
  actual_value: number;
  predicted_value: number;
  share_pct: number | null;
}

describe(`the ratio measure in the process job on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  const container = () => ({ db: t.db, config: loadConfig({ LOG_LEVEL: 'silent' }) }) as unknown as Container;

  /** A view over `name` (day, hotel, revenue, nights) with DOD; series[hotel] = [revenue, nights] per day. */
  async function view(
    name: string,
    series: Record<string, Array<[number, number]>>,
    analysis: Partial<DataViewDefinition['analysis']> = {},
  ): Promise<number> {
    const rows: string[] = [];
    for (const [hotel, days] of Object.entries(series))
      for (const [d, [revenue, nights]] of days.entries())
        rows.push(`(${ymd(d)}, '${hotel}', ${revenue}, ${nights})`);
    await source.exec(`DROP TABLE IF EXISTS ${name}; CREATE TABLE ${name} (day integer, hotel text, revenue double precision, nights double precision);
      INSERT INTO ${name} VALUES ${rows.join(',\n')};`);
    const id = await createDeployedView(t.db, {
      name,
      loadQuery: `SELECT day, hotel, revenue AS amount, nights FROM ${name}`,
      categories: [{ name: 'hotel' }],
      countColumn: 'nights',
    });
    const [row] = await t.db.orm.select().from(dataViews).where(eq(dataViews.id, id));
    const def = row.definition as unknown as DataViewDefinition;
    def.analysis = {
      ...def.analysis,
      detectors: [{ type: 'dod', params: { percentualChange: 20, mode: 'both', useSpecialDates: false } }],
      ...analysis,
    } as DataViewDefinition['analysis'];
    await t.db.orm
      .update(dataViews)
      .set({ definition: def as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, id));
    await loadView(t.db, source, id);
    return id;
  }

  async function stored(id: number): Promise<Row[]> {
    const s = schemaNameFor(id);
    return t.db.rows<Row>(
      sql.raw(`SELECT coalesce(m.c_hotel, '*') AS series, a.series_id, a.measure, a.type, to_char(a.start_date, 'YYYY-MM-DD') AS start_date,
        a.result, a.actual_value, a.predicted_value, a.share_pct FROM ${s}.all_anomalies a JOIN ${s}.cat_map m USING (series_id)
        ORDER BY a.measure, a.start_date, 1`),
    );
  }

  const weekly = [1, 1.04, 0.97, 1.02, 0.99, 1.06, 0.95];
  /** About `nights` room nights a day at `rate` each, a mild weekly pattern on both. */
  const hotel = (rate: number, nights: number): Array<[number, number]> =>
    Array.from({ length: DAYS }, (_, d) => {
      const n = Math.round(nights * weekly[(d + 3) % 7]);
      return [Math.round(n * rate * weekly[d % 7]), n];
    });

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('finds a price cut with steady bookings as a ratio anomaly, per night, and not a volume rise at steady prices', async () => {
    // A: the rate falls from about 100 to 40 on 2024-01-26 (bookings steady). B: twice the bookings on
    // 2024-01-24 at the usual rate. C: steady.
    const a = hotel(100, 200).map(([r, n], d): [number, number] => [d === 25 ? Math.round(n * 40) : r, n]);
    const b = hotel(120, 150).map(([r, n], d): [number, number] => (d === 23 ? [r * 2, n * 2] : [r, n]));
    const id = await view('adr', { A: a, B: b, C: hotel(80, 100) });
    const detail = await runDetection(container(), id, 7101);
    expect(detail).toMatchObject({ measures: ['value', 'count', 'ratio'] });
    const rows = await stored(id);
    const ratio = rows.filter((r) => r.measure === 'ratio');
    const cut = ratio.find((r) => r.series === 'A' && r.start_date === '2024-01-26');
    expect(cut).toMatchObject({ type: 'DOD', result: 'Negative' });
    // Per night: the day's revenue ÷ its nights, the expectation near the usual rate.
    expect(cut?.actual_value).toBeCloseTo(a[25][0] / a[25][1], 6);
    expect(cut?.predicted_value ?? 0).toBeGreaterThan(85);
    expect(cut?.predicted_value ?? 0).toBeLessThan(115);
    // Its share %: the hotel's revenue in the view's revenue that day.
    const total = a[25][0] + b[25][0] + hotel(80, 100)[25][0];
    expect(cut?.share_pct).toBeCloseTo((a[25][0] / total) * 100, 4);
    // The grand total's rate is Σ revenue ÷ Σ nights: A's cut moves it by about a quarter, found too.
    expect(ratio.map((r) => `${r.series} ${r.start_date}`)).toContain('* 2024-01-26');
    // B's bookings doubled at the usual rate: a value (and count) event, no ratio anomaly.
    expect(rows.filter((r) => r.series === 'B' && r.measure === 'value').map((r) => r.start_date)).toContain(
      '2024-01-24',
    );
    expect(ratio.filter((r) => r.series === 'B')).toEqual([]);

    // The anomaly chart of a ratio anomaly draws the ratio.
    const chart = await seriesChart({ db: t.db }, systemCaller(), id, Number(cut?.series_id), {
      type: 'DOD',
      measure: 'ratio',
      dateFrom: '2024-01-26',
      dateTo: '2024-01-26',
    });
    expect(chart.measure).toBe('ratio');
    expect(chart.points[0].value).toBeCloseTo(a[25][0] / a[25][1], 6);

    // Feedback may sit on a ratio record; the filters select the measure.
    const admin = await createCaller(t.db, 'admin@example.com', 'admin');
    const feedback = await putFeedback(
      t.db,
      admin,
      {
        dataViewId: id,
        seriesId: Number(cut?.series_id),
        measure: 'ratio',
        type: 'DOD',
        startDate: '2024-01-26',
        status: 'confirmed',
      },
      recordEndDate,
    );
    expect(feedback).toMatchObject({ measure: 'ratio', status: 'confirmed' });
    const deps: AnomalyDeps = { db: t.db, clock: fixedClock('2024-02-01T12:00:00Z'), timeZone: 'UTC' };
    const answer = await runFilterDefinition(
      deps,
      systemCaller(),
      { timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-01-31', measures: 'ratio', limit: 100 },
      true,
      {},
    );
    expect(answer.anomalies.length).toBe(ratio.length);
    expect(answer.anomalies.every((x) => x.measure === 'ratio')).toBe(true);
  });

  it('analyses the measures the definition names (analysis.measures)', async () => {
    const a = hotel(100, 200).map(([r, n], d): [number, number] => [d === 25 ? Math.round(n * 60) : r, n]);
    const id = await view('chosen', { A: a, C: hotel(80, 100) }, { measures: ['ratio'] });
    const detail = await runDetection(container(), id, 7102);
    expect(detail).toMatchObject({ measures: ['ratio'] });
    const rows = await stored(id);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.measure === 'ratio')).toBe(true);
  });
});
