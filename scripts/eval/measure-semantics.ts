/**
 * Measure semantics (issue 42, items 3–5), in process:
 * - an interval series with labelled faults: an office's daily mean temperature (scripts/synthetic/
 *   office-temperature.ts, two years, two cooling failures), judged as interval (spike's robust z-score in
 *   °C) against the percent detectors of a ratio-scale measure; faults found, other days flagged, and the
 *   same in °F;
 * - the causes of a ratio: the ratio cube (ratio-cube.ts) and, over each injection's window, the
 *   contributions of the total's ratio (lib/incidents/ratio-contributions.ts, the leaves' weeks before as
 *   the expectation): a price injection is named when a rate cause is its segment (hotel, or hotel ×
 *   channel); a volume injection (bookings move at the usual rate: the mix moves) is named as mix when
 *   the explanation says the mix moved. Only injections that move the total's ratio by at least 1 % in
 *   expectation are scored (a volume change of a hotel priced like the average moves no ratio).
 *
 *   npx tsx scripts/eval/measure-semantics.ts
 */
import { toEpochDay } from '../../lib/calendar/days';
import { detectSeries } from '../../lib/detection/detect';
import type { Lattice } from '../../lib/incidents/lattice';
import type { LeafDays } from '../../lib/incidents/leaf-window';
import { ratioContributions, ratioLeaves } from '../../lib/incidents/ratio-contributions';
import { ROOT_CAUSE_DEFAULTS } from '../../lib/incidents/root-cause';
import { officeTemperature } from '../synthetic/office-temperature';
import {
  containsKey,
  generateRatioCube,
  keyName,
  movedShare,
  overlapsKey,
  RATIO_CUBE,
  type RatioCube,
} from './ratio-cube';

/** The ratio cubes scored: the evaluation's (29) and two more drawn alike. */
const SEEDS = [29, 30, 31];

export interface SemanticsCheck {
  metric: string;
  target: string;
  value: string;
  met: boolean;
}

interface IntervalFigures {
  faults: number;
  foundInterval: number;
  otherInterval: number;
  foundPercent: number;
  otherPercent: number;
  sameInFahrenheit: boolean;
}

function intervalFigures(): IntervalFigures {
  const office = officeTemperature();
  const day0 = toEpochDay(office.start);
  const score = (anomalies: Array<{ startDay: number; endDay: number }>) => {
    const hit = (a: { startDay: number; endDay: number }) =>
      office.faults.some((f) => a.startDay - day0 <= f.to && a.endDay - day0 >= f.from);
    return {
      found: office.faults.filter((f) =>
        anomalies.some((a) => a.startDay - day0 <= f.to && a.endDay - day0 >= f.from),
      ).length,
      other: anomalies.filter((a) => !hit(a)).length,
    };
  };
  const values = Float64Array.from(office.values);
  const interval = detectSeries({ seriesId: 1, dayIndex0: day0, values, measureKind: 'interval' }, [
    { type: 'spike' },
  ]);
  const percent = detectSeries({ seriesId: 1, dayIndex0: day0, values, measureKind: 'amount' }, [
    { type: 'spike' },
    { type: 'dod' },
    { type: 'wow' },
    { type: 'dt' },
    { type: 'changepoint' },
  ]);
  const fahrenheit = detectSeries(
    {
      seriesId: 1,
      dayIndex0: day0,
      values: Float64Array.from(office.values, (c) => c * 1.8 + 32),
      measureKind: 'interval',
    },
    [{ type: 'spike' }],
  );
  const a = score(interval);
  const b = score(percent);
  return {
    faults: office.faults.length,
    foundInterval: a.found,
    otherInterval: a.other,
    foundPercent: b.found,
    otherPercent: b.other,
    sameInFahrenheit:
      JSON.stringify(fahrenheit.map((x) => [x.startDay, x.endDay])) ===
      JSON.stringify(interval.map((x) => [x.startDay, x.endDay])),
  };
}

interface CauseOutcome {
  kind: 'price' | 'volume' | 'both';
  seed: number;
  /** The series explained: the total, or the injected hotel × channel's hotel. */
  series: string;
  key: string;
  /** Another injection's days overlap this one's on the series (a second event in the window). */
  crowded: boolean;
  moved: number;
  /** What the explanation named first. */
  named: string;
  ok: boolean;
}

/** The cube's leaves as the contributions read them: from 8 weeks before `start` to `end`. */
function leavesOf(cube: RatioCube, from: number, to: number): LeafDays[] {
  const rowOf = new Map(cube.keys.map((k, s) => [`${k[0]}/${k[1]}`, s]));
  return cube.leaves.map((leaf) => {
    const s = rowOf.get(`${leaf[0]}/${leaf[1]}`) as number;
    return {
      codes: Int32Array.from(leaf),
      values: cube.value.slice(s * cube.days + from, s * cube.days + to + 1),
      counts: cube.count.slice(s * cube.days + from, s * cube.days + to + 1),
      unit: 1,
    };
  });
}

