import { describe, expect, it } from 'vitest';
import { incidentKey, mergeIncidents } from '../../../lib/filters/incidents';
import { parseFilterSettings } from '../../../lib/filters/parse';
import { runFilter } from '../../../lib/filters/run';
import type { Incident } from '../../../lib/incidents/types';
import filterSchema from '../../../schemas/filter.schema.json' with { type: 'json' };
import { anomaly, ids, schemaValidator } from './fixtures';

const day = (d: number) => `2024-03-${String(d).padStart(2, '0')}`;
const total = { region: null, city: null, channel: null };
const milanApp = { region: 'South', city: 'Milan', channel: 'app' };

function incident(id: number, over: Partial<Incident> = {}): Incident {
  return {
    id,
    dataViewId: 1,
    result: 'Negative',
    measures: ['value'],
    types: ['DT', 'Gap'],
    startDate: day(3),
    endDate: day(6),
    size: 3,
    broad: { seriesId: 1, categories: total, actual: 900, expected: 1000, change: -100, changePct: -10 },
    rootCauses: [
      {
        seriesId: 7,
        categories: milanApp,
        actual: 0,
        expected: 95,
        change: -95,
        changePct: -100,
        explainsPct: 95,
        broad: false,
      },
    ],
    head: { seriesId: 1, measure: 'value', type: 'DT', startDate: day(3) },
    firstSeenAt: '2024-03-07T06:00:00.000Z',
    firstSeenJobId: 4,
    ...over,
  };
}

// Incident 5: the total's DT (the head), the leaf's Gap and the leaf's count Gap; incident 6: one record of another series.
const rows = [
  anomaly({
    id: 1,
    seriesId: 1,
    type: 'DT',
    startDate: day(3),
    endDate: day(4),
    sin: 2.5,
    categories: total,
    result: 'Negative',
    incidentId: 5,
  }),
  anomaly({
    id: 2,
    seriesId: 7,
    type: 'Gap',
    startDate: day(3),
    endDate: day(6),
    sin: 1.1,
    categories: milanApp,
    result: 'Negative',
    incidentId: 5,
  }),
  anomaly({
    id: 3,
    seriesId: 7,
    type: 'Gap',
    measure: 'count',
    startDate: day(3),
    endDate: day(6),
    sin: 1.2,
    categories: milanApp,
    result: 'Negative',
    incidentId: 5,
  }),
  anomaly({
    id: 4,
    seriesId: 9,
    type: 'Spike',
    startDate: day(9),
    endDate: day(9),
    sin: 1.8,
    result: 'Positive',
    incidentId: 6,
  }),
  // Detected before incidents existed: an event of its own.
  anomaly({
    id: 5,
    seriesId: 9,
    type: 'DOD',
    startDate: day(20),
    endDate: day(20),
    sin: 0.4,
    incidentId: null,
  }),
];
const stored = new Map([
  [incidentKey(1, 5), incident(5)],
  [
    incidentKey(1, 6),
    incident(6, {
      result: 'Positive',
      types: ['Spike'],
      size: 1,
      rootCauses: [],
      head: { seriesId: 9, measure: 'value', type: 'Spike', startDate: day(9) },
    }),
  ],
]);

describe('one row per incident', () => {
  it('shows the head’s figures, named by the root cause, with the incident and its members', () => {
    const out = mergeIncidents(rows, stored);
    expect(out).toHaveLength(3);
    const row = out.find((r) => r.incidentId === 5);
    expect(row).toMatchObject({ id: 1, type: 'DT', sin: 2.5, categories: milanApp, types: ['DT', 'Gap'] });
    expect(row?.incident).toMatchObject({ id: 5, size: 3, broad: { categories: total, changePct: -10 } });
    expect(row?.incident?.rootCauses[0]).toMatchObject({
      categories: milanApp,
      explainsPct: 95,
      broad: false,
    });
    expect(ids(row?.members ?? [])).toEqual([1, 3, 2]);
  });

  it('takes the strongest selected member when the filter left the head out', () => {
    const out = mergeIncidents(
      rows.filter((r) => r.id !== 1),
      stored,
    );
    expect(out.find((r) => r.incidentId === 5)).toMatchObject({
      id: 3,
      measure: 'count',
      categories: milanApp,
    });
  });

  it('never lets an echo of the other direction stand for the incident', () => {
    // A sibling that looked low next to incident 6's spike: a Peer record, Negative, in a Positive incident.
    const echo = anomaly({
      id: 6,
      seriesId: 10,
      type: 'Peer',
      startDate: day(9),
      endDate: day(9),
      sin: 3,
      result: 'Negative',
      incidentId: 6,
    });
    const all = mergeIncidents([...rows, echo], stored).find((r) => r.incidentId === 6);
    expect(all).toMatchObject({ id: 4, result: 'Positive' });
    expect(ids(all?.members ?? [])).toEqual([6, 4]);
    // A filter of drops that selected only the echo: no row for the rise.
    const drops = mergeIncidents(
      [...rows, echo].filter((r) => r.result === 'Negative'),
      stored,
    );
    expect(drops.find((r) => r.incidentId === 6)).toBeUndefined();
    expect(drops.find((r) => r.incidentId === 5)).toBeDefined();
  });

  it('keeps records without a stored incident as events of their own', () => {
    const out = mergeIncidents(rows, stored);
    expect(out.find((r) => r.id === 5)).toMatchObject({ types: ['DOD'] });
    expect(out.find((r) => r.id === 5)?.incident).toBeUndefined();
  });

  it('ranks incidents like records and lets the setting win over mergeEvents', () => {
    const settings = parseFilterSettings({
      name: 'f',
      sortBy: 'SIN',
      limit: 10,
      incidents: true,
      mergeEvents: true,
    });
    expect(ids(runFilter(rows, settings, stored).anomalies)).toEqual([1, 4, 5]);
    expect(
      ids(runFilter(rows, parseFilterSettings({ name: 'f', sortBy: 'SIN', limit: 10 }), stored).anomalies),
    ).toEqual([1, 4, 3, 2, 5]);
  });

  it('is a boolean setting of the filter schema, off when a body omits it', () => {
    const ajv = schemaValidator(filterSchema);
    const body: Record<string, unknown> = { name: 'f' };
    expect(ajv.validate('filter', body)).toBe(true);
    expect(body.incidents).toBe(false);
    expect(ajv.validate('filter', { name: 'f', incidents: 'yes' })).toBe(false);
  });
});
