/**
 * Series that are not counts, derived from a real series of counts with its injected events (issue 29):
 * an average (the series ÷ a smooth, noisy visitor count), a rate in percent, a log-scale series, the
 * series in thousands and in units × 1,000. Each keeps the original's days with data and its labels, so
 * that it can be scored like the original. The noise of the divisors is seeded: the same series and
 * seed give the same copies.
 */
import { makeNormal, makeRng } from '../synthetic/rng';
import type { Dataset, RealSeries } from './datasets';

export interface Derivation {
  /** Short name, e.g. 'average'. */
  name: string;
  /** The name as a lower-case identifier (a source table's and a data view's). */
  slug: string;
  /** What the copy is, for the report. */
  describe: string;
  /** True for a plain change of unit (the same days should be flagged as on the original). */
  scaled: boolean;
  derive(s: RealSeries, seed: number): Float64Array;
}

/** Mean of the series over its days with data. */
function meanPresent(s: RealSeries): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < s.values.length; i++) {
    if (!s.present[i]) continue;
    sum += s.values[i];
    n++;
  }
  return n > 0 ? sum / n : 0;
}

/**
 * A smooth, noisy daily divisor around `level`: a yearly wave of ±`wave`, a slow trend of +20 % over the
 * series, and day noise of `noise` (relative). Never below a tenth of the level.
 */
export function smoothDivisor(
  s: RealSeries,
  level: number,
  seed: number,
  wave = 0.15,
  noise = 0.04,
): Float64Array {
  const normal = makeNormal(makeRng(seed));
  const n = s.values.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const season = 1 + wave * Math.sin((2 * Math.PI * (s.day0 + i)) / 365.25);
    const trend = 1 + (0.2 * i) / Math.max(1, n - 1);
    out[i] = Math.max(0.1 * level, level * season * trend * (1 + noise * normal()));
  }
  return out;
}

export const DERIVATIONS: readonly Derivation[] = [
  {
    name: 'average',
    slug: 'average',
    describe: 'value ÷ a smooth, noisy visitor count (an average of about 8 a visitor)',
    scaled: false,
    derive: (s, seed) => {
      const visitors = smoothDivisor(s, meanPresent(s) / 8, seed);
      return s.values.map((v, i) => v / visitors[i]);
    },
  },
  {
    name: 'rate %',
    slug: 'rate_pct',
    describe: '100 × value ÷ a smooth, noisy session count (a rate of about 5 %)',
    scaled: false,
    derive: (s, seed) => {
      const sessions = smoothDivisor(s, meanPresent(s) * 20, seed + 1, 0.1, 0.03);
      return s.values.map((v, i) => (100 * v) / sessions[i]);
    },
  },
  {
    name: 'log10',
    slug: 'log10',
    describe: 'log10(1 + value) (a log-scale series)',
    scaled: false,
    derive: (s) => s.values.map((v) => Math.log10(1 + Math.max(0, v))),
  },
  {
    name: 'thousands',
    slug: 'thousands',
    describe: 'value ÷ 1,000 (an amount in thousands)',
    scaled: true,
    derive: (s) => s.values.map((v) => v / 1000),
  },
  {
    name: 'units ×1000',
    slug: 'units_x1000',
    describe: 'value × 1,000 (an amount in a unit a thousand times smaller)',
    scaled: true,
    derive: (s) => s.values.map((v) => v * 1000),
  },
];

/** The dataset with its values replaced by a derivation's (days with data, labels and kind kept). */
export function deriveDataset(ds: Dataset, d: Derivation, seed = 29): Dataset {
  const s = ds.series;
  const values = d.derive(s, seed);
  // Days without data stay 0, as the service's gap filling leaves them.
  for (let i = 0; i < values.length; i++) if (!s.present[i]) values[i] = 0;
  const rows: [number, number][] = s.rows.map(([day]) => [day, values[day - s.day0]]);
  return { ...ds, series: { ...s, name: `${s.name}_${d.slug}`, values, rows } };
}
