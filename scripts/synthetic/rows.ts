/** Flat rows of unlabelled series for speed measurements. */
import { WEEK_PROFILE } from './generate';
import { makeNormal, makeRng, randInt, uniform } from './rng';

/**
 * Flat rows of independent series (weekly profile, trend, noise, a few spikes) for benchmarks:
 * row s is [s * days, (s + 1) * days).
 */
export function generateRows(
  count: number,
  days: number,
  seed = 1,
): { values: Float64Array; present: Uint8Array } {
  const rand = makeRng(seed);
  const normal = makeNormal(rand);
  const values = new Float64Array(count * days);
  const present = new Uint8Array(count * days).fill(1);
  for (let s = 0; s < count; s++) {
    const level = uniform(rand, 10, 10_000);
    const noise = uniform(rand, 0.02, 0.08);
    const trend = uniform(rand, -0.1, 0.1) / 365;
    const off = s * days;
    for (let t = 0; t < days; t++) {
      values[off + t] = Math.max(0, level * WEEK_PROFILE[t % 7] * (1 + trend * t) * (1 + noise * normal()));
    }
    for (let k = 0; k < 3; k++) values[off + randInt(rand, 0, days - 1)] *= 2;
    const gapAt = randInt(rand, 0, days - 5);
    for (let t = gapAt; t < gapAt + 2; t++) {
      present[off + t] = 0;
      values[off + t] = 0;
    }
  }
  return { values, present };
}
