import { describe, expect, it } from 'vitest';
import { badDirectionsOf, newsOf, welcomeMoves } from '../../../lib/filters/news';
import { applyFilter } from '../../../lib/filters/select';
import type { AnomalyRecord } from '../../../lib/filters/types';

describe('good and bad news of a move', () => {
  const bad = badDirectionsOf({
    value: { badWhen: 'fall' },
    count: { badWhen: 'rise' },
    ratio: { badWhen: 'both' },
  });

  it('keeps only the measures with one bad direction', () => {
    expect(bad).toEqual({ value: 'fall', count: 'rise' });
    expect(badDirectionsOf(undefined)).toEqual({});
  });

  it('a fall of revenue is bad news, its rise good; a rise of complaints is bad news; both ways: no news', () => {
    expect(newsOf(bad, 'value', 'Negative')).toBe('bad');
    expect(newsOf(bad, 'value', 'Positive')).toBe('good');
    expect(newsOf(bad, 'count', 'Positive')).toBe('bad');
    expect(newsOf(bad, 'count', 'Negative')).toBe('good');
    expect(newsOf(bad, 'ratio', 'Negative')).toBeUndefined();
  });

  it('names the welcome moves, and a filter with hideWelcome leaves them out', () => {
    expect(welcomeMoves(bad)).toEqual([
      { measure: 'value', result: 'Positive' },
      { measure: 'count', result: 'Negative' },
    ]);
    const rec = (id: number, news?: 'good' | 'bad') =>
      ({
        id,
        type: 'DOD',
        result: 'Positive',
        measure: 'value',
        categories: {},
        ...(news ? { news } : {}),
      }) as unknown as AnomalyRecord;
    const all = [rec(1, 'good'), rec(2, 'bad'), rec(3)];
    expect(applyFilter(all, { hideWelcome: true }).map((a) => a.id)).toEqual([2, 3]);
    expect(applyFilter(all, { hideWelcome: false }).map((a) => a.id)).toEqual([1, 2, 3]);
  });
});
