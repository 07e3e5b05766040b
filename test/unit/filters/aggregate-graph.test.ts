import { describe, expect, it } from 'vitest';
import { categoryOverlap, graphGroups } from '../../../lib/filters/aggregate-graph';
import { anomaly } from './fixtures';

const a = anomaly({ id: 1, categories: { Country: 'DE', Product: 'Shoes' } });
const b = anomaly({ id: 2, categories: { Country: 'DE', Product: 'Hats' } });
const c = anomaly({ id: 3, categories: { Country: 'FR', Product: 'Hats' } });
const d = anomaly({ id: 4, categories: { Country: 'DE', Product: 'Shoes', Channel: 'Web' } });
const set = [a, b, c, d];
const groups = (threshold: number, weights: Record<string, number> = {}, rows = set) =>
  graphGroups(rows, threshold, weights).map((g) => g.map((i) => rows[i].id));

describe('weighted category overlap', () => {
  it('is the weight of equal values over the weight of dimensions either anomaly has a value on', () => {
    expect(categoryOverlap(a.categories, b.categories)).toBe(0.5);
    expect(categoryOverlap(a.categories, c.categories)).toBe(0);
    expect(categoryOverlap(a.categories, d.categories)).toBeCloseTo(2 / 3);
    expect(categoryOverlap(a.categories, a.categories)).toBe(1);
  });

  it('ignores dimensions where both have the "all" value, and counts one-sided ones against', () => {
    expect(categoryOverlap({ Country: 'DE', City: null }, { Country: 'DE' })).toBe(1);
    expect(categoryOverlap({ Country: 'DE', City: 'Berlin' }, { Country: 'DE', City: null })).toBe(0.5);
  });

  it('uses the weights, 1 for unlisted dimensions and 0 to ignore one', () => {
    expect(categoryOverlap(a.categories, b.categories, { Country: 3 })).toBe(0.75);
    expect(categoryOverlap(a.categories, b.categories, { Product: 0 })).toBe(1);
  });

  it('takes two totals as fully overlapping', () => {
    expect(categoryOverlap({}, { Country: null })).toBe(1);
  });
});

describe('graph aggregation', () => {
  it('links every pair at or above the threshold and groups the connected anomalies', () => {
    // a–b 0.5, b–c 0.5, a–d 0.67: at 0.5 the chain a–b–c and a–d joins all four.
    expect(groups(0.5)).toEqual([[1, 2, 3, 4]]);
  });

  it('with a higher threshold keeps only the closest pairs', () => {
    expect(groups(0.6)).toEqual([[1, 4], [2], [3]]);
    expect(groups(1)).toEqual([[1], [2], [3], [4]]);
  });

  it('lets weights decide which dimension matters', () => {
    // Country weighs 3: a–b 0.75, a–d 0.8, b–c 0.25.
    expect(groups(0.7, { Country: 3 })).toEqual([[1, 2, 4], [3]]);
  });

  it('does not link anomalies whose dates do not overlap, but chains them through one that overlaps both', () => {
    const early = anomaly({
      id: 10,
      startDate: '2024-03-01',
      endDate: '2024-03-02',
      categories: { Country: 'DE' },
    });
    const late = anomaly({
      id: 11,
      startDate: '2024-03-03',
      endDate: '2024-03-04',
      categories: { Country: 'DE' },
    });
    expect(groups(1, {}, [early, late])).toEqual([[10], [11]]);
    const bridge = anomaly({
      id: 12,
      startDate: '2024-03-02',
      endDate: '2024-03-03',
      categories: { Country: 'DE' },
    });
    expect(groups(1, {}, [early, late, bridge])).toEqual([[10, 11, 12]]);
  });

  it('links two totals on overlapping days, but not a total to a country', () => {
    const total1 = anomaly({ id: 20, categories: {} });
    const total2 = anomaly({ id: 21, categories: { Country: null } });
    const de = anomaly({ id: 22, categories: { Country: 'DE' } });
    expect(groups(0.5, {}, [total1, total2, de])).toEqual([[20, 21], [22]]);
  });

  it('with threshold 0 links everything that overlaps in time', () => {
    const far = anomaly({
      id: 30,
      startDate: '2024-04-01',
      endDate: '2024-04-01',
      categories: { Country: 'DE' },
    });
    expect(groups(0, {}, [...set, far])).toEqual([[1, 2, 3, 4], [30]]);
  });
});
