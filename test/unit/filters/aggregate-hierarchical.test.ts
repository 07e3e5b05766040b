import { describe, expect, it } from 'vitest';
import { aggregateAnomalies, buildAggregate } from '../../../lib/filters/aggregate';
import { dimensionsByStability, hierarchicalGroups } from '../../../lib/filters/aggregate-hierarchical';
import type { AggregateRecord } from '../../../lib/filters/types';
import { anomaly } from './fixtures';

// Region never varies, Country has two values, City three: the stable order is Region, Country, City.
const berlin = anomaly({ id: 1, categories: { Region: 'EU', Country: 'DE', City: 'Berlin' } });
const munich = anomaly({ id: 2, categories: { Region: 'EU', Country: 'DE', City: 'Munich' } });
const paris = anomaly({ id: 3, categories: { Region: 'EU', Country: 'FR', City: 'Paris' } });
const germany = anomaly({ id: 4, categories: { Region: 'EU', Country: 'DE', City: null } });
const set = [berlin, munich, paris, germany];

const memberIds = (aggs: AggregateRecord[]) =>
  aggs.map((a) => a.members.map((m) => m.id).sort((x, y) => x - y)).sort((x, y) => x[0] - y[0]);
const hierarchical = (minCommonCategories: number, anomalies = set) =>
  aggregateAnomalies(anomalies, {
    aggregationMode: 'Hierarchical',
    minCommonCategories,
    graphThreshold: 0,
    graphWeights: {},
  });

describe('dimension stability', () => {
  it('puts dimensions with fewer distinct values first', () => {
    expect(dimensionsByStability(set)).toEqual(['Region', 'Country', 'City']);
  });

  it('among equally varied dimensions prefers the one set on more anomalies, then the name', () => {
    const rows = [
      { categories: { B: 'x', A: 'x', C: 'x' } },
      { categories: { B: 'y', A: 'y', C: null } },
      { categories: { B: 'y', A: 'x', C: 'y' } },
    ];
    expect(dimensionsByStability(rows)).toEqual(['A', 'B', 'C']);
  });
});

describe('hierarchical aggregation', () => {
  it('with one common category groups everything sharing the most stable one', () => {
    expect(memberIds(hierarchical(1))).toEqual([[1, 2, 3, 4]]);
  });

  it('with two common categories splits by country', () => {
    expect(memberIds(hierarchical(2))).toEqual([[1, 2, 4], [3]]);
  });

  it('with three common categories leaves every anomaly alone (Germany has only two values)', () => {
    expect(memberIds(hierarchical(3))).toEqual([[1], [2], [3], [4]]);
  });

  it('names the shared values and the dimensions that vary', () => {
    const [de] = hierarchical(2).filter((a) => a.n === 3);
    expect(de.commonCategories).toEqual({ Country: 'DE', Region: 'EU' });
    expect(de.differentCategories).toEqual(['City']);
  });

  it('skips dimensions where an anomaly has the "all" value when building its key', () => {
    const total = anomaly({ id: 10, categories: { Country: null, Product: null } });
    const shoes = anomaly({ id: 11, categories: { Country: null, Product: 'Shoes' } });
    const deShoes = anomaly({ id: 12, categories: { Country: 'DE', Product: 'Shoes' } });
    const frShoes = anomaly({ id: 13, categories: { Country: 'FR', Product: 'Shoes' } });
    // Product (one value) is the most stable: every anomaly with a product groups on it; the total stays alone.
    expect(hierarchicalGroups([total, shoes, deShoes, frShoes], 1)).toEqual([[0], [1, 2, 3]]);
  });

  it('never mixes data views or result signs', () => {
    const rows = [
      anomaly({ id: 1, categories: { Country: 'DE' } }),
      anomaly({ id: 2, categories: { Country: 'DE' }, dataViewId: 2 }),
      anomaly({ id: 3, categories: { Country: 'DE' }, result: 'Negative' }),
      anomaly({ id: 4, categories: { Country: 'DE' } }),
    ];
    expect(memberIds(hierarchical(1, rows))).toEqual([[1, 4], [2], [3]]);
  });

  it('keeps types apart only when split by type', () => {
    const rows = [
      anomaly({ id: 1, type: 'DOD', categories: { Country: 'DE' } }),
      anomaly({ id: 2, type: 'WOW', categories: { Country: 'DE' } }),
    ];
    expect(memberIds(hierarchical(1, rows))).toEqual([[1, 2]]);
    const split = aggregateAnomalies(rows, {
      aggregationMode: 'Hierarchical',
      minCommonCategories: 1,
      graphThreshold: 0,
      graphWeights: {},
      splitByType: true,
    });
    expect(memberIds(split)).toEqual([[1], [2]]);
  });
});

describe('aggregate record', () => {
  const m1 = anomaly({
    id: 5,
    type: 'WOW',
    startDate: '2024-02-27',
    endDate: '2024-02-28',
    actualValue: 120,
    predictedValue: 100,
    change: 20,
    changeCum: 40,
    sharePct: 10,
    sin: 1.5,
    sim: 0.2,
    categories: { Country: 'DE', City: 'Berlin' },
  });
  const m2 = anomaly({
    id: 3,
    type: 'DOD',
    startDate: '2024-02-29',
    endDate: '2024-03-02',
    actualValue: 50,
    predictedValue: 100,
    change: -50,
    changeCum: -150,
    sharePct: 30,
    sin: 2.5,
    sim: 0.1,
    categories: { Country: 'DE', City: 'Munich' },
  });
  const m3 = anomaly({
    id: 9,
    type: 'DOD',
    startDate: '2024-02-28',
    endDate: '2024-02-28',
    actualValue: 10,
    predictedValue: null,
    change: null,
    changeCum: null,
    sharePct: null,
    sin: null,
    sim: 0.4,
    categories: { Country: 'DE', City: null },
  });
  const agg = buildAggregate([m1, m2, m3], 'H', 'SIN');

  it('spans from the earliest start to the latest end, counting days inclusively across 29 February', () => {
    expect([agg.startDate, agg.endDate, agg.duration]).toEqual(['2024-02-27', '2024-03-02', 5]);
  });

  it('lists the distinct types, counts members and ranks them by the sort key', () => {
    expect(agg.types).toEqual(['DOD', 'WOW']);
    expect(agg.n).toBe(3);
    expect(agg.members.map((m) => m.id)).toEqual([3, 5, 9]);
  });

  it('sums values and changes, and takes the largest share, SIN and SIM', () => {
    expect(agg).toMatchObject({ actualValue: 180, predictedValue: 200, change: -30, changeCum: -110 });
    expect(agg).toMatchObject({ sharePct: 30, sin: 2.5, sim: 0.4 });
  });

  it('computes change % from the summed change over the summed prediction', () => {
    expect(agg.changePct).toBe(-15);
  });

  it('has an id made of the mode, the smallest member id and a hash of the members, whatever their order', () => {
    expect(agg.id).toMatch(/^H-3-[0-9a-f]{8}$/);
    expect(buildAggregate([m3, m1, m2], 'H', 'Date').id).toBe(agg.id);
    expect(buildAggregate([m1, m2], 'H', 'SIN').id).not.toBe(agg.id);
  });

  it('belongs to the data view and result of its members', () => {
    expect(agg).toMatchObject({ dataViewId: 1, dataView: 'sales / orders', result: 'Positive' });
  });
});
