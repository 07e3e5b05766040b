import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import type { Database } from '../../../lib/db/database';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../../lib/dataviews/definition/types';
import { runDetection } from '../../../lib/process-job/start';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import {
  type DetectionViewOptions,
  loadedDetectionView,
  storedAnomalies,
} from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

// 2023-12-18 (Monday) .. 2024-01-28: detectors judge a day after about three weeks of history.
const START = '2023-12-18';
const DAYS = 42;
const SPIKE = 33; // 2024-01-20, a Saturday
const flat = (value: number, days = DAYS) => Array.from({ length: days }, () => value);
const withSpike = (at: number, value: number, days = DAYS) =>
  flat(100, days).map((v, t) => (t === at ? value : v));

/** CZ is flat at 100 with one day at 200; DE is flat at 100. The total is 200, and 300 on the spike day. */
function spikeView(
  name: string,
  analysis: DetectionViewOptions['analysis'] = {},
  params: Record<string, unknown> = {},
) {
  return {
    name,
    categories: [{ name: 'country' }],
    detectors: [
      {
        type: 'dod',
        params: { percentualChange: 30, mode: 'both', useSpecialDates: false, minVolume: 0, ...params },
      },
    ],
    analysis,
    start: START,
    series: [
      { categories: { country: 'CZ' }, values: withSpike(SPIKE, 200) },
      { categories: { country: 'DE' }, values: flat(100) },
    ],
  } satisfies DetectionViewOptions;
}

