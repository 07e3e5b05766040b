/**
 * Why a leaf injection is not flagged on its own leaf (issue 28, docs/detection-quality.md
 * "Incidents"): each leaf injection of both cubes at evidence z ≥ 5 (leafEvidence), its leaf's count
 * and value series from the source rows, the ten single-series detectors on their defaults in
 * process, and for each miss what the day detectors saw: per day of the window the generator's own
 * z (true level known), spike's expectation and its z against its own noise scale (the trimmed mean
 * of the window's absolute residuals, floored by the Poisson noise of day and expectation), and the
 * least spike threshold / DT sensitivity / ChangePoint threshold that flags it. With `--variant
 * spike.threshold=3.5` (any detector.param=value pairs, comma-separated) it counts instead, under the
 * defaults and under the variant, the records per 100 series-days of every tenth leaf away from its
 * own injections (±7 days) and the leaf injections flagged on their leaf.
 *
 *   npx tsx scripts/eval/leaf-diagnosis.ts [--cube hotel|retail] [--variant spike.threshold=3.5]
 */
import { buildSpecialCalendar } from '../../lib/calendar/special-calendar';
import { detectSeries, resolveDetectors } from '../../lib/detection/detect';
import { previewSeries } from '../../lib/detection/preview';
import type { DetectorConfig, SeriesInput } from '../../lib/detection/types';
import { CUBE_CATEGORIES, generateCube, HOTEL_CUBE } from '../synthetic/cube';
import { generateRetailCube, RETAIL_CUBE } from '../synthetic/retail-cube';
import { type CubeLike, hotelCubeLike, leafDaily, retailCubeLike } from './incident-cube';
import { EVIDENT_Z, leafEvidence } from './incident-score';
import { REAL_DETECTORS } from './real';

interface Loaded {
  name: string;
  like: CubeLike;
  count: Float64Array;
  value: Float64Array;
  calendar: ReturnType<typeof buildSpecialCalendar>;
}

function load(name: string): Loaded {
  if (name === 'hotel') {
    const cube = generateCube(HOTEL_CUBE);
    const like = hotelCubeLike(cube, CUBE_CATEGORIES);
    const rows = {
      n: cube.rows,
      leaf: cube.rowLeaf,
      day: cube.rowDay,
      amount: cube.rowAmount,
      count: cube.rowCount,
    };
    return finish(name, like, rows, cube.specialDates);
  }
  const cube = generateRetailCube(RETAIL_CUBE);
  const like = retailCubeLike(cube);
  const rows = {
    n: cube.rows,
    leaf: cube.rowLeaf,
    day: cube.rowDay,
    amount: cube.rowAmount,
    count: cube.rowCount,
  };
  return finish(name, like, rows, cube.specialDates);
}

function finish(
  name: string,
  like: CubeLike,
  rows: Parameters<typeof leafDaily>[2],
  special: Parameters<typeof buildSpecialCalendar>[0],
): Loaded {
  const n = like.leaves.length;
  return {
    name,
    like,
    count: leafDaily(n, like.days, rows, 'count'),
    value: leafDaily(n, like.days, rows, 'value'),
    calendar: buildSpecialCalendar(special, like.day0, like.day0 + like.days - 1),
  };
}

function inputs(c: Loaded, l: number): SeriesInput[] {
  const d = c.like.days;
  const count = c.count.subarray(l * d, (l + 1) * d);
  const value = c.value.subarray(l * d, (l + 1) * d);
  const present = new Uint8Array(d);
  let v = 0;
  let k = 0;
  for (let t = 0; t < d; t++) {
    present[t] = count[t] > 0 ? 1 : 0;
    v += value[t];
    k += count[t];
  }
  const base = { seriesId: l, dayIndex0: c.like.day0, present, measureKind: 'events' as const };
  return [
    { ...base, values: count },
    { ...base, values: value, valuePerEvent: k > 0 ? v / k : 0 },
  ];
}

function configs(variant: Map<string, Record<string, number>>): DetectorConfig[] {
  return REAL_DETECTORS.map((type) => ({ type, params: variant.get(type) ?? {} }));
}

function parseVariant(text: string | undefined): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const part of (text ?? '').split(',').filter(Boolean)) {
    const [lhs, rhs] = part.split('=');
    const [type, param] = lhs.split('.');
    out.set(type, { ...(out.get(type) ?? {}), [param]: Number(rhs) });
  }
  return out;
}

/** Records of the leaf (count, value) overlapping [start − 1, end + 1]. */
function hits(c: Loaded, l: number, start: number, end: number, dets: DetectorConfig[]): string[] {
  const out: string[] = [];
  const ctx = { calendar: c.calendar };
  inputs(c, l).forEach((input, m) => {
    for (const a of detectSeries(input, dets, ctx)) {
      const s = a.startDay - c.like.day0;
      const e = a.endDay - c.like.day0;
      if (s <= end + 1 && start - 1 <= e) out.push(`${a.type}/${m === 0 ? 'count' : 'value'}`);
    }
  });
  return out;
}

/** The least value of one param (scanning down from its default) at which the detector flags the window. */
function least(
  c: Loaded,
  l: number,
  start: number,
  end: number,
  type: string,
  param: string,
  from: number,
): string {
  for (let p = from; p >= 1.5 - 1e-9; p -= 0.25) {
    if (hits(c, l, start, end, [{ type, params: { [param]: p } } as DetectorConfig]).length > 0)
      return p.toFixed(2);
  }
  return '<1.5';
}

