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
