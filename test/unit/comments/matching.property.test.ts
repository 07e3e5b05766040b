import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attachComments, commentMatches } from '../../../lib/comments/matching';

const DAY = 86_400_000;
const dateArb = fc
  .integer({ min: 0, max: 60 })
  .map((d) => new Date(Date.UTC(2024, 1, 20) + d * DAY).toISOString().slice(0, 10));
const windowArb = fc.tuple(dateArb, dateArb).map(([a, b]) => (a <= b ? [a, b] : [b, a]) as [string, string]);
const names = ['Country', 'Product', 'Channel'];
const valueArb = fc.option(fc.constantFrom('A', 'B', 'C'), { nil: null });
const categoriesArb = fc.record({ Country: valueArb, Product: valueArb, Channel: valueArb });
const anomalyArb = fc
  .record({
    dataViewId: fc.constantFrom(1, 2),
    window: windowArb,
    categories: categoriesArb,
  })
  .map(({ dataViewId, window, categories }) => ({
    dataViewId,
    startDate: window[0],
    endDate: window[1],
    categories,
  }));
const commentArb = fc
  .record({
    dataViewId: fc.constantFrom(1, 2),
    window: windowArb,
    categories: fc.record({ Country: valueArb, Product: valueArb, Channel: valueArb }, { requiredKeys: [] }),
  })
  .map(({ dataViewId, window, categories }) => ({
    dataViewId,
    dateFrom: window[0],
    dateTo: window[1],
    categories,
  }));

const overlaps = (c: { dateFrom: string; dateTo: string }, a: { startDate: string; endDate: string }) =>
  c.dateFrom <= a.endDate && a.startDate <= c.dateTo;

describe('comment matching properties', () => {
  it('a comment with every category wildcarded matches exactly the same-view anomalies whose dates overlap', () => {
    fc.assert(
      fc.property(commentArb, anomalyArb, (c, a) => {
        const wild = { ...c, categories: { Country: null, Product: null } };
        expect(commentMatches(wild, a)).toBe(c.dataViewId === a.dataViewId && overlaps(c, a));
      }),
    );
  });

  it('adding a constraint never makes a comment match more anomalies', () => {
    fc.assert(
      fc.property(
        commentArb,
        anomalyArb,
        fc.constantFrom(...names),
        fc.constantFrom('A', 'B'),
        (c, a, name, value) => {
          fc.pre(c.categories[name as keyof typeof c.categories] == null); // a new constraint, not a changed one
          const narrower = { ...c, categories: { ...c.categories, [name]: value } };
          if (commentMatches(narrower, a)) expect(commentMatches(c, a)).toBe(true);
        },
      ),
    );
  });

  it('a comment built from an anomaly’s own view, dates and categories always matches it', () => {
    fc.assert(
      fc.property(anomalyArb, (a) => {
        const c = {
          dataViewId: a.dataViewId,
          dateFrom: a.startDate,
          dateTo: a.endDate,
          categories: a.categories,
        };
        expect(commentMatches(c, a)).toBe(true);
      }),
    );
  });

  it('disjoint date windows never match', () => {
    fc.assert(
      fc.property(commentArb, anomalyArb, (c, a) => {
        if (!overlaps(c, a)) expect(commentMatches(c, a)).toBe(false);
      }),
    );
  });

  it('attachComments agrees with commentMatches on every pair', () => {
    fc.assert(
      fc.property(
        fc.array(anomalyArb, { maxLength: 15 }),
        fc.array(commentArb, { maxLength: 15 }),
        (as, cs) => {
          const out = attachComments(as, cs);
          out.forEach((a, i) => {
            const expected = cs.filter((c) => commentMatches(c, as[i]));
            expect(new Set(a.comments)).toEqual(new Set(expected));
            expect(a.comments).toHaveLength(expected.length);
          });
        },
      ),
    );
  });
});
