/**
 * The ratio cube (ratio-cube.ts) through the engine in process, as the process job runs it: the value
 * measure judged in its events (valuePerEvent = Σ value ÷ Σ count), the count measure, and the ratio
 * derived by lib/process-job/ratio.ts (value ÷ count at every level, the count as its weights, the
 * value as its share), each with the root of its measure as the view total (the ratio's: the value's).
 * Scored (issue 29, item 5):
 * - price changes and both-ways changes found as a ratio anomaly on their series (±1 day) ≥ 90 %;
 * - pure volume changes: no ratio anomaly on their series (how many there are);
 * - what the value and the count report on each kind;
 * - "no yearly-recurring pattern in the top 20 by SIN": the records of all three measures ranked by
 *   SIN (lib/detection/significance.ts, records as detected, no event merging), and how many of the top
 *   20 fall on the Christmas dip or the summer season, which recur every year in the generator, with
 *   a year of history behind them (the first year's are reported apart: nothing could expect them).
 */
import { fromEpochDay } from '../../lib/calendar/days';
import type { SeriesBlock } from '../../lib/dataset/series-store';
import { detectSeries, RATIO_TYPES, resolveDetectors } from '../../lib/detection/detect';
import { computeSignificance } from '../../lib/detection/significance';
import type { AnomalyDraft, SeriesInput } from '../../lib/detection/types';
import { type RatioBlock, ratioBlock, ratioRow } from '../../lib/process-job/ratio';
import type { Check } from './real';
import { REAL_DETECTORS } from './real';
import {
  christmasDip,
  containsKey,
  generateRatioCube,
  keyName,
  movedShare,
  overlapsKey,
  PRICE_NOISE,
  RATIO_CUBE,
  type RatioCube,
  type RatioCubeOptions,
  type RatioInjectionKind,
  summer,
} from './ratio-cube';

type Measure = 'value' | 'count' | 'ratio';

export interface CubeRecord extends AnomalyDraft {
  measure: Measure;
  sin: number;
}

export interface KindFigures {
  kind: RatioInjectionKind;
  injections: number;
  ratio: number;
  value: number;
  count: number;
}

export interface TopRecord {
  record: CubeRecord;
  key: string;
  explained: boolean;
  recurring: string | null;
  firstYear: boolean;
}

export interface RatioCubeResult {
  name: string;
  series: number;
  days: number;
  records: Record<Measure, number>;
  kinds: KindFigures[];
  /** Ratio anomalies on the series of a pure volume change, overlapping it. */
  ratioOnVolume: { injections: number; anomalies: number };
  /** Ratio anomalies overlapping no injection on a series sharing leaves (±1 d), nor a recurring window. */
  unexplainedRatio: number;
  top: TopRecord[];
  /** Price and both-ways injections without a ratio anomaly on their series. */
  missedRatio: string[];
  checks: Check[];
  seconds: number;
}

function block(cube: RatioCube, values: Float64Array): SeriesBlock {
  const ids = cube.keys.map((_, s) => s);
  return {
    dayIndex0: cube.day0,
    days: cube.days,
    ids,
    rowOf: new Map(ids.map((id) => [id, id])),
    values,
    present: cube.present,
  };
}

/** Σ value ÷ Σ count of each series over its days with data (the process job's valuePerEvent). */
function valuePerEvent(cube: RatioCube): Float64Array {
  const out = new Float64Array(cube.keys.length);
  for (let s = 0; s < cube.keys.length; s++) {
    let v = 0;
    let c = 0;
    for (let t = s * cube.days; t < (s + 1) * cube.days; t++) {
      v += cube.value[t];
      c += cube.count[t];
    }
    out[s] = c > 0 ? v / c : 0;
  }
  return out;
}

/** Every anomaly of every series and measure, as the process job's shards report them. */
export function detectRatioCube(cube: RatioCube): CubeRecord[] {
  const all = resolveDetectors(REAL_DETECTORS.map((type) => ({ type, params: {} })));
  const ratioDetectors = all.filter((d) => RATIO_TYPES.has(d.type));
  const value = block(cube, cube.value);
  const count = block(cube, cube.count);
  const ratio: RatioBlock = ratioBlock(value, count);
  const perEvent = valuePerEvent(cube);
  const row = (b: SeriesBlock, s: number) => b.values.subarray(s * cube.days, (s + 1) * cube.days);
  const rowPresent = (b: SeriesBlock, s: number) => b.present.subarray(s * cube.days, (s + 1) * cube.days);
  const out: CubeRecord[] = [];
  for (let s = 0; s < cube.keys.length; s++) {
    const base = { seriesId: s, dayIndex0: cube.day0 };
    const inputs: [Measure, SeriesInput][] = [
      [
        'value',
        {
          ...base,
          values: row(value, s),
          present: rowPresent(value, s),
          totalValues: row(value, 0),
          valuePerEvent: perEvent[s],
          measureKind: 'events',
        },
      ],
      [
        'count',
        {
          ...base,
          values: row(count, s),
          present: rowPresent(count, s),
          totalValues: row(count, 0),
          measureKind: 'events',
        },
      ],
      [
        'ratio',
        {
          ...base,
          values: row(ratio, s),
          present: rowPresent(ratio, s),
          totalValues: row(value, 0),
          measureKind: 'ratio',
          ...ratioRow(ratio, s),
        },
      ],
    ];
    for (const [measure, input] of inputs)
      for (const a of detectSeries(input, measure === 'ratio' ? ratioDetectors : all))
        out.push({ ...a, measure, sin: 0 });
  }
  const sig = computeSignificance(out.map((r) => ({ ...r, dataViewId: 1 })));
  for (const [i, r] of out.entries()) r.sin = sig[i].sin;
  return out;
}

