import { describe, expect, it } from 'vitest';
import { checkCommentRules, checkRouteId, commentRuleErrors } from '../../../lib/comments/rules';
import { ValidationError } from '../../../lib/shared/errors';

const categories = ['Country', 'Product'];

describe('comment rules', () => {
  it('accepts a window of one day and known categories', () => {
    expect(
      commentRuleErrors(
        { dateFrom: '2024-03-01', dateTo: '2024-03-01', categories: { Country: 'DE', Product: null } },
        categories,
      ),
    ).toEqual([]);
  });

  it('refuses a window that ends before it starts, at dateTo', () => {
    expect(commentRuleErrors({ dateFrom: '2024-03-02', dateTo: '2024-03-01' }, categories)).toEqual([
      { path: 'dateTo', message: 'must not be before dateFrom (2024-03-02)' },
    ]);
  });

  it('refuses a category the data view does not have, at categories.<name>', () => {
    const errors = commentRuleErrors(
      { dateFrom: '2024-03-01', dateTo: '2024-03-02', categories: { Country: 'DE', Region: 'North' } },
      categories,
    );
    expect(errors).toHaveLength(1);
    expect(errors[0].path).toBe('categories.Region');
    expect(errors[0].message).toContain('Country, Product');
  });

  it('throws one ValidationError listing every broken rule', () => {
    try {
      checkCommentRules(
        { dateFrom: '2024-03-02', dateTo: '2024-03-01', categories: { Region: null } },
        categories,
      );
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).errors?.map((x) => x.path)).toEqual(['dateTo', 'categories.Region']);
    }
  });

  it('does not throw for a valid comment', () => {
    expect(() =>
      checkCommentRules({ dateFrom: '2024-03-01', dateTo: '2024-03-02' }, categories),
    ).not.toThrow();
  });
});

describe('route id against body id', () => {
  it('accepts a body without id or with the same id', () => {
    expect(() => checkRouteId(5, undefined)).not.toThrow();
    expect(() => checkRouteId(5, null)).not.toThrow();
    expect(() => checkRouteId(5, 5)).not.toThrow();
  });

  it('refuses a body id that differs from the route id, at path id', () => {
    expect(() => checkRouteId(5, 6)).toThrow(ValidationError);
    try {
      checkRouteId(5, 6);
    } catch (e) {
      expect((e as ValidationError).errors).toEqual([
        { path: 'id', message: 'must equal the id in the path (5), got 6' },
      ]);
    }
  });
});
