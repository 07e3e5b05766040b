import { describe, expect, it } from 'vitest';
import {
  parseAnomalyResult,
  parseAnomalyTypes,
  parseCategoriesFilter,
  parseDataViews,
  parseFilterSettings,
  parseGraphWeights,
  writableFilterFields,
} from '../../../lib/filters/parse';
import { ValidationError } from '../../../lib/shared/errors';

/** The field errors a call throws, [] when it does not throw. */
function errorsOf(fn: () => unknown): Array<{ path: string; message: string }> {
  try {
    fn();
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).errors ?? [];
  }
}

describe('dataViews', () => {
  it('reads "<domain> / <name>" entries separated by ";", trimming and dropping duplicates and empty entries', () => {
    expect(parseDataViews(' sales / orders ; finance/ledger;;sales / orders;')).toEqual([
      { domain: 'sales', name: 'orders' },
      { domain: 'finance', name: 'ledger' },
    ]);
  });

  it('reads an empty string as no data views', () => {
    expect(parseDataViews('')).toEqual([]);
    expect(parseDataViews(null)).toEqual([]);
  });

  it('refuses an entry without a domain or a name', () => {
    expect(errorsOf(() => parseDataViews('orders;sales / ;/ x'))).toEqual([
      { path: 'dataViews', message: "entry 'orders' is not of the form '<domain> / <name>'" },
      { path: 'dataViews', message: "entry 'sales /' is not of the form '<domain> / <name>'" },
      { path: 'dataViews', message: "entry '/ x' is not of the form '<domain> / <name>'" },
    ]);
  });
});

describe('anomalyTypes', () => {
  it('reads type codes, dropping duplicates regardless of case', () => {
    expect(parseAnomalyTypes('DOD; wow ;Spike;dod')).toEqual(['DOD', 'wow', 'Spike']);
  });

  it('refuses an entry that is not a code', () => {
    expect(errorsOf(() => parseAnomalyTypes('DOD;day over day'))[0].message).toBe(
      "entry 'day over day' is not a type code (letters, digits, '_' or '-')",
    );
  });
});

describe('anomalyResult', () => {
  it('reads one or both signs in a fixed order', () => {
    expect(parseAnomalyResult('Positive')).toEqual(['Positive']);
    expect(parseAnomalyResult('Negative;Positive')).toEqual(['Positive', 'Negative']);
  });

  it('refuses another word', () => {
    expect(errorsOf(() => parseAnomalyResult('Positive;Neutral'))[0].path).toBe('anomalyResult');
  });
});

describe('categoriesFilter', () => {
  it('reads Category=value constraints; a value may hold "=" and spaces inside', () => {
    expect(parseCategoriesFilter('Country=DE; Product = Running shoes ;Formula=a=b')).toEqual({
      Country: 'DE',
      Product: 'Running shoes',
      Formula: 'a=b',
    });
  });

  it("says which entry lacks '='", () => {
    expect(errorsOf(() => parseCategoriesFilter('Country;Product=X'))).toEqual([
      { path: 'categoriesFilter', message: "entry 'Country' lacks '='" },
    ]);
  });

  it('refuses an empty value, a name that is not an identifier and two values for one category', () => {
    const messages = errorsOf(() => parseCategoriesFilter('Country=;Sales Region=N;Product=A;Product=B')).map(
      (e) => e.message,
    );
    expect(messages).toEqual([
      "entry 'Country=' has no value after '='",
      "entry 'Sales Region=N': 'Sales Region' is not a category name",
      "category 'Product' is constrained to two values ('A', 'B')",
    ]);
  });
});

describe('graphWeights', () => {
  it('reads Category=weight pairs as numbers', () => {
    expect(parseGraphWeights('Country=2; Product=0.5;Channel=0;City=1e-1')).toEqual({
      Country: 2,
      Product: 0.5,
      Channel: 0,
      City: 0.1,
    });
  });

  it('refuses a weight that is not a number or is negative', () => {
    expect(errorsOf(() => parseGraphWeights('Country=heavy;Product=-1;Channel=;City=0x10'))).toEqual([
      { path: 'graphWeights', message: "entry 'Channel=' has no value after '='" },
      { path: 'graphWeights', message: "weight of 'Country' is not a number: 'heavy'" },
      { path: 'graphWeights', message: "weight of 'Product' must not be negative, got -1" },
      { path: 'graphWeights', message: "weight of 'City' is not a number: '0x10'" },
    ]);
  });
});

describe('parseFilterSettings', () => {
  it('turns a filter body into settings', () => {
    const s = parseFilterSettings({
      name: 'Big drops',
      timeRange: 'Last 7 Days',
      dataViews: 'sales / orders',
      anomalyTypes: 'DOD;WOW',
      anomalyResult: 'Negative',
      categoriesFilter: 'Country=DE',
      sortBy: 'Change %',
      limit: 20,
      isAggregated: true,
      aggregationMode: 'Graph',
      graphThreshold: 0.6,
      graphWeights: 'Country=2',
      changePctFrom: 10,
      changePctTo: null,
    });
    expect(s).toMatchObject({
      timeRange: 'Last 7 Days',
      dataViews: [{ domain: 'sales', name: 'orders' }],
      anomalyTypes: ['DOD', 'WOW'],
      anomalyResults: ['Negative'],
      categories: { Country: 'DE' },
      sortBy: 'Change %',
      limit: 20,
      isAggregated: true,
      aggregationMode: 'Graph',
      graphThreshold: 0.6,
      graphWeights: { Country: 2 },
      changePct: { from: 10, to: null },
      recurrence: { from: null, to: null },
    });
  });

  it('lists every field at fault in one error', () => {
    const paths = errorsOf(() =>
      parseFilterSettings({
        timeRange: 'Custom',
        dateFrom: '2024-03-01',
        categoriesFilter: 'Country',
        graphWeights: 'Country=x',
        sharePctFrom: 50,
        sharePctTo: 10,
      }),
    ).map((e) => e.path);
    expect(paths).toEqual(['dateTo', 'categoriesFilter', 'sharePctTo', 'graphWeights']);
  });

  it('refuses a custom window that ends before it starts', () => {
    expect(
      errorsOf(() =>
        parseFilterSettings({ timeRange: 'Custom', dateFrom: '2024-03-02', dateTo: '2024-03-01' }),
      ),
    ).toEqual([{ path: 'dateTo', message: 'must not be before dateFrom (2024-03-02)' }]);
  });

  it('allows equal numeric bounds', () => {
    expect(parseFilterSettings({ recurrenceFrom: 2, recurrenceTo: 2 }).recurrence).toEqual({
      from: 2,
      to: 2,
    });
  });
});

describe('writableFilterFields', () => {
  it('drops the read-only fields a GET returned', () => {
    const body = {
      name: 'x',
      limit: 5,
      id: 3,
      ownerId: 1,
      ownerEmail: 'a@b.c',
      pinned: true,
      isOwner: true,
      sharedWith: [],
      summary: null,
    };
    expect(writableFilterFields(body)).toEqual({ name: 'x', limit: 5 });
  });
});
