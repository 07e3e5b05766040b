/** The rows of a replay's incidents in the UI: a split or merge shows the stored incidents as they were and what they become. */
import { describe, expect, it } from 'vitest';
import type * as Api from '../../../web/src/lib/api-types.gen';
import { countsText, rowsOf } from '../../../web/src/lib/replay-incidents';

const head = { seriesId: 1, measure: 'value', type: 'DOD', startDate: '2024-01-26' } as Api.ReplayRecord;
const incident = (storedId: number | null, o: Partial<Api.ReplayIncident> = {}): Api.ReplayIncident => ({
  storedId,
  result: 'Positive',
  startDate: '2024-01-26',
  endDate: '2024-01-26',
  size: 1,
  measures: ['value'],
  types: ['DOD'],
  head,
  ...o,
});

describe('the incidents of a replay in the UI', () => {
  it('lists a merge as the stored incidents it was and the one it becomes, with the ids it shares', () => {
    const diff: Api.ReplayResult['incidents'] = {
      counts: {
        before: 2,
        after: 1,
        added: 0,
        removed: 0,
        changed: 0,
        unchanged: 0,
        split: 0,
        merged: 1,
        regrouped: 0,
      },
      added: [],
      removed: [],
      changed: [],
      regrouped: [
        {
          kind: 'merged',
          before: [incident(7), incident(8)],
          after: [incident(7, { size: 3, storedIds: [7, 8] })],
        },
      ],
    };
    const rows = rowsOf(diff);
    expect(rows.map((r) => [r.change, r.side, r.incident.storedId])).toEqual([
      ['merged', 'was', 7],
      ['merged', 'was', 8],
      ['merged', 'now', 7],
    ]);
    expect(rows[2].incident.storedIds).toEqual([7, 8]);
    expect(countsText(diff.counts)).toBe(', 0 split, 1 merged');
  });

  it('reads a replay stored before splits and merges were told apart', () => {
    const diff = {
      counts: { before: 1, after: 1, added: 0, removed: 0, changed: 0, unchanged: 1 },
      added: [],
      removed: [],
      changed: [],
    } as Api.ReplayResult['incidents'];
    expect(rowsOf(diff)).toEqual([]);
    expect(countsText(diff.counts)).toBe('');
  });
});
