/**
 * The source rows of a family cube (scripts/synthetic/family-cube.ts): each leaf's daily count is
 * gamma-Poisson around its expectation × the injections' factors × a daily shock shared by the whole
 * cube; a day without events has no row, a missing day none at all, and the last day keeps only a share
 * of its events when it is partial. The value is the count × the leaf's price with ±15 % noise.
 */
import type { FamilyInjection } from './family-injections';
import { inKey } from './family-injections';
import type { FamilyShape } from './family-shape';
import { makeNormal } from './rng';
import { gamma, poisson } from './retail-cube';

export interface NoiseInput {
  shape: FamilyShape;
  leaves: number[][];
  expectedCount: Float64Array;
  expectedValue: Float64Array;
  leafShape: Float64Array;
  shock: number;
  injections: FamilyInjection[];
}

function factors(input: NoiseInput): Float64Array {
  const { days } = input.shape;
  const out = new Float64Array(input.leaves.length * days).fill(1);
  for (const inj of input.injections)
    input.leaves.forEach((leaf, l) => {
      if (!inKey(inj.key, leaf)) return;
      for (let t = inj.start; t <= inj.end; t++) out[l * days + t] *= inj.factor;
    });
  return out;
}

function thin(rand: () => number, normal: () => number, k: number, share: number): number {
  if (share >= 1) return k;
  if (k > 40) return Math.max(0, Math.round(k * share + Math.sqrt(k * share * (1 - share)) * normal()));
  let kept = 0;
  for (let i = 0; i < k; i++) if (rand() < share) kept++;
  return kept;
}

export function gammaPoisson(rand: () => number, input: NoiseInput) {
  const normal = makeNormal(rand);
  const { days, lastDayShare } = input.shape;
  const factor = factors(input);
  const shock = Float64Array.from({ length: days }, () => Math.exp(input.shock * normal()));
  const cap = input.leaves.length * days;
  const rowLeaf = new Int32Array(cap);
  const rowDay = new Int32Array(cap);
  const rowAmount = new Float64Array(cap);
  const rowCount = new Int32Array(cap);
  let rows = 0;
  for (let l = 0; l < input.leaves.length; l++) {
    const k0 = input.leafShape[l];
    for (let t = 0; t < days; t++) {
      const i = l * days + t;
      if (factor[i] === 0) continue;
      const mean = input.expectedCount[i] * factor[i] * shock[t];
      let k = poisson(rand, normal, (mean * gamma(rand, normal, k0)) / k0);
      if (t === days - 1) k = thin(rand, normal, k, lastDayShare);
      if (k === 0) continue;
      const price = input.expectedValue[i] / input.expectedCount[i];
      rowLeaf[rows] = l;
      rowDay[rows] = t;
      rowCount[rows] = k;
      rowAmount[rows] = Math.round(k * price * Math.exp(0.15 * normal() - 0.011) * 100) / 100;
      rows++;
    }
  }
  return { rowLeaf, rowDay, rowAmount, rowCount, rows };
}
