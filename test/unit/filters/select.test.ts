import { describe, expect, it } from 'vitest';
import { applyFilter, scopeAnomalies } from '../../../lib/filters/select';
import { anomaly, ids } from './fixtures';

describe('applyFilter', () => {
  it('keeps everything when nothing constrains', () => {
    const all = [anomaly({ id: 1 }), anomaly({ id: 2, result: 'Negative' })];
    expect(ids(applyFilter(all, {}))).toEqual([1, 2]);
    expect(ids(applyFilter(all, { anomalyTypes: [], anomalyResults: [], categories: {} }))).toEqual([1, 2]);
  });

  it('selects types case-insensitively', () => {
    const all = [
      anomaly({ id: 1, type: 'DOD' }),
      anomaly({ id: 2, type: 'wow' }),
      anomaly({ id: 3, type: 'Spike' }),
    ];
    expect(ids(applyFilter(all, { anomalyTypes: ['dod', 'WOW'] }))).toEqual([1, 2]);
  });

  it('selects by result sign', () => {
    const all = [anomaly({ id: 1, result: 'Positive' }), anomaly({ id: 2, result: 'Negative' })];
    expect(ids(applyFilter(all, { anomalyResults: ['Negative'] }))).toEqual([2]);
    expect(ids(applyFilter(all, { anomalyResults: ['Positive', 'Negative'] }))).toEqual([1, 2]);
  });

  it('requires every category constraint to hold; the "all" value satisfies none', () => {
    const all = [
      anomaly({ id: 1, categories: { Country: 'DE', Product: 'Shoes' } }),
      anomaly({ id: 2, categories: { Country: 'DE', Product: 'Hats' } }),
      anomaly({ id: 3, categories: { Country: 'DE', Product: null } }),
      anomaly({ id: 4, categories: { Product: 'Shoes' } }),
    ];
    expect(ids(applyFilter(all, { categories: { Country: 'DE' } }))).toEqual([1, 2, 3]);
    expect(ids(applyFilter(all, { categories: { Country: 'DE', Product: 'Shoes' } }))).toEqual([1]);
  });

  it('applies inclusive bounds, open on a null side', () => {
    const all = [1, 2, 3, 4].map((r) => anomaly({ id: r, recurrence: r }));
    expect(ids(applyFilter(all, { recurrence: { from: 2, to: 3 } }))).toEqual([2, 3]);
    expect(ids(applyFilter(all, { recurrence: { from: null, to: 2 } }))).toEqual([1, 2]);
    expect(ids(applyFilter(all, { recurrence: { from: 3, to: null } }))).toEqual([3, 4]);
  });

  it('bounds change and change % by magnitude, so a drop of 30 % passes "from 20"', () => {
    const all = [
      anomaly({ id: 1, changePct: -30, change: -300 }),
      anomaly({ id: 2, changePct: 10, change: 100 }),
      anomaly({ id: 3, changePct: 25, change: 5 }),
    ];
    expect(ids(applyFilter(all, { changePct: { from: 20, to: null } }))).toEqual([1, 3]);
    expect(ids(applyFilter(all, { change: { from: 50, to: 200 } }))).toEqual([2]);
  });

  it('bounds the category share', () => {
    const all = [anomaly({ id: 1, sharePct: 0.5 }), anomaly({ id: 2, sharePct: 40 })];
    expect(ids(applyFilter(all, { sharePct: { from: 1, to: 100 } }))).toEqual([2]);
  });

  it('drops an anomaly without the measure only when that measure is bounded', () => {
    const all = [anomaly({ id: 1, changePct: null }), anomaly({ id: 2, changePct: 50 })];
    expect(ids(applyFilter(all, { changePct: { from: null, to: null } }))).toEqual([1, 2]);
    expect(ids(applyFilter(all, { changePct: { from: 0, to: null } }))).toEqual([2]);
  });
});

describe('scopeAnomalies', () => {
  it('keeps anomalies of the listed data views whose dates overlap the window', () => {
    const all = [
      anomaly({ id: 1, dataViewId: 1, startDate: '2024-02-25', endDate: '2024-03-01' }),
      anomaly({ id: 2, dataViewId: 1, startDate: '2024-02-20', endDate: '2024-02-29' }),
      anomaly({ id: 3, dataViewId: 2, startDate: '2024-03-02', endDate: '2024-03-02' }),
      anomaly({ id: 4, dataViewId: 1, startDate: '2024-03-08', endDate: '2024-03-09' }),
    ];
    expect(
      ids(scopeAnomalies(all, { dataViewIds: [1], dateFrom: '2024-03-01', dateTo: '2024-03-07' })),
    ).toEqual([1]);
    expect(ids(scopeAnomalies(all, { dateFrom: '2024-03-01', dateTo: '2024-03-08' }))).toEqual([1, 3, 4]);
  });
});
