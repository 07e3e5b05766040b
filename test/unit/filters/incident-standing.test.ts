/**
 * An incident row's standing (docs/filters.md, "Incidents"): Sort by SIN orders incident rows by their SIN
 * weighed by the incident's evidence — √(series × detectors) that saw it in the value or the count against
 * their own history — so that a ratio-only record or a lone echo does not outrank an event every detector
 * saw; the row's SIN stays the head's.
 */
import { describe, expect, it } from 'vitest';
import { incidentKey } from '../../../lib/filters/incidents';
import { parseFilterSettings } from '../../../lib/filters/parse';
import { runFilter } from '../../../lib/filters/run';
import { evidenceOf } from '../../../lib/filters/standing';
import type { AnomalyRecord } from '../../../lib/filters/types';
import type { Incident } from '../../../lib/incidents/types';
import { anomaly, ids } from './fixtures';

const total = { channel: null, device: null };

function incident(id: number, head: AnomalyRecord): Incident {
  return {
    id,
    dataViewId: 1,
    result: head.result,
    measures: [head.measure],
    types: [head.type],
    startDate: head.startDate,
    endDate: head.endDate,
    size: 1,
    broad: {
      seriesId: head.seriesId,
      categories: total,
      actual: 120,
      expected: 100,
      change: 20,
      changePct: 20,
    },
    rootCauses: [],
    head: { seriesId: head.seriesId, measure: head.measure, type: head.type, startDate: head.startDate },
    firstSeenAt: '2024-03-11T06:00:00.000Z',
    firstSeenJobId: 1,
  };
}

// Incident 1: a spike of one channel that DOD, DT and Spike saw on the channel and two of its devices.
const spike = [
  anomaly({ id: 1, seriesId: 10, type: 'DOD', sin: 1.2, incidentId: 1 }),
  anomaly({ id: 2, seriesId: 10, type: 'DT', sin: 1.1, incidentId: 1 }),
  anomaly({ id: 3, seriesId: 11, type: 'Spike', sin: 0.6, incidentId: 1 }),
  anomaly({ id: 4, seriesId: 12, type: 'DT', measure: 'count', sin: 0.5, incidentId: 1 }),
  // Its sibling's echo and its ratio: no evidence of their own.
  anomaly({ id: 5, seriesId: 13, type: 'Peer', sin: 0.9, incidentId: 1, result: 'Negative' }),
];
// Incident 2: the ratio (value per event) of a small series, the strongest of a group of noise.
const ratio = anomaly({ id: 6, seriesId: 20, type: 'Spike', measure: 'ratio', sin: 2.4, incidentId: 2 });
// Incident 3: a lone Peer record beside another branch.
const peer = anomaly({ id: 7, seriesId: 30, type: 'Peer', sin: 2.2, incidentId: 3 });
// Incident 4: one detector on one series.
const blip = anomaly({ id: 8, seriesId: 40, type: 'WOW', sin: 1.5, incidentId: 4 });
const records = [...spike, ratio, peer, blip];
const stored = new Map([
  [incidentKey(1, 1), incident(1, spike[0])],
  [incidentKey(1, 2), incident(2, ratio)],
  [incidentKey(1, 3), incident(3, peer)],
  [incidentKey(1, 4), incident(4, blip)],
]);

describe('the standing of an incident row', () => {
  it('counts the series and detectors that saw the event in the value or the count, on their own', () => {
    // Series 10, 11, 12; detectors DOD, DT, Spike: √9. The Peer record of the other direction is left out.
    expect(evidenceOf(spike, 'Positive')).toBe(3);
    expect(evidenceOf([ratio], 'Positive')).toBe(0.25);
    expect(evidenceOf([peer], 'Positive')).toBe(0.25);
    expect(evidenceOf([blip], 'Positive')).toBe(1);
  });

  it('orders incident rows by it under Sort by SIN, each row keeping its head’s SIN', () => {
    const settings = parseFilterSettings({ name: 'f', sortBy: 'SIN', limit: 10, incidents: true });
    const rows = runFilter(records, settings, stored).anomalies;
    expect(ids(rows)).toEqual([1, 8, 6, 7]);
    expect(rows.map((r) => r.sin)).toEqual([1.2, 1.5, 2.4, 2.2]);
    const standing = rows.map((r) => Math.round((r.incident?.standing ?? Number.NaN) * 1e9) / 1e9);
    expect(standing).toEqual([3.6, 1.5, 0.6, 0.55]);
  });

  it('leaves records ranked by their SIN when incidents are off', () => {
    const settings = parseFilterSettings({ name: 'f', sortBy: 'SIN', limit: 3 });
    expect(ids(runFilter(records, settings, stored).anomalies)).toEqual([6, 7, 8]);
  });
});
