/**
 * Detection speed: series-days per second for each detector, the period-over-period set and the
 * full default set on 10,000 series × 3 years generated in memory, the ratio measure of the same
 * series (issue 29) alone and with the full set, plus peak memory. Compares with
 * a plain JS lag loop and, when python3 with NumPy is installed, with the same period-over-period
 * rules vectorised in NumPy (scripts/bench/numpy_periods.py) on the same values.
 * Options: --series N (default 10000), --days N (default 1096), --repeat N (default 3),
 * --shard N (series per detectShard call, as DETECTION_SHARD_SIZE; default 1000),
 * --numpy-block N (series per NumPy call; default all at once).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toEpochDay } from '../../lib/calendar/days';
import {
  detectSeries,
  detectShard,
  RATIO_TYPES,
  type ResolvedDetector,
  resolveDetectors,
} from '../../lib/detection/detect';
import { DETECTOR_DEFAULTS, DETECTOR_TYPES, type DetectorType } from '../../lib/detection/params';
import { Workspace } from '../../lib/detection/workspace';
import { generateRows } from '../synthetic/rows';
import { makeNormal, makeRng } from '../synthetic/rng';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const SERIES = arg('--series', 10_000);
const DAYS = arg('--days', 1096);
const REPEAT = arg('--repeat', 3);
const NUMPY_BLOCK = arg('--numpy-block', 0);
/** Series per detectShard call: the process worker's default DETECTION_SHARD_SIZE. */
const SHARD = arg('--shard', 1000);
const seriesDays = SERIES * DAYS;
let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};

const t0 = performance.now();
const { values, present } = generateRows(SERIES, DAYS, 42);
// Cross-series inputs for peer, mix and cardinality (shape only matters for speed).
const parentValues = new Float64Array(values.length);
for (let i = 0; i < values.length; i++) parentValues[i] = values[i] * 4;
const peerChange = new Float64Array(values.length);
const cardinality = new Float64Array(values.length).fill(5);
const totalValues = new Float64Array(DAYS).fill(1e7);
/**
 * The ratio measure of the same series (value ÷ count, as lib/process-job/ratio.ts derives it): the
 * generated values are the counts (the ratio's weights) and each day's average is 100 × (1 + 25 % noise
 * of one event ÷ √count); the value is count × ratio. Days without events have no data.
 */
const ratioValues = new Float64Array(values.length);
const ratioShare = new Float64Array(values.length);
{
  const ratioRand = makeRng(7);
  const ratioNormal = makeNormal(ratioRand);
  for (let i = 0; i < values.length; i++) {
    const c = values[i];
    ratioValues[i] = c > 0 ? 100 * (1 + (0.25 * ratioNormal()) / Math.sqrt(c)) : 100;
    ratioShare[i] = c * ratioValues[i];
  }
}
const generateSeconds = (performance.now() - t0) / 1000;
sampleRss();

/** Shards of SHARD series as the process worker takes them (zero-copy views of the inputs). */
const shards = Array.from({ length: Math.ceil(SERIES / SHARD) }, (_, k) => {
  const from = k * SHARD;
  const to = Math.min(SERIES, from + SHARD);
  const rows = <T extends Float64Array | Uint8Array>(a: T) => a.subarray(from * DAYS, to * DAYS) as T;
  return {
    dayIndex0: toEpochDay('2022-01-01'),
    days: DAYS,
    seriesIds: Array.from({ length: to - from }, (_, i) => from + i),
    values: rows(values),
    present: rows(present),
    totalValues,
    parentValues: rows(parentValues),
    peerChange: rows(peerChange),
    cardinality: rows(cardinality),
  };
});
const ws = new Workspace();

function measure(detectors: ResolvedDetector[]): { rate: number; anomalies: number; seconds: number } {
  let best = Number.POSITIVE_INFINITY;
  let anomalies = 0;
  for (let r = 0; r < REPEAT; r++) {
    const start = performance.now();
    anomalies = 0;
    for (const shard of shards) anomalies += detectShard(shard, detectors, {}, ws).length;
    best = Math.min(best, (performance.now() - start) / 1000);
    sampleRss();
  }
  return { rate: seriesDays / best, anomalies, seconds: best };
}

