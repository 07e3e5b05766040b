import { describe, expect, it } from 'vitest';
import { previewSeries, RATIO_TYPES, type SeriesInput } from '../../../lib/detection';

describe('peer and the ratio measure', () => {
  const n = 120;
  const weights = new Float64Array(n).fill(40);
  const values = Float64Array.from({ length: n }, (_, t) => 50 * (1 + 0.1 * Math.sin(t)));
  const series: SeriesInput = {
    seriesId: 'adr',
    dayIndex0: 19_000,
    values,
    present: new Uint8Array(n).fill(1),
    measureKind: 'ratio',
    weights,
    shareOf: values.map((v, t) => v * weights[t]),
    peerChange: new Float64Array(n),
  };

  it('does not judge a ratio (an average per event) against its peers’ averages', () => {
    expect(RATIO_TYPES.has('peer')).toBe(false);
    expect(previewSeries(series, { type: 'peer' }).skipped?.reason).toBe('not-for-measure');
  });

  it('still judges the value and the count against their peers', () => {
    const { measureKind: _m, weights: _w, shareOf: _s, ...value } = series;
    expect(previewSeries({ ...value, measureKind: 'events' }, { type: 'peer' }).skipped).toBeNull();
  });
});
