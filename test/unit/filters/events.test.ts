import { describe, expect, it } from 'vitest';
import { mergeEvents, withoutMembers } from '../../../lib/filters/events';
import { parseFilterSettings, parseMeasures } from '../../../lib/filters/parse';
import { runFilter } from '../../../lib/filters/run';
import { applyFilter } from '../../../lib/filters/select';
import filterSchema from '../../../schemas/filter.schema.json' with { type: 'json' };
import { anomaly, ids, schemaValidator } from './fixtures';

/** One series (10) with DT, Spike and Cardinality on overlapping days, a later DOD, and other series. */
const day = (d: number) => `2024-03-${String(d).padStart(2, '0')}`;
const rows = [
  anomaly({ id: 1, seriesId: 10, type: 'DT', startDate: day(3), endDate: day(4), duration: 2, sin: 2 }),
  anomaly({ id: 2, seriesId: 10, type: 'Spike', startDate: day(4), endDate: day(4), sin: 3, changePct: 90 }),
  // Starts on the 5th, after the event's running end (the 4th): an event of its own.
  anomaly({ id: 3, seriesId: 10, type: 'DOD', startDate: day(5), endDate: day(5), sin: 1 }),
  // Chained: 6..8 overlaps 8..9 overlaps 9..9.
  anomaly({ id: 4, seriesId: 10, type: 'WOW', startDate: day(6), endDate: day(8), duration: 3, sin: 1.5 }),
  anomaly({ id: 5, seriesId: 10, type: 'MOM', startDate: day(8), endDate: day(9), duration: 2, sin: 0.5 }),
  anomaly({ id: 6, seriesId: 10, type: 'Cardinality', startDate: day(9), endDate: day(9), sin: 0.7 }),
  // Same series and days, other sign or other measure or other view: never merged with the above.
  anomaly({
    id: 7,
    seriesId: 10,
    type: 'DOD',
    startDate: day(4),
    endDate: day(4),
    result: 'Negative',
    sin: 9,
  }),
  anomaly({ id: 8, seriesId: 10, type: 'DOD', startDate: day(4), endDate: day(4), measure: 'count', sin: 8 }),
  anomaly({ id: 9, seriesId: 10, dataViewId: 2, type: 'DOD', startDate: day(4), endDate: day(4), sin: 7 }),
  anomaly({ id: 10, seriesId: 11, type: 'DOD', startDate: day(4), endDate: day(4), sin: 6 }),
];

describe('events across detectors', () => {
  it('merges records of one series, measure and result with overlapping dates, also through a chain', () => {
    const events = mergeEvents(rows);
    const byHead = new Map(events.map((e) => [e.id, e]));
    expect(events).toHaveLength(7);
    // The strongest (highest SIN) record represents the event with its own figures.
    expect(byHead.get(2)).toMatchObject({ type: 'Spike', types: ['Spike', 'DT'], sin: 3, changePct: 90 });
    expect(ids(byHead.get(2)?.members ?? [])).toEqual([2, 1]);
    expect(byHead.get(3)).toMatchObject({ types: ['DOD'] });
    expect(byHead.get(4)).toMatchObject({ types: ['WOW', 'Cardinality', 'MOM'] });
    expect(ids(byHead.get(4)?.members ?? [])).toEqual([4, 6, 5]);
    for (const lone of [7, 8, 9, 10]) expect(byHead.get(lone)?.types).toEqual([byHead.get(lone)?.type]);
  });

  it('ranks, cuts and aggregates events; the Top N holds each event once', () => {
    const base = { name: 'f', sortBy: 'SIN' as const, limit: 3 };
    const plain = runFilter(rows, parseFilterSettings(base));
    expect(ids(plain.anomalies)).toEqual([7, 8, 9]);
    const merged = runFilter(rows, parseFilterSettings({ ...base, limit: 10, mergeEvents: true }));
    expect(ids(merged.anomalies)).toEqual([7, 8, 9, 10, 2, 4, 3]);
    // Without mergeEvents every record stands alone, with its own type and no `types`.
    expect(runFilter(rows, parseFilterSettings({ ...base, limit: 10 })).anomalies.some((r) => r.types)).toBe(
      false,
    );
    const aggregated = runFilter(
      rows,
      parseFilterSettings({ ...base, limit: 10, mergeEvents: true, isAggregated: true }),
    );
    const total = (aggregated.aggregates ?? []).reduce((n, g) => n + g.n, 0);
    expect(total).toBe(7);
    // Aggregates never mix measures; an event member brings all its types.
    for (const g of aggregated.aggregates ?? [])
      expect(new Set(g.members.map((m) => m.measure)).size).toBe(1);
    const withSpike = (aggregated.aggregates ?? []).find((g) => g.members.some((m) => m.id === 2));
    expect(withSpike?.types).toEqual(expect.arrayContaining(['DT', 'Spike']));
  });

  it('drops members on request', () => {
    const events = withoutMembers(mergeEvents(rows));
    expect(events.every((e) => e.members === undefined && Array.isArray(e.types))).toBe(true);
  });
});

describe('measures', () => {
  it('parses value, count and ratio (case-insensitive), empty = all, with a field error otherwise', () => {
    expect(parseMeasures('value')).toEqual(['value']);
    expect(parseMeasures('Count;VALUE')).toEqual(['value', 'count']);
    expect(parseMeasures('ratio;Value')).toEqual(['value', 'ratio']);
    expect(parseMeasures('')).toEqual(['value', 'count', 'ratio']);
    expect(() => parseMeasures('value;amount')).toThrow(
      /measures entry 'amount' is not 'value', 'count' or 'ratio'/,
    );
    expect(parseFilterSettings({ name: 'f' })).toMatchObject({
      measures: ['value', 'count', 'ratio'],
      mergeEvents: false,
    });
  });

  it('selects the anomalies of the chosen measures', () => {
    expect(ids(applyFilter(rows, { measures: ['count'] }))).toEqual([8]);
    expect(applyFilter(rows, { measures: ['value'] })).toHaveLength(9);
    expect(applyFilter(rows, { measures: ['value', 'count'] })).toHaveLength(10);
  });

  it('is in the filter schema with its defaults; mergeEvents is off when not given', () => {
    const ajv = schemaValidator(filterSchema);
    const body: Record<string, unknown> = { name: 'f' };
    expect(ajv.validate('filter', body)).toBe(true);
    expect(body).toMatchObject({ measures: 'value;count;ratio', mergeEvents: false });
    expect(ajv.validate('filter', { name: 'f', mergeEvents: 'yes' })).toBe(false);
  });
});
