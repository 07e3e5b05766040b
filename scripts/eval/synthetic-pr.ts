/**
 * Detector quality on labelled synthetic data: precision and recall per detector type on default
 * settings (`npm run eval -- --synthetic`, options --views N, --seed S).
 *
 * Matching: a labelled injection is caught by a type when an anomaly of that type in the labelled
 * series overlaps the injection window (widened by the type's reporting delay). A reported
 * anomaly is true when it overlaps the influence window of an injection in its series that allows
 * the type (the injection days plus the days whose comparison reaches back into them).
 */
import { buildSpecialCalendar } from '../../lib/calendar/special-calendar';
import { buildCardinalityBaseline, buildPeerBaseline } from '../../lib/detection/baselines';
import { detectSeries, resolveDetectors } from '../../lib/detection/detect';
import { DETECTOR_TYPES } from '../../lib/detection/params';
import type { AnomalyDraft, AnomalyType, SeriesInput } from '../../lib/detection/types';
import { generateView, type SyntheticView } from '../synthetic/generate';

/** Days after an injection during which a type's comparison still reads the injected days. */
const REACH: Record<AnomalyType, number> = {
  DOD: 8,
  WOW: 14,
  CW: 35,
  MOM: 62,
  QOQ: 184,
  MPY: 400,
  Spike: 35,
  DT: 63,
  ChangePoint: 14,
  Peer: 35,
  Mix: 35,
  Gap: 0,
  Cardinality: 35,
};

/** How late after an injection a type can first report it (period detectors report whole periods). */
const DELAY: Record<AnomalyType, number> = {
  DOD: 0,
  WOW: 0,
  CW: 35,
  MOM: 62,
  QOQ: 184,
  MPY: 62,
  Spike: 0,
  DT: 0,
  ChangePoint: 14,
  Peer: 0,
  Mix: 0,
  Gap: 0,
  Cardinality: 0,
};

const TOLERANCE = 3;

interface Tally {
  expected: number;
  caught: number;
  reported: number;
  truePositive: number;
}

function inputs(view: SyntheticView): SeriesInput[] {
  const { series, values, present } = view;
  const peer = new Map<number, Float64Array>();
  const card = new Map<number, Float64Array>();
  for (const s of series) {
    if (s.childIds.length === 0) continue;
    const kids = s.childIds;
    const baseline = buildPeerBaseline(
      kids.map((k) => values[k]),
      { presents: kids.map((k) => present[k]) },
    );
    for (const k of kids) peer.set(k, baseline.change);
    card.set(
      s.id,
      buildCardinalityBaseline(
        kids.map((k) => values[k]),
        kids.map((k) => present[k]),
      ),
    );
  }
  return series.map((s) => ({
    seriesId: s.id,
    dayIndex0: view.dayIndex0,
    values: values[s.id],
    present: present[s.id],
    totalValues: values[0],
    parentValues: s.parentId === null ? undefined : values[s.parentId],
    peerChange: peer.get(s.id),
    cardinality: card.get(s.id),
  }));
}

function overlaps(a0: number, a1: number, b0: number, b1: number): boolean {
  return a0 <= b1 && b0 <= a1;
}

function evaluate(views: SyntheticView[], useSpecialDates: boolean): Map<AnomalyType, Tally> {
  const detectors = resolveDetectors(DETECTOR_TYPES.map((type) => ({ type, params: { useSpecialDates } })));
  const tallies = new Map<AnomalyType, Tally>();
  for (const d of detectors)
    tallies.set(d.impl.code, { expected: 0, caught: 0, reported: 0, truePositive: 0 });
  for (const view of views) {
    const calendar = buildSpecialCalendar(view.specialDates, view.dayIndex0, view.dayIndex0 + view.days - 1);
    const found: AnomalyDraft[] = [];
    for (const input of inputs(view)) found.push(...detectSeries(input, detectors, { calendar }));
    const bySeries = new Map<number, AnomalyDraft[]>();
    for (const a of found) {
      const list = bySeries.get(a.seriesId as number) ?? [];
      list.push(a);
      bySeries.set(a.seriesId as number, list);
    }
    for (const label of view.labels) {
      for (const type of label.expect) {
        const tally = tallies.get(type) as Tally;
        tally.expected++;
        const hit = (bySeries.get(label.seriesId) ?? []).some(
          (a) =>
            a.type === type &&
            overlaps(
              a.startDay - view.dayIndex0,
              a.endDay - view.dayIndex0,
              label.start - TOLERANCE,
              label.end + TOLERANCE + DELAY[type],
            ),
        );
        if (hit) tally.caught++;
      }
    }
    for (const a of found) {
      const tally = tallies.get(a.type) as Tally;
      tally.reported++;
      const s = a.startDay - view.dayIndex0;
      const e = a.endDay - view.dayIndex0;
      const explained = view.labels.some(
        (l) =>
          l.seriesId === a.seriesId &&
          l.allow.includes(a.type) &&
          overlaps(s, e, l.start - TOLERANCE, l.end + TOLERANCE + REACH[a.type]),
      );
      if (explained) tally.truePositive++;
    }
  }
  return tallies;
}

function table(tallies: Map<AnomalyType, Tally>): string {
  const rows = [
    '| Type | Injections expected | Caught | Recall | Anomalies reported | Explained | Precision |',
  ];
  rows.push('|---|---:|---:|---:|---:|---:|---:|');
  const fmt = (num: number, den: number) => (den === 0 ? 'n/a' : (num / den).toFixed(3));
  for (const [type, t] of tallies) {
    rows.push(
      `| ${type} | ${t.expected} | ${t.caught} | ${fmt(t.caught, t.expected)} | ${t.reported} | ${t.truePositive} | ${fmt(t.truePositive, t.reported)} |`,
    );
  }
  return rows.join('\n');
}

/** The synthetic precision/recall per detector type (markdown), on `views` generated views from `seed`. */
export function syntheticPrecisionRecall(count = 60, seed = 1): string {
  const started = performance.now();
  const views = Array.from({ length: count }, (_, i) => generateView(seed + i));
  const seriesCount = views.reduce((n, v) => n + v.series.length, 0);
  const days = views[0].days;
  const withCalendar = evaluate(views, true);
  const withoutCalendar = evaluate(views, false);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return [
    `### Detector quality on synthetic data (per type, in process)`,
    '',
    `${count} views × ${views[0].series.length} series (${seriesCount} series × ${days} days), seeds ${seed}..${seed + count - 1}, default params; ${seconds} s.`,
    '',
    '#### Special dates configured (useSpecialDates: true)',
    '',
    table(withCalendar),
    '',
    '#### Special dates not configured (holidays and month ends count against precision)',
    '',
    table(withoutCalendar),
    '',
  ].join('\n');
}