/** The ratio measure of every series (SeriesInput per series, as the process job's ratio block gives them). */
function measureRatio(detectors: ResolvedDetector[]): { rate: number; anomalies: number; seconds: number } {
  let best = Number.POSITIVE_INFINITY;
  let anomalies = 0;
  const dayIndex0 = shards[0].dayIndex0;
  for (let r = 0; r < REPEAT; r++) {
    const start = performance.now();
    anomalies = 0;
    for (let s = 0; s < SERIES; s++) {
      const row = <T extends Float64Array | Uint8Array>(a: T) => a.subarray(s * DAYS, (s + 1) * DAYS) as T;
      anomalies += detectSeries(
        {
          seriesId: s,
          dayIndex0,
          values: row(ratioValues),
          present: row(present),
          totalValues,
          measureKind: 'ratio',
          weights: row(values),
          shareOf: row(ratioShare),
        },
        detectors,
        {},
        ws,
      ).length;
    }
    best = Math.min(best, (performance.now() - start) / 1000);
    sampleRss();
  }
  return { rate: seriesDays / best, anomalies, seconds: best };
}

/** The bare week-over-week rule as a flat loop: the floor any detector loop is measured against. */
function bareLag(): number {
  let best = Number.POSITIVE_INFINITY;
  let flagged = 0;
  for (let r = 0; r < REPEAT; r++) {
    const start = performance.now();
    flagged = 0;
    for (let s = 0; s < SERIES; s++) {
      const off = s * DAYS;
      for (let t = 7; t < DAYS; t++) {
        const prev = values[off + t - 7];
        const rel = prev !== 0 ? values[off + t] / prev - 1 : 0;
        if (rel >= 0.3 || rel <= -0.3) flagged++;
      }
    }
    best = Math.min(best, (performance.now() - start) / 1000);
  }
  if (flagged < 0) console.log(flagged);
  return seriesDays / best;
}

const PERIOD_RULES = ['dod', 'wow', 'mom', 'qoq', 'mpy', 'cw'] as const;

interface NumpyRule {
  seconds: number;
  rate: number;
  /** Flagged days (dod, wow) or periods (mom, qoq, mpy, cw). */
  flagged: number;
  /** Runs of same-sign flags: what the engine would report as anomalies. */
  runs: number;
}

