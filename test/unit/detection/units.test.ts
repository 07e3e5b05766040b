/**
 * The verdict on an amount does not depend on its unit: the real series of the evaluation (page views,
 * pedestrians, US births) as the value measure of a view whose count is constant, multiplied by 1,000
 * or divided by 1,000, flag the same days with every detector as in their own unit.
 */
import { describe, expect, it } from 'vitest';
import { detectSeries } from '../../../lib/detection/detect';
import { DETECTOR_TYPES, type DetectorType } from '../../../lib/detection/params';
import type { AnomalyDraft, SeriesInput } from '../../../lib/detection/types';
import { type Dataset, loadRealDatasets } from '../../../scripts/eval/datasets';

const datasets = loadRealDatasets();

/** The series as an amount, scaled; a parent (the series and a fifth more) for mix, its halves as peers. */
function input(ds: Dataset, scale: number, kind: 'amount' | 'events' = 'amount'): SeriesInput {
  const { values, present, day0 } = ds.series;
  const x = values.map((v) => v * scale);
  const parent = x.map((v, t) => v + 0.2 * x[(t + 7) % x.length]);
  // The median change of its peers: the series' own change against its last four same weekdays,
  // halved (so that peer has something to compare and differs from a plain week-over-week).
  const peer = new Float64Array(x.length).fill(Number.NaN);
  // Children with data: 6, or 3 on a day below half of the last four same weekdays (a unit-free count).
  const children = new Float64Array(x.length).fill(6);
  for (let t = 28; t < x.length; t++) {
    const base = (x[t - 7] + x[t - 14] + x[t - 21] + x[t - 28]) / 4;
    if (base > 0) peer[t] = 0.5 * (x[t] / base - 1);
    if (x[t] < 0.5 * base) children[t] = 3;
  }
  return {
    seriesId: ds.kind,
    dayIndex0: day0,
    values: x,
    present,
    totalValues: x,
    parentValues: parent,
    peerChange: peer,
    cardinality: children,
    measureKind: kind,
  };
}

const days = (a: AnomalyDraft[]) => a.map((d) => `${d.startDate}..${d.endDate} ${d.result}`);

describe.each(DETECTOR_TYPES.map((type) => [type]))('%s on a real series in another unit', (type) => {
  it('flags something on the real series (so that the same days are days)', () => {
    const flagged = datasets.map((ds) => detectSeries(input(ds, 1), [{ type, params: {} }]).length);
    expect(Math.max(...flagged)).toBeGreaterThan(0);
  });

  it.each(
    datasets.map((ds) => [ds.kind, ds] as const),
  )('flags the same days on %s × 1,000 and ÷ 1,000', (_name, ds) => {
    const detectors = [{ type: type as DetectorType, params: {} }];
    const own = detectSeries(input(ds, 1), detectors);
    const thousands = detectSeries(input(ds, 1 / 1000), detectors);
    const milli = detectSeries(input(ds, 1000), detectors);
    expect(days(thousands)).toEqual(days(own));
    expect(days(milli)).toEqual(days(own));
    // The figures scale with the unit (cardinality's are counts of children); the change % does not.
    const unit = type === 'cardinality' ? 1 : 1000;
    for (const [i, a] of thousands.entries()) {
      expect(a.predictedValue / own[i].predictedValue).toBeCloseTo(1 / unit, 6);
      const pct = own[i].changePct;
      if (a.changePct !== null && pct !== null && pct !== 0) expect(a.changePct / pct).toBeCloseTo(1, 9);
    }
  });
});

describe('the same series judged as counts', () => {
  it('depends on the unit (Poisson floors and a materiality of 10 events): why amounts are judged apart', () => {
    const births = datasets.find((d) => d.kind === 'births') as Dataset;
    const detectors = [{ type: 'dt' as const, params: {} }];
    const own = detectSeries(input(births, 1, 'events'), detectors);
    const thousands = detectSeries(input(births, 1 / 1000, 'events'), detectors);
    expect(own.length).toBeGreaterThan(0);
    expect(days(thousands)).not.toEqual(days(own));
  });
});
