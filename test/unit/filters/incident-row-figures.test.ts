import { describe, expect, it } from 'vitest';
import { explainedTogether, explainsOf } from '../../../lib/filters/explains';
import { incidentKey, mergeIncidents } from '../../../lib/filters/incidents';
import type { Incident } from '../../../lib/incidents/types';
import { anomaly } from './fixtures';

const czechia = { country: 'Czechia', city: null, channel: null };
const pragueWeb = { country: 'Czechia', city: 'Prague', channel: 'web' };

// Czechia rose by 30 % on two days because Prague web more than tripled (issue 41's example, over 2 days).
const incident: Incident = {
  id: 18,
  dataViewId: 1,
  result: 'Positive',
  measures: ['value'],
  types: ['Spike'],
  startDate: '2026-12-03',
  endDate: '2026-12-04',
  size: 2,
  broad: {
    seriesId: 1,
    categories: czechia,
    actual: 64_469.1,
    expected: 49_752.06,
    change: 14_717.04,
    changePct: 29.58,
  },
  rootCauses: [
    {
      seriesId: 7,
      categories: pragueWeb,
      actual: 22_544.84,
      expected: 7_011.62,
      change: 15_533.22,
      changePct: 221.53,
      explainsPct: 105.55,
      broad: false,
    },
  ],
  head: { seriesId: 1, measure: 'value', type: 'Spike', startDate: '2026-12-03' },
  firstSeenAt: '2026-12-05T06:00:00.000Z',
  firstSeenJobId: 3,
};
const head = anomaly({
  id: 1,
  seriesId: 1,
  type: 'Spike',
  startDate: '2026-12-03',
  endDate: '2026-12-04',
  duration: 2,
  actualValue: 32_234.55,
  predictedValue: 24_876.03,
  change: 7_358.52,
  changePct: 29.58,
  changeCum: 14_717.04,
  sharePct: 20,
  recurrence: 4,
  sin: 3.2,
  categories: czechia,
  incidentId: 18,
});
const leaf = anomaly({
  id: 2,
  seriesId: 7,
  type: 'Spike',
  startDate: '2026-12-03',
  endDate: '2026-12-04',
  duration: 2,
  sin: 0.4,
  recurrence: 1,
  categories: pragueWeb,
  incidentId: 18,
});
const stored = new Map([[incidentKey(1, 18), incident]]);

describe("an incident row's figures are its root cause's", () => {
  it('shows the cause per day over the head window, its change % and cum, keeping the head’s SIN', () => {
    const [row] = mergeIncidents([head, leaf], stored);
    expect(row).toMatchObject({ id: 1, seriesId: 1, sin: 3.2, categories: pragueWeb, recurrence: 1 });
    expect(row.actualValue).toBeCloseTo(11_272.42, 2);
    expect(row.predictedValue).toBeCloseTo(3_505.81, 2);
    expect(row.change).toBeCloseTo(7_766.61, 2);
    expect(row.changePct).toBeCloseTo(221.53, 2);
    expect(row.changeCum).toBeCloseTo(15_533.22, 2);
    // The broad series is the context: its own figures, unchanged.
    expect(row.incident?.broad).toMatchObject({ seriesId: 1, categories: czechia, changePct: 29.58 });
    expect(row.incident?.rootCauses[0]).toMatchObject({ seriesId: 7, explainsPct: 100 });
    expect(row.incident?.rootCauses[0].explainsNote).toMatch(/^a rise against a fall of the rest: 106 %/);
  });

  it('keeps its own record’s figures and name when it stands on another measure than the head', () => {
    const count = anomaly({ ...head, id: 3, measure: 'count', actualValue: 500, categories: czechia });
    const [row] = mergeIncidents([count], stored);
    expect(row).toMatchObject({ id: 3, actualValue: 500, categories: czechia });
  });
});

describe('explainsPct is within 0–100 or says why not', () => {
  it('passes a plain share through without a note', () => {
    expect(explainsOf({ change: 80, explainsPct: 80 }, { change: 100 })).toEqual({ explainsPct: 80 });
  });
  it('holds a cause larger than the broad change at 100 with the rest’s other way named', () => {
    const x = explainsOf({ change: -2035, explainsPct: 2035.26 }, { change: -100 });
    expect(x.explainsPct).toBe(100);
    expect(x.explainsNote).toBe("a fall against a rise of the rest: 2,035 % of the broad series' change");
  });
  it('holds a cause against the broad change at 0', () => {
    const x = explainsOf({ change: -40, explainsPct: -40 }, { change: 100 });
    expect(x).toEqual({
      explainsPct: 0,
      explainsNote: 'a fall against a rise of the broad series: -40 % of its change',
    });
  });
  it('says so when the broad series did not change', () => {
    expect(explainsOf({ change: 5, explainsPct: 0 }, { change: 0 }).explainsNote).toMatch(/did not change/);
  });
  it('sums several causes to at most 100', () => {
    expect(explainedTogether([{ explainsPct: 80 }, { explainsPct: 70 }])).toBe(100);
  });
});