/** The recurring window a day range falls on: the Christmas dip (±3 days: its return) or the summer season. */
export function recurringWindow(startDay: number, endDay: number): string | null {
  for (let d = startDay; d <= endDay; d++) {
    for (let k = -3; k <= 3; k++) if (christmasDip(d + k)) return 'Christmas dip';
  }
  for (let d = startDay; d <= endDay; d++) if (summer(d) > 0.05) return 'summer season';
  return null;
}

/** Expected bookings a day of a series over [start, end]. */
function meanEvents(cube: RatioCube, key: readonly number[], start: number, end: number): number {
  let sum = 0;
  cube.leaves.forEach((leaf, l) => {
    if (!containsKey(key, leaf)) return;
    for (let t = start; t <= end; t++) sum += cube.expectedCount[l * cube.days + t];
  });
  return sum / (end - start + 1);
}

/**
 * How detectable a price change is on one day: |ln(rate factor)| against the noise of an average of that
 * day's bookings (each price ±25 %): |ln p| · sqrt(bookings) / 0.25.
 */
function rateZ(cube: RatioCube, x: RatioCube['injections'][number]): number {
  return (
    (Math.abs(Math.log(x.price)) * Math.sqrt(meanEvents(cube, x.key, x.start, x.end) * x.volume)) /
    PRICE_NOISE
  );
}

