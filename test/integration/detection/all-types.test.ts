/**
 * The wiring end to end on a realistic view: a synthetic three-year view (total, countries,
 * regions) with injected anomalies of every kind is loaded through the real load pipeline and
 * processed in several shards; the stored anomalies must be exactly what the engine reports on the
 * same arrays in memory (peer groups, parents, cardinality, share and special dates included).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { buildSpecialCalendar } from '../../../lib/calendar/special-calendar';
import { loadConfig } from '../../../lib/config/config';
import { buildCardinalityBaseline, buildPeerBaseline } from '../../../lib/detection/baselines';
import { detectSeries } from '../../../lib/detection/detect';
import { AMOUNT_MATERIAL_SHARE } from '../../../lib/detection/materiality';
import { DETECTOR_TYPES } from '../../../lib/detection/params';
import { computeSignificance } from '../../../lib/detection/significance';
import type { AnomalyDraft, SeriesInput } from '../../../lib/detection/types';
import { totalLevelOf } from '../../../lib/process-job/measure-kind';
import { runDetection } from '../../../lib/process-job/start';
import { generateView, type SyntheticView } from '../../../scripts/synthetic/generate';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadedDetectionView, type StoredAnomaly, storedAnomalies } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const DETECTORS = DETECTOR_TYPES.map((type) => ({ type, params: { useSpecialDates: true } }));

/** The generated view with whole-number region values, so that sums are exact in SQL and in memory. */
function roundedView(seed: number): SyntheticView {
  const view = generateView(seed);
  for (const s of view.series)
    if (s.childIds.length === 0) view.values[s.id] = view.values[s.id].map(Math.round);
  for (const s of [...view.series].reverse()) {
    if (s.childIds.length === 0) continue;
    const sum = new Float64Array(view.days);
    for (const k of s.childIds) for (let t = 0; t < view.days; t++) sum[t] += view.values[k][t];
    view.values[s.id] = sum;
  }
  return view;
}

/** 'c1/r1_3' for a region, 'c1/*' for a country, '*\/*' for the total. */
function keyOf(view: SyntheticView, id: number): string {
  const s = view.series[id];
  if (s.parentId === null) return '*/*';
  if (view.series[s.parentId].parentId === null) return `c${id}/*`;
  return `c${s.parentId}/r${s.parentId}_${id}`;
}

/** What the engine reports for the view in memory (as scripts/eval.ts wires it). */
function expected(view: SyntheticView): AnomalyDraft[] {
  // Without a count column the values are amounts: peer voters and cardinality children count at the
  // amount's default materiality, a share of the view total's level, as the process job has them.
  const material = AMOUNT_MATERIAL_SHARE * totalLevelOf(view.values[0]);
  const peer = new Map<number, Float64Array>();
  const card = new Map<number, Float64Array>();
  for (const s of view.series) {
    if (s.childIds.length === 0) continue;
    const kids = s.childIds;
    const b = buildPeerBaseline(
      kids.map((k) => view.values[k]),
      // Members vote at a material level only, as the process job has them.
      { presents: kids.map((k) => view.present[k]), minLevels: kids.map(() => material) },
    );
    for (const k of kids) peer.set(k, b.change);
    card.set(
      s.id,
      buildCardinalityBaseline(
        kids.map((k) => view.values[k]),
        kids.map((k) => view.present[k]),
        // The process job counts material children only.
        kids.map(() => material),
      ),
    );
  }
  const calendar = buildSpecialCalendar(view.specialDates, view.dayIndex0, view.dayIndex0 + view.days - 1);
  return view.series.flatMap((s) => {
    const input: SeriesInput = {
      seriesId: keyOf(view, s.id),
      dayIndex0: view.dayIndex0,
      values: view.values[s.id],
      present: view.present[s.id],
      totalValues: view.values[0],
      parentValues: s.parentId === null ? undefined : view.values[s.parentId],
      peerChange: peer.get(s.id),
      cardinality: card.get(s.id),
      measureKind: 'amount',
    };
    return detectSeries(input, DETECTORS, { calendar });
  });
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 1e6) / 1e6);
const identity = (a: { series: string; type: string; start: string; end: string }) =>
  `${a.series} ${a.type} ${a.start} ${a.end}`;

