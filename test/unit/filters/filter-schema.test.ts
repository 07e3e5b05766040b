import { describe, expect, it } from 'vitest';
import schema from '../../../schemas/filter.schema.json' with { type: 'json' };
import { toFieldErrors } from '../../../lib/shared/validation';
import { SORT_BY_VALUES, TIME_RANGE_PRESETS } from '../../../lib/filters/types';
import { schemaValidator } from './fixtures';

const fn = schemaValidator(schema).getSchema('filter')!;
const check = (body: Record<string, unknown>) => (fn(body) ? [] : toFieldErrors(fn.errors));
const paths = (body: Record<string, unknown>) => [...new Set(check(body).map((e) => e.path))];

describe('filter schema', () => {
  it('needs only a name and fills in the defaults', () => {
    const body: Record<string, unknown> = { name: 'Daily drops' };
    expect(check(body)).toEqual([]);
    expect(body).toMatchObject({
      timeRange: 'Last 7 Days',
      anomalyResult: 'Positive;Negative',
      sortBy: 'SIN',
      limit: 100,
      isAggregated: false,
      aggregationMode: 'Hierarchical',
      minCommonCategories: 1,
      splitByType: false,
      graphThreshold: 0.5,
      changePctFrom: null,
      sharePctTo: null,
    });
  });

  it('requires a non-blank name of at most 200 characters', () => {
    expect(paths({})).toEqual(['name']);
    expect(paths({ name: '  ' })).toEqual(['name']);
    expect(paths({ name: 'x'.repeat(201) })).toEqual(['name']);
    expect(paths({ name: 'x'.repeat(200) })).toEqual([]);
  });

  it('accepts every time range preset and sort value as spelled in the spec, and nothing else', () => {
    for (const timeRange of TIME_RANGE_PRESETS.filter((p) => p !== 'Custom'))
      expect(paths({ name: 'f', timeRange })).toEqual([]);
    for (const sortBy of SORT_BY_VALUES) expect(paths({ name: 'f', sortBy })).toEqual([]);
    expect(paths({ name: 'f', timeRange: 'last 7 days' })).toEqual(['timeRange']);
    expect(paths({ name: 'f', sortBy: 'Change%' })).toEqual(['sortBy']);
  });

  it('requires both dates when the time range is Custom', () => {
    expect(check({ name: 'f', timeRange: 'Custom' })).toEqual([
      { path: 'dateFrom', message: 'is required' },
      { path: 'dateTo', message: 'is required' },
    ]);
    expect(paths({ name: 'f', timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-01-31' })).toEqual(
      [],
    );
    expect(paths({ name: 'f', timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-13-01' })).toEqual([
      'dateTo',
    ]);
  });

  it('keeps limit between 1 and 10000 and minCommonCategories at least 1', () => {
    expect(paths({ name: 'f', limit: 0 })).toEqual(['limit']);
    expect(paths({ name: 'f', limit: 10001 })).toEqual(['limit']);
    expect(paths({ name: 'f', limit: 2.5 })).toEqual(['limit']);
    expect(paths({ name: 'f', minCommonCategories: 0 })).toEqual(['minCommonCategories']);
  });

  it('accepts the result signs alone or together, and the two aggregation modes', () => {
    for (const anomalyResult of ['Positive', 'Negative', 'Positive;Negative'])
      expect(paths({ name: 'f', anomalyResult })).toEqual([]);
    expect(paths({ name: 'f', anomalyResult: 'Both' })).toEqual(['anomalyResult']);
    expect(paths({ name: 'f', aggregationMode: 'Graph' })).toEqual([]);
    expect(paths({ name: 'f', aggregationMode: 'Flat' })).toEqual(['aggregationMode']);
  });

  it('takes numbers or null as bounds and a graph threshold between 0 and 1', () => {
    expect(paths({ name: 'f', changePctFrom: -5.5, changePctTo: null })).toEqual([]);
    expect(paths({ name: 'f', changeFrom: '5' })).toEqual(['changeFrom']);
    expect(paths({ name: 'f', graphThreshold: -0.1 })).toEqual(['graphThreshold']);
    expect(paths({ name: 'f', graphThreshold: 1.5 })).toEqual(['graphThreshold']);
  });

  it('limits instructions to 10000 characters', () => {
    expect(paths({ name: 'f', instructions: 'x'.repeat(10000) })).toEqual([]);
    expect(paths({ name: 'f', instructions: 'x'.repeat(10001) })).toEqual(['instructions']);
  });

  it('accepts the read-only fields of a GET on PUT and refuses unknown fields', () => {
    const fromGet = {
      name: 'f',
      id: 7,
      ownerId: 1,
      ownerEmail: 'ann@example.com',
      pinned: true,
      isOwner: true,
      sharedWith: [2, 3],
      summary: { text: 'All quiet.', generatedAt: '2024-03-01T00:00:00Z' },
    };
    expect(check(fromGet)).toEqual([]);
    expect(check({ name: 'f', colour: 'red' })).toEqual([
      { path: 'colour', message: 'is not a known field' },
    ]);
    expect(paths({ name: 'f', id: 0 })).toEqual(['id']);
  });
});
