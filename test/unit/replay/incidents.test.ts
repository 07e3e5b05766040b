import { describe, expect, it } from 'vitest';
import { diffIncidents, groupIncidents } from '../../../lib/replay/incidents';
import type { ReplayRecord } from '../../../lib/replay/types';

/** A cube of one category (country): series 1 is the total, 2..4 the countries CZ, DE, FR. */
const CODES: Record<number, Int32Array> = {
  1: Int32Array.of(0),
  2: Int32Array.of(1),
  3: Int32Array.of(2),
  4: Int32Array.of(3),
};
const codesOf = (id: number) => CODES[id];

/** A one-day spike: actual `actual` against 100 expected. */
const rec = (seriesId: number, startDate: string, actual: number, o: Partial<ReplayRecord> = {}) =>
  ({
    seriesId,
    measure: 'value',
    type: 'DOD',
    detectorIndex: 0,
    startDate,
    endDate: startDate,
    duration: 1,
    actualValue: actual,
    predictedValue: 100,
    changePct: actual - 100,
    changeCum: actual - 100,
    result: actual > 100 ? 'Positive' : 'Negative',
    incidentId: null,
    ...o,
  }) satisfies ReplayRecord;

describe('incidents of a replay', () => {
  it('groups the total with the country that explains it, and a far day apart', () => {
    // The total +55 on the 26th, CZ +100 the same day (explains it); DE +60 on the 10th, alone.
    const groups = groupIncidents(
      [rec(1, '2024-01-26', 155), rec(2, '2024-01-26', 200), rec(3, '2024-01-10', 160)],
      codesOf,
    );
    const sizes = groups.map((g) => [g.incident.startDate, g.incident.size, g.incident.head.seriesId]);
    expect(sizes.sort()).toEqual([
      ['2024-01-10', 1, 3],
      ['2024-01-26', 2, 1],
    ]);
  });

  it('a change that removes every member of an event removes its incident, with its stored id', () => {
    // Prepare: stored, the event of the 26th (incident 7) and DE on the 10th (incident 8).
    const before = [
      rec(1, '2024-01-26', 155, { incidentId: 7 }),
      rec(2, '2024-01-26', 200, { incidentId: 7 }),
      rec(3, '2024-01-10', 160, { incidentId: 8 }),
    ];
    // Act: a higher threshold keeps only DE's day.
    const d = diffIncidents(before, [rec(3, '2024-01-10', 160)], codesOf, 500);
    // Assess
    expect(d.counts).toEqual({
      ...{ before: 2, after: 1, added: 0, removed: 1, changed: 0, unchanged: 1 },
      ...{ split: 0, merged: 0, regrouped: 0 },
    });
    expect(d.removed).toHaveLength(1);
    expect(d.removed[0]).toMatchObject({ storedId: 7, size: 2, startDate: '2024-01-26', types: ['DOD'] });
    expect(d.removed[0].head.seriesId).toBe(1);
    expect(d.added).toEqual([]);
  });

  it('a member joining or leaving changes an incident; a new event is added', () => {
    const before = [
      rec(1, '2024-01-26', 155, { incidentId: 7 }),
      rec(2, '2024-01-26', 200, { incidentId: 7 }),
    ];
    const after = [
      rec(1, '2024-01-26', 155),
      rec(2, '2024-01-26', 200),
      // DE moved alike (+60 % against the total's +55 %): one event with the others.
      rec(3, '2024-01-26', 160),
      // FR fell on the 3rd: an event of its own.
      rec(4, '2024-01-03', 40),
    ];
    const d = diffIncidents(before, after, codesOf, 500);
    expect(d.counts).toMatchObject({ before: 1, after: 2, added: 1, removed: 0, changed: 1, unchanged: 0 });
    expect(d.changed[0]).toMatchObject({ joined: 1, left: 0 });
    expect(d.changed[0].before).toMatchObject({ storedId: 7, size: 2 });
    expect(d.changed[0].after).toMatchObject({ storedId: 7, size: 3 });
    expect(d.added[0]).toMatchObject({ storedId: null, result: 'Negative', startDate: '2024-01-03' });
  });

  it('the same records make the same incidents: nothing changes', () => {
    const records = [rec(1, '2024-01-26', 155), rec(2, '2024-01-26', 200), rec(4, '2024-01-03', 40)];
    const d = diffIncidents(records, [...records].reverse(), codesOf, 500);
    expect(d.counts).toMatchObject({ before: 2, after: 2, added: 0, removed: 0, changed: 0, unchanged: 2 });
    expect(d.regrouped).toEqual([]);
  });

  it('leaves out records of series outside the catalog, and cuts the lists to the row limit', () => {
    const after = [
      rec(9, '2024-01-26', 300),
      ...[2, 3, 4].map((s, i) => rec(s, `2024-01-0${2 * i + 1}`, 200)),
    ];
    const d = diffIncidents([], after, codesOf, 2);
    expect(d.counts.added).toBe(3);
    expect(d.added.map((i) => i.startDate)).toEqual(['2024-01-05', '2024-01-03']);
  });

  it('a stored incident whose records now fall into two events is split, each naming the stored id', () => {
    // Prepare: stored, the total +55 % and CZ +100 % of the 26th, one event (incident 7).
    const before = [
      rec(1, '2024-01-26', 155, { incidentId: 7 }),
      rec(2, '2024-01-26', 200, { incidentId: 7 }),
    ];
    // Act: replayed, CZ's day is +1 % only: it no longer explains the total's change.
    const d = diffIncidents(before, [rec(1, '2024-01-26', 155), rec(2, '2024-01-26', 101)], codesOf, 500);
    // Assess: one split, neither an added nor a changed incident.
    expect(d.counts).toMatchObject({ before: 1, after: 2, added: 0, removed: 0, changed: 0, split: 1 });
    expect(d.regrouped).toHaveLength(1);
    const [split] = d.regrouped;
    expect(split.kind).toBe('split');
    expect(split.before.map((i) => i.storedId)).toEqual([7]);
    expect(split.after.map((i) => [i.head.seriesId, i.storedIds])).toEqual([
      [1, [7]],
      [2, [7]],
    ]);
    // The part a cycle would keep the id on carries it.
    expect(split.after.filter((i) => i.storedId === 7)).toHaveLength(1);
  });

  it('two stored incidents whose records now make one event are merged', () => {
    const before = [
      rec(1, '2024-01-26', 155, { incidentId: 7 }),
      rec(2, '2024-01-26', 101, { incidentId: 8 }),
    ];
    const d = diffIncidents(before, [rec(1, '2024-01-26', 155), rec(2, '2024-01-26', 200)], codesOf, 500);
    expect(d.counts).toMatchObject({ before: 2, after: 1, added: 0, removed: 0, changed: 0, merged: 1 });
    const [merged] = d.regrouped;
    expect(merged.kind).toBe('merged');
    expect(merged.before.map((i) => i.storedId).sort()).toEqual([7, 8]);
    expect(merged.after).toHaveLength(1);
    expect(merged.after[0]).toMatchObject({ size: 2, storedIds: [7, 8] });
  });

  it('answers the same whatever order the records arrive in (heads of equal strength included)', () => {
    // Prepare: the total's DOD and WOW of the 26th move alike (equally strong heads), FR's day alone.
    const before = [
      rec(1, '2024-01-26', 155, { incidentId: 7 }),
      rec(1, '2024-01-26', 155, { type: 'WOW', incidentId: 7 }),
      rec(4, '2024-01-03', 40, { incidentId: 9 }),
    ];
    const after = [
      rec(1, '2024-01-26', 155),
      rec(1, '2024-01-26', 155, { type: 'WOW' }),
      rec(2, '2024-01-26', 200),
      rec(3, '2024-01-03', 40),
    ];
    // Act
    const answers = [
      diffIncidents(before, after, codesOf, 500),
      diffIncidents([...before].reverse(), [...after].reverse(), codesOf, 500),
      diffIncidents(
        [before[1], before[2], before[0]],
        [after[2], after[0], after[3], after[1]],
        codesOf,
        500,
      ),
    ];
    // Assess
    for (const d of answers.slice(1)) expect(d).toEqual(answers[0]);
  });
});