describe(`detection of a synthetic three-year view on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let view: SyntheticView;
  let stored: StoredAnomaly[];
  let detail: Record<string, unknown>;

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    view = roundedView(3);
    const regions = view.series.filter((s) => s.childIds.length === 0);
    const id = await loadedDetectionView(t.db, source, {
      name: 'synthetic',
      start: '2022-01-01',
      categories: [{ name: 'country' }, { name: 'region', parent: 'country' }],
      detectors: DETECTORS,
      analysis: view.specialDates as never,
      series: regions.map((s) => {
        const [country, region] = keyOf(view, s.id).split('/');
        return {
          categories: { country, region },
          values: Array.from(view.values[s.id], (v, day) => (view.present[s.id][day] ? v : null)),
        };
      }),
    });
    const container = { db: t.db, config: loadConfig({ DETECTION_SHARD_SIZE: '4' }) } as unknown as Container;
    detail = await runDetection(container, id, 9001);
    stored = await storedAnomalies(t.db, id, ['country', 'region']);
  }, 240_000);
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('runs in several shards and reports anomalies of all thirteen types', () => {
    expect(detail).toMatchObject({ series: view.series.length, days: view.days, detectors: 13 });
    expect(detail.shards as number).toBeGreaterThan(3);
    expect(new Set(stored.map((a) => a.type))).toEqual(
      new Set([
        'DOD',
        'WOW',
        'MOM',
        'QOQ',
        'MPY',
        'CW',
        'Gap',
        'Spike',
        'ChangePoint',
        'DT',
        'Peer',
        'Mix',
        'Cardinality',
      ]),
    );
  });

  it('stores exactly what the engine reports in memory, field for field', () => {
    const mine = stored.map((a) => ({
      key: identity({ series: a.series, type: a.type, start: a.start_date, end: a.end_date }),
      fields: [
        a.duration,
        round(a.actual_value),
        round(a.predicted_value),
        round(a.change_pct),
        round(a.share_pct),
        a.result,
      ],
    }));
    const theirs = expected(view).map((a) => ({
      key: identity({ series: String(a.seriesId), type: a.type, start: a.startDate, end: a.endDate }),
      fields: [
        a.duration,
        round(a.actualValue),
        round(a.predictedValue),
        round(a.changePct),
        round(a.sharePct),
        a.result,
      ],
    }));
    const sort = (xs: typeof mine) =>
      [...xs].sort((a, b) => a.key.localeCompare(b.key) || String(a.fields).localeCompare(String(b.fields)));
    expect(sort(mine)).toEqual(sort(theirs));
  });

  it('keeps every record consistent: change, change %, change cum over the judged days, dates', () => {
    for (const a of stored) {
      const days = (Date.parse(a.end_date) - Date.parse(a.start_date)) / 86_400_000 + 1;
      expect(a.duration).toBe(days);
      expect(a.change).toBeCloseTo(a.actual_value - a.predicted_value, 6);
      // Change is per day, change cum the total over the judged days (special days can be left out):
      // change × k for a whole number of days k, 1 ≤ k ≤ duration (docs/detectors.md, Anomaly records).
      if (Math.abs(a.change) > 1e-9) {
        const k = Math.round(a.change_cum / a.change);
        expect(k).toBeGreaterThanOrEqual(1);
        expect(k).toBeLessThanOrEqual(a.duration);
        expect(a.change_cum).toBeCloseTo(a.change * k, 4);
      } else expect(a.change_cum).toBeCloseTo(0, 6);
      if (a.predicted_value !== 0)
        expect(a.change_pct).toBeCloseTo((a.change / Math.abs(a.predicted_value)) * 100, 6);
      expect(a.result).toBe(a.type === 'Gap' ? 'Negative' : a.change >= 0 ? 'Positive' : 'Negative');
    }
  });

  it('recomputes recurrence at publish: earlier anomalies of the series and type within 365 days, any sign', () => {
    const day = (d: string) => Date.parse(d) / 86_400_000;
    for (const a of stored) {
      const earlier = stored.filter(
        (b) =>
          b.series === a.series &&
          b.type === a.type &&
          day(b.start_date) < day(a.start_date) &&
          day(b.start_date) >= day(a.start_date) - 365,
      ).length;
      expect(a.recurrence).toBe(earlier);
    }
    expect(stored.some((a) => a.recurrence > 0)).toBe(true);
  });

  it('computes SIN and SIM per measure and result over the whole view, whatever the type', () => {
    const sig = computeSignificance(
      stored.map((a) => ({
        dataViewId: 1,
        measure: 'value',
        type: a.type,
        result: a.result,
        duration: a.duration,
        changePct: a.change_pct,
        sharePct: a.share_pct,
        recurrence: a.recurrence,
      })),
    );
    stored.forEach((a, i) => {
      expect(a.sin).toBeCloseTo(sig[i].sin, 9);
      expect(a.sim).toBeCloseTo(sig[i].sim, 9);
    });
  });
});
