import { describe, expect, it } from 'vitest';
import { detectSeries, type SeriesInput } from '../../../lib/detection';
import { makeNormal, makeRng } from '../../../scripts/synthetic/rng';

/**
 * An average price per event whose noise is the day's (a price list of the day, not one price per
 * event), on weeks that alternate between 5 and 40 events a day: WOW compares each day with one of
 * the other kind. Its residual is as noisy on the busy day as on the thin one.
 */
function alternating(seed: number): SeriesInput {
  const n = 730;
  const rand = makeRng(seed);
  const normal = makeNormal(rand);
  const values = new Float64Array(n);
  const weights = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    weights[t] = Math.floor(t / 7) % 2 === 0 ? 40 : 5;
    values[t] = 100 * Math.exp(0.12 * normal());
  }
  return {
    seriesId: 'price',
    dayIndex0: 19_000,
    values,
    present: new Uint8Array(n).fill(1),
    measureKind: 'ratio',
    weights,
    shareOf: values.map((v, t) => v * weights[t]),
  };
}

describe('a ratio compared with one other day', () => {
  it('weighs the residual by the events of both days, not the busy day’s alone', () => {
    let found = 0;
    for (let seed = 1; seed <= 5; seed++)
      found += detectSeries(alternating(seed), [{ type: 'wow' }, { type: 'dod' }]).length;
    expect(found).toBeLessThanOrEqual(2);
  });
});
