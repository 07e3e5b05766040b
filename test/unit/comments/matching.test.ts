import { describe, expect, it } from 'vitest';
import { attachComments, commentMatches, type MatchableComment } from '../../../lib/comments/matching';

type Categories = Record<string, string | null>;

const anomaly = {
  dataViewId: 1,
  startDate: '2024-03-10',
  endDate: '2024-03-12',
  categories: { Country: 'DE', Product: 'Shoes', Channel: null },
};
const comment = (over: Partial<Parameters<typeof commentMatches>[0]> = {}) => ({
  dataViewId: 1,
  dateFrom: '2024-03-01',
  dateTo: '2024-03-31',
  ...over,
});

describe('commentMatches', () => {
  it('matches an anomaly of the same data view inside its window', () => {
    expect(commentMatches(comment(), anomaly)).toBe(true);
  });

  it('never matches an anomaly of another data view', () => {
    expect(commentMatches(comment({ dataViewId: 2 }), anomaly)).toBe(false);
  });

  it('matches when the windows only touch on the first or last day (both ends inclusive)', () => {
    expect(commentMatches(comment({ dateFrom: '2024-03-12', dateTo: '2024-03-20' }), anomaly)).toBe(true);
    expect(commentMatches(comment({ dateFrom: '2024-03-01', dateTo: '2024-03-10' }), anomaly)).toBe(true);
  });

  it('does not match when the window ends the day before the anomaly starts or starts the day after it ends', () => {
    expect(commentMatches(comment({ dateFrom: '2024-03-01', dateTo: '2024-03-09' }), anomaly)).toBe(false);
    expect(commentMatches(comment({ dateFrom: '2024-03-13', dateTo: '2024-03-20' }), anomaly)).toBe(false);
  });

  it('matches when a concrete category equals the anomaly value', () => {
    expect(commentMatches(comment({ categories: { Country: 'DE' } }), anomaly)).toBe(true);
    expect(commentMatches(comment({ categories: { Country: 'DE', Product: 'Shoes' } }), anomaly)).toBe(true);
  });

  it('does not match when one concrete category differs', () => {
    expect(commentMatches(comment({ categories: { Country: 'DE', Product: 'Hats' } }), anomaly)).toBe(false);
  });

  it('treats a null category as a wildcard', () => {
    expect(commentMatches(comment({ categories: { Country: null, Product: 'Shoes' } }), anomaly)).toBe(true);
  });

  it('does not match an anomaly on the "all" value of a category the comment constrains', () => {
    expect(commentMatches(comment({ categories: { Channel: 'Web' } }), anomaly)).toBe(false);
    expect(commentMatches(comment({ categories: { Region: 'North' } }), anomaly)).toBe(false);
  });

  it('is data-view-wide without categories, with an empty object, or with only nulls', () => {
    const variants: Array<Categories | undefined> = [undefined, {}, { Country: null, Product: null }];
    for (const categories of variants) {
      expect(commentMatches(comment({ categories }), anomaly)).toBe(true);
    }
  });

  it('compares values exactly, without trimming or case folding', () => {
    expect(commentMatches(comment({ categories: { Country: 'de' } }), anomaly)).toBe(false);
    expect(commentMatches(comment({ categories: { Country: 'DE ' } }), anomaly)).toBe(false);
  });
});

describe('attachComments', () => {
  const anomalies: Array<{
    id: number;
    dataViewId: number;
    startDate: string;
    endDate: string;
    categories: Categories;
  }> = [
    { id: 1, dataViewId: 1, startDate: '2024-03-10', endDate: '2024-03-10', categories: { Country: 'DE' } },
    { id: 2, dataViewId: 1, startDate: '2024-03-20', endDate: '2024-03-22', categories: { Country: 'FR' } },
    { id: 3, dataViewId: 2, startDate: '2024-03-10', endDate: '2024-03-10', categories: {} },
  ];
  const comments: Array<MatchableComment & { id: number }> = [
    { id: 10, dataViewId: 1, dateFrom: '2024-03-21', dateTo: '2024-03-25', categories: {} },
    { id: 11, dataViewId: 1, dateFrom: '2024-03-01', dateTo: '2024-03-31', categories: { Country: 'DE' } },
    { id: 12, dataViewId: 1, dateFrom: '2024-03-01', dateTo: '2024-03-15' },
    { id: 13, dataViewId: 3, dateFrom: '2024-03-01', dateTo: '2024-03-31' },
  ];

  it('gives each anomaly the comments that match it, ordered by start date', () => {
    const out = attachComments(anomalies, comments);
    expect(out.map((a) => a.comments.map((c) => c.id))).toEqual([[11, 12], [10], []]);
  });

  it('keeps the anomaly fields and leaves the input untouched', () => {
    const out = attachComments(anomalies, comments);
    expect(out[0]).toMatchObject(anomalies[0]);
    expect('comments' in anomalies[0]).toBe(false);
  });

  it('gives empty lists when there are no comments', () => {
    expect(attachComments(anomalies, []).every((a) => a.comments.length === 0)).toBe(true);
  });
});