/** The period-over-period rules in NumPy on the bench's own values, or null without python3/NumPy. */
function numpyPeriods(block: number): Record<(typeof PERIOD_RULES)[number], NumpyRule> | null {
  const dir = mkdtempSync(join(tmpdir(), 'bench-detection-'));
  try {
    const file = join(dir, 'values.bin');
    writeFileSync(file, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    // Thresholds from the engine's defaults, so both sides flag by the same rule.
    const percentualChange = Object.fromEntries(
      PERIOD_RULES.map((rule) => [rule, DETECTOR_DEFAULTS[rule].percentualChange]),
    );
    const input = {
      series: SERIES,
      days: DAYS,
      dayIndex0: shards[0].dayIndex0,
      repeat: REPEAT,
      values: file,
      block,
    };
    const out = execFileSync('python3', [fileURLToPath(new URL('./numpy_periods.py', import.meta.url))], {
      input: JSON.stringify({ ...input, percentualChange }),
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
    });
    return JSON.parse(out).rules;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (rate: number) => `${(rate / 1e6).toFixed(1)} M`;
const rows: string[] = [
  '| Detector set | Series-days/s | Best run (s) | Anomalies |',
  '|---|---:|---:|---:|',
];
// One pass of every detector over the first shard first, so that no figure includes compiling.
detectShard(shards[0], resolveDetectors(DETECTOR_TYPES.map((type) => ({ type }))), {}, ws);
const engine = new Map<DetectorType, ReturnType<typeof measure>>();
for (const type of DETECTOR_TYPES) {
  const r = measure(resolveDetectors([{ type: type as DetectorType }]));
  engine.set(type, r);
  rows.push(`| ${type} | ${fmt(r.rate)} | ${r.seconds.toFixed(3)} | ${r.anomalies} |`);
}
const periodSet = resolveDetectors(PERIOD_RULES.map((type) => ({ type })));
const full = resolveDetectors(DETECTOR_TYPES.map((type) => ({ type })));
const p = measure(periodSet);
rows.push(
  `| period-over-period (dod, wow, mom, qoq, mpy, cw) | ${fmt(p.rate)} | ${p.seconds.toFixed(3)} | ${p.anomalies} |`,
);
const f = measure(full);
rows.push(
  `| full default set (all ${full.length} detectors) | ${fmt(f.rate)} | ${f.seconds.toFixed(3)} | ${f.anomalies} |`,
);
// The ratio measure: the detectors of the full set that judge a ratio, on each series' ratio.
const ratioSet = full.filter((d) => RATIO_TYPES.has(d.type));
const q = measureRatio(ratioSet);
rows.push(
  `| ratio measure (the ${ratioSet.length} detectors that judge a ratio) | ${fmt(q.rate)} | ${q.seconds.toFixed(3)} | ${q.anomalies} |`,
);
// A view whose count varies has both: each measure's series-days count (the ratio's are series-days too).
const both = (2 * seriesDays) / (f.seconds + q.seconds);
rows.push(
  `| full default set, ratio included (the full set on the series and the ratio's detectors on their ratio; the series-days of both measures) | ${fmt(both)} | ${(f.seconds + q.seconds).toFixed(3)} | ${f.anomalies + q.anomalies} |`,
);
const bare = bareLag();
rows.push(`| reference: bare JS week-over-week loop | ${fmt(bare)} | | |`);
/** NumPy on the whole array (how a vectorised script is usually written) and in shard-sized blocks. */
const npWhole = numpyPeriods(0);
const npBlocks = numpyPeriods(NUMPY_BLOCK > 0 ? NUMPY_BLOCK : SHARD);
const blockSize = NUMPY_BLOCK > 0 ? NUMPY_BLOCK : SHARD;
const numpyRows: string[] = [];
if (npWhole === null || npBlocks === null)
  rows.push(
    '| reference: NumPy period-over-period rules | not run (python3 with NumPy missing or failed) | | |',
  );
else {
  numpyRows.push(
    `| Rule | Engine | NumPy, whole array | NumPy, ${blockSize} series per call | Engine / NumPy whole | Engine / NumPy blocks | NumPy runs (flagged days or periods) |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  let wholeSeconds = 0;
  let blockSeconds = 0;
  for (const rule of PERIOD_RULES) {
    const w = npWhole[rule];
    const b = npBlocks[rule];
    const mine = engine.get(rule)?.rate ?? 0;
    wholeSeconds += w.seconds;
    blockSeconds += b.seconds;
    numpyRows.push(
      `| ${rule} | ${fmt(mine)} | ${fmt(w.rate)} | ${fmt(b.rate)} | ${(mine / w.rate).toFixed(2)} | ${(mine / b.rate).toFixed(2)} | ${w.runs} (${w.flagged}) |`,
    );
  }
  const wholeRate = seriesDays / wholeSeconds;
  const blockRate = seriesDays / blockSeconds;
  numpyRows.push(
    `| **the six together** | **${fmt(p.rate)}** | **${fmt(wholeRate)}** | **${fmt(blockRate)}** | **${(p.rate / wholeRate).toFixed(2)}** | **${(p.rate / blockRate).toFixed(2)}** | |`,
  );
}

console.log(
  [
    `### Detection speed`,
    '',
    `${SERIES} series × ${DAYS} days = ${(seriesDays / 1e6).toFixed(2)} M series-days in shards of ${SHARD} series (the process worker's default), one core, Node ${process.version}, best of ${REPEAT}; data generated in ${generateSeconds.toFixed(1)} s. Full-set rate counts each series-day once for all detectors together.`,
    '',
    ...rows,
    '',
    ...(numpyRows.length > 0
      ? [
          'Against NumPy (series-days/s, one thread; above 1 the engine is faster):',
          '',
          ...numpyRows,
          '',
          "NumPy: `scripts/bench/numpy_periods.py` on the same values with the same thresholds (the defaults), best of the same number of runs, NumPy totals being the sum of the rule times. For MOM, QOQ, MPY and CW it is the engine's rule (special dates aside), so the counts agree; for DOD and WOW it leaves out what cannot be vectorised (flagged days replaced by their expected value in later baselines, adapting to a lasting change after `adaptAfterDays`, the weekday re-levelling), so it flags more days. The engine's figures include what NumPy's leave out: reading each series from memory once for the skip rules, the anomaly records (start, duration, actual and expected sums, share, recurrence).",
          '',
        ]
      : []),
    `Peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB, of which the inputs (values, parent values, peer changes, cardinality as Float64Array, presence as Uint8Array) take ${((values.byteLength * 4 + present.byteLength) / 2 ** 20).toFixed(0)} MiB.`,
  ].join('\n'),
);
