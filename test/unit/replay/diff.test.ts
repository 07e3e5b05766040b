import { describe, expect, it } from 'vitest';
import { diffRecords, foldCountEchoes, keptRecords } from '../../../lib/replay/diff';
import type { ReplayRecord } from '../../../lib/replay/types';

const rec = (o: Partial<ReplayRecord>): ReplayRecord => ({
  seriesId: 1,
  measure: 'value',
  type: 'DOD',
  detectorIndex: 0,
  startDate: '2024-01-26',
  endDate: '2024-01-26',
  duration: 1,
  actualValue: 200,
  predictedValue: 100,
  changePct: 100,
  changeCum: 100,
  result: 'Positive',
  incidentId: null,
  ...o,
});

describe('replay difference', () => {
  it('matches records by series, measure, type and start; counts added, removed, changed by type', () => {
    // Prepare: series 1 stays, 2 goes, 3 comes, 4 lasts a day longer.
    const before = [
      rec({ seriesId: 1 }),
      rec({ seriesId: 2, incidentId: 7 }),
      rec({ seriesId: 4, incidentId: 8 }),
      rec({ seriesId: 5, incidentId: 8 }),
    ];
    const after = [
      rec({ seriesId: 1 }),
      rec({ seriesId: 3, type: 'WOW' }),
      rec({ seriesId: 4, endDate: '2024-01-27', duration: 2 }),
      rec({ seriesId: 5 }),
    ];
    // Act
    const d = diffRecords(before, after);
    // Assess
    expect(d.counts).toEqual({ before: 4, after: 4, added: 1, removed: 1, changed: 1, unchanged: 2 });
    expect(d.added.map((r) => r.seriesId)).toEqual([3]);
    expect(d.removed.map((r) => r.seriesId)).toEqual([2]);
    expect(d.changed[0].before.endDate).toBe('2024-01-26');
    expect(d.changed[0].after.endDate).toBe('2024-01-27');
    expect(d.byType).toEqual([
      { type: 'DOD', measure: 'value', before: 4, after: 3, added: 0, removed: 1, changed: 1 },
      { type: 'WOW', measure: 'value', before: 0, after: 1, added: 1, removed: 0, changed: 0 },
    ]);
  });

  it('a changed sign or expectation is a change; float noise is not', () => {
    const d = diffRecords(
      [rec({ seriesId: 1 }), rec({ seriesId: 2 })],
      [
        rec({ seriesId: 1, predictedValue: 100 + 1e-12 }),
        rec({ seriesId: 2, predictedValue: 120, changePct: 66.7 }),
      ],
    );
    expect(d.counts).toMatchObject({ changed: 1, unchanged: 1 });
    expect(d.changed[0].after.seriesId).toBe(2);
  });

  it('cuts each list to the row limit and says so, the counts whole', () => {
    const after = Array.from({ length: 5 }, (_, i) => rec({ seriesId: i + 10 }));
    const d = diffRecords([], after, 2);
    expect(d.counts.added).toBe(5);
    expect(d.added).toHaveLength(2);
    expect(d.truncated).toBe(true);
  });

  it('leaves out a count record that echoes a value record of the same series and sign', () => {
    const folded = foldCountEchoes([
      rec({ seriesId: 1 }),
      rec({ seriesId: 1, measure: 'count' }),
      rec({ seriesId: 1, measure: 'count', result: 'Negative' }),
      rec({ seriesId: 2, measure: 'count' }),
    ]);
    expect(folded.map((r) => `${r.seriesId}${r.measure}${r.result}`)).toEqual([
      '1valuePositive',
      '1countNegative',
      '2countPositive',
    ]);
  });

  it('keeps the older records of detectors still defined when only the last days are scanned', () => {
    const stored = [
      rec({ startDate: '2024-01-02', endDate: '2024-01-02' }),
      rec({ startDate: '2024-01-03', endDate: '2024-01-03', detectorIndex: 1, type: 'WOW' }),
      rec({ startDate: '2024-01-20', endDate: '2024-01-20' }),
    ];
    const kept = keptRecords(stored, '2024-01-15', [{ index: 0, code: 'DOD' }]);
    expect(kept.map((r) => r.startDate)).toEqual(['2024-01-02']);
    expect(keptRecords(stored, null, [{ index: 0, code: 'DOD' }])).toEqual([]);
  });

  it('answers the same whatever order either side arrives in, and pairs records of one key by equality', () => {
    // Prepare: two records of one series, type and day (a detector reporting both directions), and others.
    const up = rec({ seriesId: 1, endDate: '2024-01-27', duration: 2 });
    const down = rec({ seriesId: 1, result: 'Negative', actualValue: 50, changePct: -50, changeCum: -50 });
    const before = [up, down, rec({ seriesId: 2, incidentId: 4 }), rec({ seriesId: 3, type: 'WOW' })];
    const after = [rec({ seriesId: 3, type: 'WOW', predictedValue: 90 }), down, up, rec({ seriesId: 5 })];
    // Act: the stored records read in two orders, the replayed ones in two.
    const answers = [
      diffRecords(before, after),
      diffRecords([...before].reverse(), after),
      diffRecords(before, [...after].reverse()),
      diffRecords([before[2], before[0], before[3], before[1]], [after[1], after[3], after[0], after[2]]),
    ];
    // Assess: one answer, and the two records of series 1 are each matched with their equal.
    for (const d of answers.slice(1)) expect(d).toEqual(answers[0]);
    expect(answers[0].counts).toEqual({
      before: 4,
      after: 4,
      added: 1,
      removed: 1,
      changed: 1,
      unchanged: 2,
    });
    expect(answers[0].changed.map((c) => c.after.seriesId)).toEqual([3]);
  });
});
