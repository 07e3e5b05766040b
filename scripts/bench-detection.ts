/**
 * Detection speed: series-days per second for each detector, the period-over-period set and the
 * full default set on 10,000 series × 3 years generated in memory, plus peak memory. Compares with
 * a plain JS lag loop and, when python3 with NumPy is installed, the same lag rule vectorised.
 * Options: --series N (default 10000), --days N (default 1096), --repeat N (default 3).
 */
import { execFileSync } from 'node:child_process';
import { toEpochDay } from '../lib/calendar/days';
import { type ResolvedDetector, detectShard, resolveDetectors } from '../lib/detection/detect';
import { DETECTOR_TYPES, type DetectorType } from '../lib/detection/params';
import { Workspace } from '../lib/detection/workspace';
import { generateRows } from './synthetic/rows';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const SERIES = arg('--series', 10_000);
const DAYS = arg('--days', 1096);
const REPEAT = arg('--repeat', 3);
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
const generateSeconds = (performance.now() - t0) / 1000;
sampleRss();

const shard = {
  dayIndex0: toEpochDay('2022-01-01'),
  days: DAYS,
  seriesIds: Array.from({ length: SERIES }, (_, i) => i),
  values,
  present,
  totalValues,
  parentValues,
  peerChange,
  cardinality,
};
const ws = new Workspace();

function measure(detectors: ResolvedDetector[]): { rate: number; anomalies: number; seconds: number } {
  let best = Number.POSITIVE_INFINITY;
  let anomalies = 0;
  for (let r = 0; r < REPEAT; r++) {
    const start = performance.now();
    anomalies = detectShard(shard, detectors, {}, ws).length;
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

function numpyLag(): number | null {
  const code = `
import numpy as np, time
S, D = ${SERIES}, ${DAYS}
x = np.random.default_rng(1).gamma(50, 20, size=(S, D))
best = 1e9
for _ in range(${REPEAT}):
    t = time.perf_counter()
    prev = x[:, :-7]
    rel = np.divide(x[:, 7:], prev, out=np.zeros_like(prev), where=prev != 0) - 1
    flags = np.where(rel >= 0.3, 1, np.where(rel <= -0.3, -1, 0))
    n = int(np.count_nonzero(flags))
    best = min(best, time.perf_counter() - t)
print(S * D / best)
`;
  try {
    return Number(
      execFileSync('python3', ['-c', code], {
        encoding: 'utf8',
        env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' },
      }).trim(),
    );
  } catch {
    return null;
  }
}

const fmt = (rate: number) => `${(rate / 1e6).toFixed(1)} M`;
const rows: string[] = [
  '| Detector set | Series-days/s | Best run (s) | Anomalies |',
  '|---|---:|---:|---:|',
];
for (const type of DETECTOR_TYPES) {
  const r = measure(resolveDetectors([{ type: type as DetectorType }]));
  rows.push(`| ${type} | ${fmt(r.rate)} | ${r.seconds.toFixed(2)} | ${r.anomalies} |`);
}
const periodSet = resolveDetectors(
  ['dod', 'wow', 'mom', 'qoq', 'mpy', 'cw'].map((type) => ({ type: type as DetectorType })),
);
const full = resolveDetectors(DETECTOR_TYPES.map((type) => ({ type })));
const p = measure(periodSet);
rows.push(
  `| period-over-period (dod, wow, mom, qoq, mpy, cw) | ${fmt(p.rate)} | ${p.seconds.toFixed(2)} | ${p.anomalies} |`,
);
const f = measure(full);
rows.push(
  `| full default set (all ${full.length} detectors) | ${fmt(f.rate)} | ${f.seconds.toFixed(2)} | ${f.anomalies} |`,
);
const bare = bareLag();
rows.push(`| reference: bare JS week-over-week loop | ${fmt(bare)} | | |`);
const np = numpyLag();
rows.push(
  `| reference: NumPy week-over-week (vectorised, 1 thread) | ${np === null ? 'python3/NumPy not available' : fmt(np)} | | |`,
);

console.log(
  [
    `### Detection speed`,
    '',
    `${SERIES} series × ${DAYS} days = ${(seriesDays / 1e6).toFixed(2)} M series-days, one core, Node ${process.version}, best of ${REPEAT}; data generated in ${generateSeconds.toFixed(1)} s. Full-set rate counts each series-day once for all detectors together.`,
    '',
    ...rows,
    '',
    `Peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB, of which the inputs (values, parent values, peer changes, cardinality as Float64Array, presence as Uint8Array) take ${((values.byteLength * 4 + present.byteLength) / 2 ** 20).toFixed(0)} MiB.`,
  ].join('\n'),
);