const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((a / b) * 100).toFixed(1)} %`);

export function runRatioCube(options: RatioCubeOptions = RATIO_CUBE): RatioCubeResult {
  const t0 = performance.now();
  const cube = generateRatioCube(options);
  const records = detectRatioCube(cube);
  const at = (r: CubeRecord) => cube.keys[r.seriesId as number];
  const touches = (r: CubeRecord, start: number, end: number) =>
    r.startDay - cube.day0 <= end + 1 && start - 1 <= r.endDay - cube.day0;
  const kinds: KindFigures[] = (['price', 'volume', 'both'] as const).map((kind) => {
    const list = cube.injections.filter((x) => x.kind === kind);
    const found = (m: Measure) =>
      list.filter((x) =>
        records.some(
          (r) =>
            r.measure === m && at(r)[0] === x.key[0] && at(r)[1] === x.key[1] && touches(r, x.start, x.end),
        ),
      ).length;
    return {
      kind,
      injections: list.length,
      ratio: found('ratio'),
      value: found('value'),
      count: found('count'),
    };
  });
  const volume = cube.injections.filter((x) => x.kind === 'volume');
  const onVolume = records.filter(
    (r) =>
      r.measure === 'ratio' &&
      volume.some((x) => at(r)[0] === x.key[0] && at(r)[1] === x.key[1] && touches(r, x.start, x.end)),
  );
  // As the hotel cube counts them: an injection on a series sharing leaves, overlapping the record ±1 day,
  // that moved the record's series and measure by at least 10 %.
  const explained = (r: CubeRecord) =>
    cube.injections.some(
      (x) =>
        overlapsKey(x.key, at(r)) &&
        touches(r, x.start, x.end) &&
        movedShare(cube, x, at(r), r.measure) >= 0.1,
    );
  const unexplainedRatio = records.filter(
    (r) => r.measure === 'ratio' && !explained(r) && recurringWindow(r.startDay, r.endDay) === null,
  ).length;
  const firstYearEnd = cube.day0 + 365;
  const top: TopRecord[] = [...records]
    .sort((a, b) => b.sin - a.sin)
    .slice(0, 20)
    .map((record) => ({
      record,
      key: keyName(at(record)),
      explained: explained(record),
      recurring: recurringWindow(record.startDay, record.endDay),
      firstYear: record.startDay < firstYearEnd,
    }));
  const recurringLater = top.filter((x) => x.recurring !== null && !x.explained && !x.firstYear);
  const recurringFirst = top.filter((x) => x.recurring !== null && !x.explained && x.firstYear);
  const missedRatio = cube.injections.filter(
    (x) =>
      x.kind !== 'volume' &&
      !records.some(
        (r) =>
          r.measure === 'ratio' &&
          at(r)[0] === x.key[0] &&
          at(r)[1] === x.key[1] &&
          touches(r, x.start, x.end),
      ),
  );
  const priced = kinds.filter((k) => k.kind !== 'volume');
  const ratioFound = priced.reduce((a, k) => a + k.ratio, 0);
  const ratioAll = priced.reduce((a, k) => a + k.injections, 0);
  const checks: Check[] = [
    {
      name: 'price and both-ways injections found as a ratio anomaly on their series (±1 d)',
      target: '≥ 90 %',
      value: `${pct(ratioFound, ratioAll)} (${ratioFound}/${ratioAll})`,
      pass: ratioAll > 0 && ratioFound / ratioAll >= 0.9,
    },
    {
      name: 'ratio anomalies on the series of a pure volume change, during it (±1 d)',
      target: '0',
      value: `${onVolume.length} (on ${kinds[1].ratio} of ${kinds[1].injections} volume changes)`,
      pass: onVolume.length === 0,
    },
    {
      name: 'top 20 by SIN on a yearly-recurring window (Christmas dip, summer season) with a year of history',
      target: '0',
      value: `${recurringLater.length}${recurringLater.length ? ` (${recurringLater.map((x) => `${x.record.type} ${x.record.measure} ${x.key} ${x.record.startDate}`).join('; ')})` : ''}; first year ${recurringFirst.length}`,
      pass: recurringLater.length === 0,
    },
  ];
  const count = (m: Measure) => records.filter((r) => r.measure === m).length;
  return {
    name: 'ratio cube',
    series: cube.keys.length,
    days: cube.days,
    records: { value: count('value'), count: count('count'), ratio: count('ratio') },
    kinds,
    ratioOnVolume: { injections: volume.length, anomalies: onVolume.length },
    unexplainedRatio,
    top,
    missedRatio: missedRatio.map(
      (x) =>
        `${x.kind} ${keyName(x.key)} ${fromEpochDay(cube.day0 + x.start)}..${fromEpochDay(cube.day0 + x.end)} (${x.end - x.start + 1} d, rate ×${x.price.toFixed(2)}, bookings ×${x.volume.toFixed(2)}, ${meanEvents(cube, x.key, x.start, x.end).toFixed(0)} bookings a day expected; z ${rateZ(cube, x).toFixed(1)} a day)`,
    ),
    checks,
    seconds: (performance.now() - t0) / 1000,
  };
}

/** Markdown of the ratio cube: findings per injected kind and measure, and the top 20 by SIN. */
export function renderRatioCube(r: RatioCubeResult, options: RatioCubeOptions = RATIO_CUBE): string {
  const seriesDays = r.series * r.days;
  const lines = [
    `#### Ratio cube: ${options.hotels} hotels × ${options.channels} channels (${r.series} series) × ${r.days} days from ${options.start}, ${options.perKind} injections of each kind; ${r.seconds.toFixed(1)} s`,
    '',
    `Records: value ${r.records.value}, count ${r.records.count}, ratio ${r.records.ratio} (${((r.records.ratio / seriesDays) * 100).toFixed(2)} ratio anomalies per 100 series-days; ${r.unexplainedRatio} of them touch no injection on a series sharing leaves and no recurring window).`,
    '',
    '| Injected | Injections | Found as ratio | Found in value | Found in count |',
    '|---|---:|---:|---:|---:|',
    ...r.kinds.map(
      (k) =>
        `| ${k.kind === 'price' ? 'price change (rate ×0.7–0.8 or ×1.25–1.4, bookings steady)' : k.kind === 'volume' ? 'volume change (bookings ×0.5–0.65 or ×1.5–1.8, rate steady)' : 'both (independent directions)'} | ${k.injections} | ${k.ratio} | ${k.value} | ${k.count} |`,
    ),
    '',
    `Price and both-ways injections without a ratio anomaly on their series: ${r.missedRatio.length ? r.missedRatio.join('; ') : 'none'}.`,
    '',
    '| # | SIN | Type | Measure | Series | Days | Change % | Explained by an injection | Recurring window |',
    '|---:|---:|---|---|---|---|---:|---|---|',
    ...r.top.map(
      (x, i) =>
        `| ${i + 1} | ${x.record.sin.toFixed(3)} | ${x.record.type} | ${x.record.measure} | ${x.key} | ${x.record.startDate}..${x.record.endDate} | ${x.record.changePct === null ? 'n/a' : x.record.changePct.toFixed(1)} | ${x.explained ? 'yes' : 'no'} | ${x.recurring === null ? '' : `${x.recurring}${x.firstYear ? ' (first year)' : ''}`} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