/** Per day of the window: actual, true level, the generator's z, spike's expectation and its z against its own scale. */
function days(c: Loaded, l: number, start: number, end: number): string {
  const d = c.like.days;
  const input = inputs(c, l)[0];
  const pv = previewSeries(input, { type: 'spike', params: {} }, { calendar: c.calendar });
  const x = input.values;
  const parts: string[] = [];
  for (let t = start; t <= end; t++) {
    const truth = c.like.expectedCount[l * d + t];
    const zGen = (x[t] - truth) / Math.sqrt(c.like.countVariance(l, t));
    const exp = pv.expected[t];
    // The detector's scale: the trimmed mean of |x − expected| over the 28 days before, and its Poisson floor.
    const res: number[] = [];
    for (let u = t - 28; u < t; u++)
      if (!Number.isNaN(pv.expected[u])) res.push(Math.abs(x[u] - pv.expected[u]));
    res.sort((a, b) => a - b);
    const kept = res.slice(0, Math.ceil(res.length * 0.75));
    const trimmed = kept.reduce((a, b) => a + b, 0) / Math.max(1, kept.length) / 0.5147;
    const floor = Math.sqrt(Math.max(exp, 0) * 1.36);
    const scale = Math.max(trimmed, floor);
    parts.push(
      `d${t} x ${x[t]} true ${truth.toFixed(1)} zgen ${zGen.toFixed(1)} exp ${exp.toFixed(1)} scale ${scale.toFixed(1)} (√var ${Math.sqrt(c.like.countVariance(l, t)).toFixed(1)}, trimmed ${trimmed.toFixed(1)}, floor ${floor.toFixed(1)}) z ${((x[t] - exp) / scale).toFixed(1)}`,
    );
  }
  return parts.join('\n      ');
}

function sameKey(a: number[], b: number[]): boolean {
  return a.every((x, i) => x === b[i]);
}

function diagnose(c: Loaded): void {
  const { like } = c;
  const defaults = configs(new Map());
  const leafInj = like.injections.filter((inj) => like.levelOf(inj.key) === 'leaf');
  let flagged = 0;
  let evident = 0;
  let evidentFlagged = 0;
  console.log(`\n## ${c.name}: ${leafInj.length} leaf injections`);
  for (const inj of leafInj) {
    const l = like.leaves.findIndex((k) => sameKey(k, inj.key));
    const z = leafEvidence(like, inj);
    const h = hits(c, l, inj.start, inj.end, defaults);
    if (h.length > 0) flagged++;
    if (z < EVIDENT_Z) continue;
    evident++;
    if (h.length > 0) {
      evidentFlagged++;
      continue;
    }
    const len = inj.end - inj.start + 1;
    let mean = 0;
    for (let t = inj.start; t <= inj.end; t++) mean += like.expectedCount[l * like.days + t] / len;
    console.log(
      `- ${inj.kind} ${like.keyText(inj.key)} d${inj.start}..${inj.end} (${len} d) ×${inj.factor.toFixed(2)} ${mean.toFixed(1)}/day z ${z.toFixed(1)}: least spike threshold ${least(c, l, inj.start, inj.end, 'spike', 'threshold', 4)}, dt sensitivity ${least(c, l, inj.start, inj.end, 'dt', 'sensitivity', 3)}, changepoint threshold ${least(c, l, inj.start, inj.end, 'changepoint', 'threshold', 5)}\n      ${days(c, l, inj.start, inj.end)}`,
    );
  }
  console.log(
    `flagged on own leaf (count or value, ±1 day): ${flagged}/${leafInj.length}; evident (z ≥ ${EVIDENT_Z}) ${evidentFlagged}/${evident}`,
  );
}

/** Records per 100 series-days on every tenth leaf away from its injections (±7 days), and the leaf injections flagged, for a detector set. */
function rate(c: Loaded, dets: DetectorConfig[]): { rate: number; found: number; evident: number } {
  const { like } = c;
  let records = 0;
  let seriesDays = 0;
  const resolved = resolveDetectors(dets);
  for (let l = 0; l < like.leaves.length; l += 10) {
    const leaf = like.leaves[l];
    const mine = like.injections.filter((inj) => inj.key.every((x, i) => x === 0 || x === leaf[i]));
    for (const input of inputs(c, l))
      for (const a of detectSeries(input, resolved, { calendar: c.calendar })) {
        const s = a.startDay - like.day0;
        const e = a.endDay - like.day0;
        if (!mine.some((inj) => s <= inj.end + 7 && inj.start - 7 <= e)) records++;
      }
    seriesDays += 2 * like.days;
  }
  let found = 0;
  let evident = 0;
  for (const inj of like.injections.filter((i) => like.levelOf(i.key) === 'leaf')) {
    const l = like.leaves.findIndex((k) => sameKey(k, inj.key));
    if (hits(c, l, inj.start, inj.end, dets).length === 0) continue;
    found++;
    if (leafEvidence(like, inj) >= EVIDENT_Z) evident++;
  }
  return { rate: (100 * records) / seriesDays, found, evident };
}

function main(): void {
  const argv = process.argv.slice(2);
  const get = (k: string) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : undefined);
  const cubes = get('--cube') ? [get('--cube') as string] : ['hotel', 'retail'];
  const variant = get('--variant');
  for (const name of cubes) {
    const c = load(name);
    if (!variant) {
      diagnose(c);
      continue;
    }
    const before = rate(c, configs(new Map()));
    const after = rate(c, configs(parseVariant(variant)));
    console.log(
      `${name} ${variant}: clean-leaf records per 100 series-days ${before.rate.toFixed(3)} → ${after.rate.toFixed(3)}; leaf injections flagged ${before.found} → ${after.found} (evident ${before.evident} → ${after.evident})`,
    );
  }
}

main();
