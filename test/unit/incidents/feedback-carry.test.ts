/** Which event feedback a later cycle's incident continues (lib/incidents/feedback.ts). */
import { describe, expect, it } from 'vitest';
import type { FeedbackRow } from '../../../lib/feedback/repository';
import { continuedFeedback, eventFeedback } from '../../../lib/incidents/feedback';
import type { MemberRecord } from '../../../lib/incidents/grouping';

const day = (iso: string) => Math.round(Date.parse(`${iso}T00:00:00Z`) / 86_400_000);

function row(incidentId: number | null, seriesId: number, startDate: string, endDate: string): FeedbackRow {
  return {
    id: seriesId,
    dataViewId: 1,
    seriesId,
    measure: 'value',
    type: 'DT',
    startDate,
    endDate,
    status: 'not-anomaly',
    note: '',
    email: 'a@example.com',
    userId: 1,
    incidentId,
    createdAt: '',
    updatedAt: '',
  };
}

function member(seriesId: number, start: string, end: string, measure = 'count'): MemberRecord {
  return {
    id: seriesId,
    seriesId,
    codes: Int32Array.from([seriesId]),
    measure,
    type: 'DOD',
    result: 'Negative',
    startDay: day(start),
    endDay: day(end),
    actualValue: 1,
    predictedValue: 2,
    changeCum: -1,
    sharePct: 1,
    sin: 1,
  };
}

describe('event feedback carried to a later cycle', () => {
  const feedback = eventFeedback([
    row(7, 10, '2024-05-01', '2024-05-03'),
    row(7, 11, '2024-05-01', '2024-05-04'),
    row(null, 12, '2024-05-01', '2024-05-04'),
    row(9, 20, '2024-06-01', '2024-06-01'),
  ]);

  it('keeps one entry per incident with its series and the union of its windows', () => {
    expect(feedback.map((f) => f.incidentId)).toEqual([7, 9]);
    expect([...feedback[0].series]).toEqual([10, 11]);
    expect([feedback[0].startDay, feedback[0].endDay]).toEqual([day('2024-05-01'), day('2024-05-04')]);
  });

  it('continues an event whose series it shares, in another measure and a day after its window', () => {
    const [a, b, c, d] = continuedFeedback(
      [
        [member(11, '2024-05-05', '2024-05-06')],
        [member(12, '2024-05-02', '2024-05-02')],
        [member(10, '2024-05-10', '2024-05-12')],
        [member(99, '2024-06-01', '2024-06-01'), member(20, '2024-05-31', '2024-06-02', 'ratio')],
      ],
      feedback,
    );
    expect(a?.incidentId).toBe(7);
    // A series without event feedback (its own record feedback is not an event's).
    expect(b).toBeUndefined();
    // Days apart from the window: another event.
    expect(c).toBeUndefined();
    expect(d?.incidentId).toBe(9);
  });
});