describe(`the process job on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  const container = (db: Database, env: Record<string, string> = {}) =>
    ({ db, config: loadConfig({ LOG_LEVEL: 'silent', ...env }) }) as unknown as Container;
  const detect = (viewId: number, jobId = 1000 + viewId, env: Record<string, string> = {}) =>
    runDetection(container(t.db, env), viewId, jobId);
  const anomalies = (viewId: number) => storedAnomalies(t.db, viewId, ['country']);

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('reports a one-day spike as one DOD Positive with its dates, values, share and significance', async () => {
    const id = await loadedDetectionView(t.db, source, spikeView('spike'));
    const detail = await detect(id);
    expect(detail).toMatchObject({
      series: 3,
      days: 42,
      detectors: 1,
      anomalies: 2,
      firstDate: START,
      lastDate: '2024-01-28',
    });
    const rows = await anomalies(id);
    expect(rows.map((r) => r.series)).toEqual(['*', 'CZ']);
    const cz = rows[1];
    expect(cz).toMatchObject({
      type: 'DOD',
      detector_index: 0,
      start_date: '2024-01-20',
      end_date: '2024-01-20',
      duration: 1,
      actual_value: 200,
      predicted_value: 100,
      change: 100,
      change_pct: 100,
      change_cum: 100,
      recurrence: 0,
      result: 'Positive',
    });
    expect(cz.share_pct).toBeCloseTo((200 / 300) * 100, 10);
    // The total rose 300 vs 200: the same day, +50 %, all of the total.
    expect(rows[0]).toMatchObject({
      type: 'DOD',
      start_date: '2024-01-20',
      actual_value: 300,
      predicted_value: 200,
      change_pct: 50,
      share_pct: 100,
    });
    // Peer group DOD/Positive: max duration 1, max change 100 %, max share 100 %.
    expect(cz.sin).toBeCloseTo(2 * (2 / 3) + 1 + 1.5, 10);
    expect(cz.sim).toBeCloseTo(2 / 3, 10);
    expect(rows[0].sin).toBeCloseTo(2 + 0.5 + 1.5, 10);
    expect(rows[0].sim).toBeCloseTo(0.5, 10);
  });

  it('replaces the previous anomalies of the view on each run', async () => {
    const id = await loadedDetectionView(t.db, source, spikeView('rerun'));
    await detect(id, 2001);
    const first = await anomalies(id);
    await detect(id, 2002);
    const second = await anomalies(id);
    expect(second.map(({ id: _, ...r }) => r)).toEqual(first.map(({ id: _, ...r }) => r));
    expect(Math.min(...second.map((r) => r.id))).toBeGreaterThan(Math.max(...first.map((r) => r.id)));
  });

  it('suppresses a spike on a special date whose impact matches, and keeps it when the impact differs', async () => {
    const positive = await loadedDetectionView(
      t.db,
      source,
      spikeView(
        'holiday_pos',
        { specialDates: [{ date: '2024-01-20', impact: 'positive' }] },
        { useSpecialDates: true },
      ),
    );
    await detect(positive);
    expect(await anomalies(positive)).toEqual([]);
    const negative = await loadedDetectionView(
      t.db,
      source,
      spikeView(
        'holiday_neg',
        { specialDates: [{ date: '2024-01-20', impact: 'negative' }] },
        { useSpecialDates: true },
      ),
    );
    await detect(negative);
    expect((await anomalies(negative)).map((r) => `${r.series} ${r.start_date} ${r.result}`)).toEqual([
      '* 2024-01-20 Positive',
      'CZ 2024-01-20 Positive',
    ]);
    const unused = await loadedDetectionView(
      t.db,
      source,
      spikeView(
        'holiday_unused',
        { specialDates: [{ date: '2024-01-20', impact: 'both' }] },
        { useSpecialDates: false },
      ),
    );
    await detect(unused);
    expect(await anomalies(unused)).toHaveLength(2);
  });

  it('leaves the last ignoreLastNDays days out of the analysis', async () => {
    const o = {
      ...spikeView('ignore_last', { ignoreLastNDays: 1 }),
      series: [{ categories: { country: 'CZ' }, values: withSpike(DAYS - 1, 200) }],
    };
    const id = await loadedDetectionView(t.db, source, o);
    await detect(id);
    expect(await anomalies(id)).toEqual([]);
    await setAnalysis(t.db, id, { ignoreLastNDays: 0 });
    await detect(id);
    expect((await anomalies(id)).map((r) => `${r.series} ${r.start_date}`)).toEqual([
      '* 2024-01-28',
      'CZ 2024-01-28',
    ]);
  });

  it('with scanInLastNDays replaces only the anomalies that reach into the scanned days', async () => {
    const values = withSpike(SPIKE, 200).map((v, t) => (t === SPIKE + 5 ? 250 : v));
    const o = { ...spikeView('scan_last'), series: [{ categories: { country: 'CZ' }, values }] };
    const id = await loadedDetectionView(t.db, source, o);
    await detect(id);
    expect((await anomalies(id)).map((r) => `${r.series} ${r.start_date}`)).toEqual([
      '* 2024-01-20',
      'CZ 2024-01-20',
      '* 2024-01-25',
      'CZ 2024-01-25',
    ]);
    // Mark the stored rows: a kept row keeps its mark, a replaced row comes back fresh.
    await t.db.rows(
      sql.raw(`UPDATE ${schemaNameFor(id)}.all_anomalies SET change_cum = 99, recurrence = 42`),
    );
    await setAnalysis(t.db, id, { scanInLastNDays: 7 });
    const detail = await detect(id, 3001);
    expect(detail).toMatchObject({ anomalies: 2, keptAnomalies: 2, replacedFrom: '2024-01-22' });
    // Recurrence is recomputed at publish over kept and new rows: earlier anomalies of the same series,
    // measure and type within 365 days (the mark 42 is gone).
    expect(
      (await anomalies(id)).map((r) => `${r.series} ${r.start_date} ${r.change_cum === 99} ${r.recurrence}`),
    ).toEqual([
      '* 2024-01-20 true 0',
      'CZ 2024-01-20 true 0',
      '* 2024-01-25 false 1',
      'CZ 2024-01-25 false 1',
    ]);
  });

  it('drops older anomalies of detectors that are no longer defined, even outside the scanned days', async () => {
    const id = await loadedDetectionView(t.db, source, spikeView('removed_detector'));
    await detect(id);
    await setAnalysis(t.db, id, {
      scanInLastNDays: 3,
      detectors: [
        { type: 'wow', params: { percentualChange: 30 } },
      ] as DataViewDefinition['analysis']['detectors'],
    });
    await detect(id, 4001);
    expect((await anomalies(id)).filter((r) => r.type === 'DOD')).toEqual([]);
  });
});

/** Changes analysis settings of the stored definition. */
async function setAnalysis(
  db: Database,
  id: number,
  patch: Partial<DataViewDefinition['analysis']>,
): Promise<void> {
  const [row] = await db.orm.select().from(dataViews).where(eq(dataViews.id, id));
  const def = row.definition as unknown as DataViewDefinition;
  def.analysis = { ...def.analysis, ...patch };
  await db.orm
    .update(dataViews)
    .set({ definition: def as unknown as Record<string, unknown> })
    .where(eq(dataViews.id, id));
}