function causeOutcomes(cube: RatioCube): CauseOutcome[] {
  const lattice: Lattice = { categories: ['hotel', 'channel'], parents: [-1, -1] };
  const weeks = 4;
  const out: CauseOutcome[] = [];
  for (const x of cube.injections) {
    if (x.kind === 'both') continue;
    // The total; for a hotel × channel also its hotel, where the channel is a larger part.
    const targets: Array<[number, number]> =
      x.key[1] !== 0
        ? [
            [0, 0],
            [x.key[0], 0],
          ]
        : [[0, 0]];
    for (const target of targets) {
      const moved = movedShare(cube, x, target, 'ratio');
      if (moved < 0.01) continue;
      const from = x.start - 14 * weeks;
      const series = Int32Array.from(target);
      const leaves = leavesOf(cube, from, x.end).filter((l) => containsKey(target, Array.from(l.codes)));
      const crowded = cube.injections.some(
        (y) => y !== x && overlapsKey(y.key, target) && y.start <= x.end && x.start - 7 * weeks <= y.end,
      );
      const r = ratioContributions(
        lattice,
        series,
        ratioLeaves(leaves, { from: 0, start: x.start - from, end: x.end - from, weeks }),
        { limit: 5, rootCause: ROOT_CAUSE_DEFAULTS },
      );
      const causes = r.explanation.causes;
      const named = r.explanation.broad
        ? 'broad'
        : causes
            .map((c) => (c.effect === 'mix' ? `mix of ${c.mixOf}` : keyName(Array.from(c.codes))))
            .join(' + ');
      const wanted = keyName(x.key);
      const ok =
        x.kind === 'price'
          ? causes.some((c) => c.effect === 'rate' && keyName(Array.from(c.codes)) === wanted)
          : causes.some((c) => c.effect === 'mix');
      out.push({
        kind: x.kind,
        seed: cube.options.seed,
        series: keyName(target),
        key: wanted,
        crowded,
        moved,
        named,
        ok,
      });
    }
  }
  return out;
}

export interface SemanticsResult {
  interval: IntervalFigures;
  causes: CauseOutcome[];
  checks: SemanticsCheck[];
  seconds: number;
}

export function runMeasureSemantics(): SemanticsResult {
  const t0 = performance.now();
  const interval = intervalFigures();
  const causes = SEEDS.flatMap((seed) => causeOutcomes(generateRatioCube({ ...RATIO_CUBE, seed })));
  const share = (kind: 'price' | 'volume', clean = false) => {
    const of = causes.filter((c) => c.kind === kind && (!clean || !c.crowded));
    return { n: of.length, ok: of.filter((c) => c.ok).length };
  };
  const price = share('price');
  const volume = share('volume');
  const pct = (s: { n: number; ok: number }) => (s.n > 0 ? (100 * s.ok) / s.n : 0);
  const checks: SemanticsCheck[] = [
    {
      metric: 'office temperature (interval): cooling failures found',
      target: 'all',
      value: `${interval.foundInterval} of ${interval.faults} (other days flagged: ${interval.otherInterval})`,
      met: interval.foundInterval === interval.faults,
    },
    {
      metric: 'ratio cube: price injections named by their segment (rate)',
      target: '≥ 80 %',
      value: `${price.ok} of ${price.n} (${pct(price).toFixed(0)} %)`,
      met: pct(price) >= 80,
    },
    {
      metric: 'ratio cube: volume injections named as mix',
      target: '≥ 80 %',
      value: `${volume.ok} of ${volume.n} (${pct(volume).toFixed(0)} %)`,
      met: pct(volume) >= 80,
    },
    {
      metric: 'the same, one event in the window: price named by segment / volume named as mix',
      target: '≥ 80 % each',
      value: `${share('price', true).ok} of ${share('price', true).n} (${pct(share('price', true)).toFixed(0)} %) / ${share('volume', true).ok} of ${share('volume', true).n} (${pct(share('volume', true)).toFixed(0)} %)`,
      met: pct(share('price', true)) >= 80 && pct(share('volume', true)) >= 80,
    },
  ];
  return { interval, causes, checks, seconds: (performance.now() - t0) / 1000 };
}

export function renderMeasureSemantics(r: SemanticsResult): string {
  const i = r.interval;
  const lines = [
    '| Metric | Target | Value | Met |',
    '|---|---|---|---|',
    ...r.checks.map((c) => `| ${c.metric} | ${c.target} | ${c.value} | ${c.met ? 'yes' : 'no'} |`),
    '',
    `Office temperature, 730 days, ${i.faults} labelled cooling failures: as interval (spike, robust z-score in °C) ` +
      `${i.foundInterval} found, ${i.otherInterval} other records; the same in °F gives ${i.sameInFahrenheit ? 'the same records' : 'other records'}. ` +
      `Judged in percent (an amount: spike, dod, wow, dt, changepoint on defaults) ${i.foundPercent} found, ${i.otherPercent} other records.`,
    '',
    '| Cube | Injection | Segment | Series | Moves its ratio | Another event | Named | OK |',
    '|---|---|---|---|---|---|---|---|',
    ...r.causes.map(
      (c) =>
        `| ${c.seed} | ${c.kind} | ${c.key} | ${c.series} | ${(100 * c.moved).toFixed(1)} % | ${c.crowded ? 'yes' : ''} | ${c.named} | ${c.ok ? 'yes' : 'no'} |`,
    ),
    '',
    `${r.seconds.toFixed(1)} s.`,
  ];
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('measure-semantics.ts'))
  console.log(renderMeasureSemantics(runMeasureSemantics()));
