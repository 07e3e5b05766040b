import { describe, expect, it } from 'vitest';
import type { AnomalyRecord } from '../../../lib/filters/types';
import { buildPrompt } from '../../../lib/summaries/prompt';

function anomaly(id: number, extra: Partial<AnomalyRecord> = {}): AnomalyRecord {
  return {
    id,
    dataViewId: 1,
    dataView: 'retail / sales',
    seriesId: id,
    measure: 'value',
    type: 'DOD',
    startDate: '2026-11-20',
    endDate: '2026-11-20',
    duration: 1,
    actualValue: 50,
    predictedValue: 100,
    change: -50,
    changePct: -50,
    changeCum: -50,
    sharePct: 12.5,
    recurrence: 0,
    result: 'Negative',
    categories: { country: 'CZ', city: null },
    sin: 2.5,
    sim: 0.4,
    comments: [],
    ...extra,
  };
}

const filter = {
  name: 'Drops',
  comment: 'Daily drops for sales',
  timeRange: 'Yesterday' as const,
  dataViews: 'retail / sales',
  sortBy: 'SIN' as const,
  limit: 10,
};

describe('the summary prompt', () => {
  it('holds the filter settings, every record with its id, the matched comments and the instructions', () => {
    const p = buildPrompt({
      filter,
      range: { dateFrom: '2026-11-20', dateTo: '2026-11-20' },
      anomalies: [
        anomaly(7, {
          comments: [
            {
              id: 1,
              text: 'Store closed',
              email: 'a@example.com',
              dataViewId: 1,
              dateFrom: '2026-11-20',
              dateTo: '2026-11-20',
              categories: {},
            },
          ],
        }),
      ],
      instructions: 'Write two sentences in German.',
    });
    expect(p.prompt).toContain('Filter: Drops');
    expect(p.prompt).toContain('Purpose: Daily drops for sales');
    expect(p.prompt).toContain('[anomaly 7]');
    expect(p.prompt).toContain('country=CZ');
    expect(p.prompt).toContain('Store closed');
    expect(p.prompt.trim().endsWith('Write two sentences in German.')).toBe(true);
    expect(p.leftOut).toEqual({ anomalies: 0, aggregates: 0 });
  });

  it('stays within the budget and says what was left out', () => {
    const many = Array.from({ length: 500 }, (_, i) => anomaly(i + 1));
    const p = buildPrompt({
      filter,
      range: { dateFrom: 'a', dateTo: 'b' },
      anomalies: many,
      instructions: 'x',
      budgetChars: 5000,
    });
    expect(p.chars).toBeLessThanOrEqual(5000);
    expect(p.anomaliesIncluded).toBeGreaterThan(0);
    expect(p.leftOut.anomalies).toBe(500 - p.anomaliesIncluded);
    expect(p.prompt).toContain(`Left out for size: ${p.leftOut.anomalies} anomalies`);
    expect(p.prompt).toContain('[anomaly 1]');
    expect(p.prompt).not.toContain('[anomaly 500]');
  });
});

describe('the summary prompt of incidents', () => {
  const incident = {
    id: 42,
    size: 3,
    startDate: '2026-11-19',
    endDate: '2026-11-20',
    firstSeenAt: '2026-11-21T06:00:00.000Z',
    measures: ['value', 'count'],
    types: ['DOD', 'Spike'],
    broad: {
      categories: { country: 'CZ', city: null },
      actual: 500,
      expected: 800,
      change: -300,
      changePct: -37.5,
    },
    rootCauses: [
      {
        categories: { country: 'CZ', city: 'Brno' },
        actual: 20,
        expected: 300,
        change: -280,
        changePct: -93.3,
        explainsPct: 93,
        broad: false,
      },
    ],
  };

  it('lists each incident once with its citation, root cause and broad series, its records below it', () => {
    const p = buildPrompt({
      filter,
      range: { dateFrom: '2026-11-20', dateTo: '2026-11-20' },
      anomalies: [
        anomaly(7, { incidentId: 42 }),
        anomaly(8),
        anomaly(9, { incidentId: 42, measure: 'count' }),
      ],
      incidents: new Map([['1:42', incident]]),
      instructions: '',
    });
    const lines = p.prompt.split('\n');
    const at = lines.findIndex((l) =>
      l.startsWith('- [incident 1:42] retail / sales | Negative | 2026-11-19..2026-11-20'),
    );
    expect(at).toBeGreaterThan(0);
    expect(lines[at]).toContain(
      "root cause: country=CZ, city=Brno (actual 20 vs expected 300, change -280, -93.3 %, explains 93 % of the broad series' change)",
    );
    expect(lines[at]).toContain(
      'broad series (context): country=CZ (actual 500 vs expected 800, change -300, -37.5 %)',
    );
    expect(lines[at]).toContain('measures value+count | types DOD+Spike | 3 records');
    expect(lines[at + 1]).toMatch(/^ {2}- \[anomaly 7\]/);
    expect(lines[at + 2]).toMatch(/^ {2}- \[anomaly 9\].*\| count \|/);
    expect(lines[at + 3]).toMatch(/^- \[anomaly 8\]/);
    expect(p.prompt).toContain(
      'Every sentence about an event cites its incident exactly as its line below starts',
    );
    expect(p.incidentsIncluded).toBe(1);
    expect(p.citable).toEqual({ incidents: [{ dataViewId: 1, incidentId: 42 }], anomalies: [7, 9, 8] });
  });

  it('tells an incident row by its incident, its figures as its root cause’s', () => {
    const row = anomaly(7, {
      incidentId: 42,
      incident: incident,
      categories: { country: 'CZ', city: 'Brno' },
    });
    const p = buildPrompt({
      filter,
      range: { dateFrom: 'a', dateTo: 'b' },
      anomalies: [row],
      instructions: '',
    });
    expect(p.prompt).toContain('- [incident 1:42] retail / sales');
    expect(p.prompt).toMatch(
      / {2}- \[anomaly 7\] root cause country=CZ, city=Brno \(its own figures; SIN of the broad series\) \| value \| type DOD/,
    );
    expect(p.citable.incidents).toEqual([{ dataViewId: 1, incidentId: 42 }]);
  });

  it('holds only the incidents that fit: what was cut cannot be cited', () => {
    const many = Array.from({ length: 200 }, (_, i) =>
      anomaly(i + 1, { incidentId: i + 1, incident: { ...incident, id: i + 1 } }),
    );
    const p = buildPrompt({
      filter,
      range: { dateFrom: 'a', dateTo: 'b' },
      anomalies: many,
      instructions: '',
      budgetChars: 6000,
    });
    expect(p.incidentsIncluded).toBeGreaterThan(0);
    expect(p.incidentsIncluded).toBeLessThan(200);
    expect(p.citable.incidents).toHaveLength(p.incidentsIncluded);
    expect(p.prompt).not.toContain(`[incident 1:${p.incidentsIncluded + 1}]`);
    expect(p.chars).toBeLessThanOrEqual(6000);
  });
});
