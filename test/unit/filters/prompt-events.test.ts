import { describe, expect, it } from 'vitest';
import { buildPrompt } from '../../../lib/summaries/prompt';
import { anomaly } from './fixtures';

const filter = {
  name: 'f',
  comment: '',
  timeRange: 'Last 7 Days' as const,
  dataViews: '',
  sortBy: 'SIN' as const,
  limit: 5,
};

describe('the summary prompt of events and measures', () => {
  it('names the measure of each record and every type of an event once', () => {
    const event = anomaly({ id: 3, type: 'Spike', types: ['Spike', 'DT', 'Cardinality'], measure: 'value' });
    const count = anomaly({ id: 4, type: 'DOD', measure: 'count' });
    const p = buildPrompt({
      filter,
      range: { dateFrom: '2024-03-01', dateTo: '2024-03-07' },
      anomalies: [event, count],
      instructions: '',
    }).prompt;
    expect(p).toMatch(/\[anomaly 3\][^\n]*\| value \| types Spike\+DT\+Cardinality \(figures of Spike\)/);
    expect(p).toMatch(/\[anomaly 4\][^\n]*\| count \| type DOD \|/);
    expect(p).toContain('measure (value, or count');
  });
});
