import { describe, expect, it } from 'vitest';
import { rankAggregates, rankAnomalies } from '../../../lib/filters/rank';
import { buildAggregate } from '../../../lib/filters/aggregate';
import type { SortBy } from '../../../lib/filters/types';
import { anomaly, ids } from './fixtures';

// Five anomalies whose order is a different permutation for every Sort by value; change keys carry
// signs that would order them differently if ranking were by signed value.
const row = (
  id: number,
  duration: number,
  day: number,
  sin: number,
  sim: number,
  actualValue: number,
  predictedValue: number,
  change: number,
  changePct: number,
  changeCum: number,
  sharePct: number,
) =>
  anomaly({
    id,
    duration,
    startDate: `2024-03-0${day}`,
    endDate: `2024-03-0${day}`,
    sin,
    sim,
    actualValue,
    predictedValue,
    change,
    changePct,
    changeCum,
    sharePct,
  });
const all = [
  row(1, 5, 1, 2, 0.3, 400, 500, -30, 10, 400, 20),
  row(2, 4, 5, 1, 0.2, 300, 200, -50, 30, 100, 40),
  row(3, 3, 4, 5, 0.1, 200, 400, 20, -50, -300, 10),
  row(4, 2, 3, 4, 0.5, 100, 100, 40, -20, -500, 30),
  row(5, 1, 2, 3, 0.4, 500, 300, -10, 40, 200, 50),
];
const [a1, a2, a3, a4] = all;

describe('rankAnomalies orders descending by every Sort by value', () => {
  it.each([
    ['Duration', [1, 2, 3, 4, 5]],
    ['Date', [2, 3, 4, 5, 1]],
    ['SIN', [3, 4, 5, 1, 2]],
    ['SIM', [4, 5, 1, 2, 3]],
    ['Anomaly Value', [5, 1, 2, 3, 4]],
    ['Predicted Value', [1, 3, 5, 2, 4]],
    ['Change', [2, 4, 1, 3, 5]],
    ['Change %', [3, 5, 2, 4, 1]],
    ['Change Cum', [4, 1, 3, 5, 2]],
    ['Category Share %', [5, 2, 4, 1, 3]],
  ] as Array<[SortBy, number[]]>)('%s', (sortBy, expected) => {
    expect(ids(rankAnomalies(all, sortBy, 10))).toEqual(expected);
  });
});

describe('rankAnomalies', () => {
  it('ranks change by magnitude: a drop of 50 before a rise of 40', () => {
    expect(ids(rankAnomalies([a4, a2], 'Change', 10))).toEqual([2, 4]);
  });

  it('keeps the Top N after ordering', () => {
    expect(ids(rankAnomalies(all, 'SIN', 2))).toEqual([3, 4]);
  });

  it('breaks ties by SIN, then by the smaller id', () => {
    const tied = [
      anomaly({ id: 9, duration: 2, sin: 1 }),
      anomaly({ id: 7, duration: 2, sin: 1 }),
      anomaly({ id: 8, duration: 2, sin: 5 }),
    ];
    expect(ids(rankAnomalies(tied, 'Duration', 10))).toEqual([8, 7, 9]);
  });

  it('puts anomalies without the measure last', () => {
    const some = [anomaly({ id: 1, sharePct: null, sin: 9 }), anomaly({ id: 2, sharePct: 0 })];
    expect(ids(rankAnomalies(some, 'Category Share %', 10))).toEqual([2, 1]);
  });

  it('does not change the input order', () => {
    const input = [...all];
    rankAnomalies(input, 'SIN', 1);
    expect(ids(input)).toEqual([1, 2, 3, 4, 5]);
  });

  it('with split by type keeps the Top N of each type, in blocks led by the type of the best anomaly', () => {
    const mixed = [
      anomaly({ id: 1, type: 'DOD', sin: 5 }),
      anomaly({ id: 2, type: 'WOW', sin: 9 }),
      anomaly({ id: 3, type: 'DOD', sin: 4 }),
      anomaly({ id: 4, type: 'DOD', sin: 3 }),
      anomaly({ id: 5, type: 'WOW', sin: 1 }),
      anomaly({ id: 6, type: 'Gap', sin: 2 }),
      anomaly({ id: 7, type: 'WOW', sin: 0.5 }),
    ];
    expect(ids(rankAnomalies(mixed, 'SIN', 2, true))).toEqual([2, 5, 1, 3, 6]);
    expect(ids(rankAnomalies(mixed, 'SIN', 2, false))).toEqual([2, 1]);
  });
});

describe('rankAggregates', () => {
  it('orders aggregates by the same keys and cuts them to the Top N', () => {
    const aggs = [
      buildAggregate([a1, a4], 'H', 'SIN'),
      buildAggregate([a2], 'H', 'SIN'),
      buildAggregate([a3], 'H', 'SIN'),
    ];
    expect(rankAggregates(aggs, 'Duration', 10).map((a) => a.n)).toEqual([2, 1, 1]);
    expect(rankAggregates(aggs, 'SIN', 2).map((a) => a.members.map((m) => m.id))).toEqual([[3], [4, 1]]);
  });

  it('breaks ties by SIN, then by more members', () => {
    const small = buildAggregate([anomaly({ id: 20, sin: 1, duration: 1 })], 'H', 'SIN');
    const big = buildAggregate(
      [anomaly({ id: 21, sin: 1, duration: 1 }), anomaly({ id: 22, sin: 0, duration: 1 })],
      'H',
      'SIN',
    );
    expect(rankAggregates([small, big], 'Duration', 10).map((a) => a.n)).toEqual([2, 1]);
  });
});
