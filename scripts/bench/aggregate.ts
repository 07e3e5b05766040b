/** Times aggregation and a whole filter run over 10,000 generated anomalies: `npm run bench -- aggregate [n]` (or `npx tsx scripts/bench/aggregate.ts [n]`). */
import { performance } from 'node:perf_hooks';
import { aggregateAnomalies } from '../../lib/filters/aggregate';
import { parseFilterSettings } from '../../lib/filters/parse';
import { runFilter } from '../../lib/filters/run';
import type { AnomalyRecord } from '../../lib/filters/types';

/** Small seeded PRNG so every run measures the same data. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(n: number): AnomalyRecord[] {
  const rnd = mulberry32(42);
  const pick = (k: number, prefix: string) => (rnd() < 0.3 ? null : `${prefix}${Math.floor(rnd() * k)}`);
  const types = ['DOD', 'WOW', 'MOM', 'Spike', 'Gap', 'ChangePoint'];
  const day0 = Date.UTC(2024, 0, 1);
  return Array.from({ length: n }, (_, i) => {
    const start = Math.floor(rnd() * 30);
    const duration = 1 + Math.floor(rnd() * 5);
    const predicted = 100 + rnd() * 1000;
    const actual = predicted * (0.3 + rnd() * 1.4);
    const change = actual - predicted;
    return {
      id: i + 1,
      measure: 'value',
      dataViewId: 1 + (i % 3),
      dataView: `bench / view${1 + (i % 3)}`,
      seriesId: i,
      type: types[Math.floor(rnd() * types.length)],
      startDate: new Date(day0 + start * 86_400_000).toISOString().slice(0, 10),
      endDate: new Date(day0 + (start + duration - 1) * 86_400_000).toISOString().slice(0, 10),
      duration,
      actualValue: actual,
      predictedValue: predicted,
      change,
      changePct: (100 * change) / predicted,
      changeCum: change * duration,
      sharePct: rnd() * 100,
      recurrence: Math.floor(rnd() * 5),
      result: change >= 0 ? 'Positive' : 'Negative',
      categories: {
        Region: pick(3, 'R'),
        Country: pick(20, 'C'),
        Product: pick(50, 'P'),
        Channel: pick(3, 'H'),
      },
      sin: rnd() * 4.5,
      sim: rnd(),
      comments: [],
    } satisfies AnomalyRecord;
  });
}

function time<T>(label: string, fn: () => T, describe: (r: T) => string): void {
  fn(); // warm up the JIT
  const runs = 5;
  const started = performance.now();
  let result: T | undefined;
  for (let i = 0; i < runs; i++) result = fn();
  const ms = (performance.now() - started) / runs;
  console.log(`${label.padEnd(40)} ${ms.toFixed(1).padStart(8)} ms   ${describe(result as T)}`);
}

const n = Number(process.argv[2] ?? 10_000);
const anomalies = generate(n);
console.log(
  `${n} anomalies, 3 data views, 4 dimensions (30 % "all"), 30 days; mean of 5 runs after a warm-up`,
);
for (const k of [1, 2, 3, 4]) {
  time(
    `hierarchical, minCommonCategories ${k}`,
    () =>
      aggregateAnomalies(anomalies, {
        aggregationMode: 'Hierarchical',
        minCommonCategories: k,
        graphThreshold: 0,
        graphWeights: {},
      }),
    (r) => `${r.length} aggregates`,
  );
}
for (const t of [0, 0.1, 0.25, 0.5, 0.75, 1]) {
  time(
    `graph, threshold ${t}`,
    () =>
      aggregateAnomalies(anomalies, {
        aggregationMode: 'Graph',
        minCommonCategories: 1,
        graphThreshold: t,
        graphWeights: {},
      }),
    (r) => `${r.length} aggregates`,
  );
}
const settings = parseFilterSettings({
  name: 'bench',
  sortBy: 'Change %',
  limit: 100,
  isAggregated: true,
  aggregationMode: 'Graph',
});
time(
  'runFilter (select, rank, graph 0.5, Top 100)',
  () => runFilter(anomalies, settings),
  (r) => `${r.anomalies.length} anomalies, ${r.aggregates?.length} aggregates`,
);

// Worst case for the graph: every anomaly overlaps every other in time, so only categories prune pairs.
const dense = anomalies.map((a) => ({ ...a, dataViewId: 1, startDate: '2024-01-01', endDate: '2024-01-03' }));
console.log('the same anomalies, all in one data view and on the same three days:');
for (const t of [0.25, 0.5, 0.75, 1]) {
  time(
    `graph (dense), threshold ${t}`,
    () =>
      aggregateAnomalies(dense, {
        aggregationMode: 'Graph',
        minCommonCategories: 1,
        graphThreshold: t,
        graphWeights: {},
      }),
    (r) => `${r.length} aggregates`,
  );
}
