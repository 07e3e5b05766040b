import { describe, expect, it } from 'vitest';
import { parseFilterSettings } from '../../../lib/filters/parse';
import { runFilter } from '../../../lib/filters/run';
import { anomaly, ids } from './fixtures';

const rows = [
  anomaly({
    id: 1,
    type: 'DOD',
    sin: 5,
    result: 'Negative',
    categories: { Country: 'DE', Product: 'Shoes' },
  }),
  anomaly({ id: 2, type: 'DOD', sin: 4, result: 'Negative', categories: { Country: 'DE', Product: 'Hats' } }),
  anomaly({ id: 3, type: 'WOW', sin: 3, result: 'Negative', categories: { Country: 'DE', Product: 'Bags' } }),
  anomaly({
    id: 4,
    type: 'DOD',
    sin: 2,
    result: 'Negative',
    categories: { Country: 'FR', Product: 'Shoes' },
  }),
  anomaly({
    id: 5,
    type: 'DOD',
    sin: 9,
    result: 'Positive',
    categories: { Country: 'DE', Product: 'Shoes' },
  }),
];

describe('runFilter', () => {
  it('selects, ranks and cuts the anomalies, without aggregates when not aggregating', () => {
    const out = runFilter(
      rows,
      parseFilterSettings({ name: 'f', anomalyResult: 'Negative', sortBy: 'SIN', limit: 3 }),
    );
    expect(ids(out.anomalies)).toEqual([1, 2, 3]);
    expect(out.aggregates).toBeUndefined();
  });

  it('aggregates every selected anomaly, not only the Top N, and cuts the aggregates to the Top N on their own', () => {
    const settings = parseFilterSettings({
      name: 'f',
      anomalyResult: 'Negative',
      sortBy: 'SIN',
      limit: 1,
      isAggregated: true,
      aggregationMode: 'Hierarchical',
      minCommonCategories: 1,
    });
    const out = runFilter(rows, settings);
    expect(ids(out.anomalies)).toEqual([1]);
    expect(out.aggregates).toHaveLength(1);
    // Country (two values) is more stable than Product (three): the DE group holds all three German drops.
    expect(out.aggregates![0]).toMatchObject({
      n: 3,
      commonCategories: { Country: 'DE' },
      types: ['DOD', 'WOW'],
    });
  });

  it('with split by type keeps the Top N per type for anomalies and aggregates', () => {
    const settings = parseFilterSettings({
      name: 'f',
      anomalyResult: 'Negative',
      sortBy: 'SIN',
      limit: 1,
      splitByType: true,
      isAggregated: true,
      aggregationMode: 'Graph',
      graphThreshold: 0.5,
    });
    const out = runFilter(rows, settings);
    expect(ids(out.anomalies)).toEqual([1, 3]);
    expect(out.aggregates!.map((a) => [a.types, a.n])).toEqual([
      [['DOD'], 3],
      [['WOW'], 1],
    ]);
  });

  it('applies category constraints and bounds before ranking', () => {
    const settings = parseFilterSettings({
      name: 'f',
      categoriesFilter: 'Product=Shoes',
      sortBy: 'SIN',
      limit: 10,
    });
    expect(ids(runFilter(rows, settings).anomalies)).toEqual([5, 1, 4]);
  });
});
