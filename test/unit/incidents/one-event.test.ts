/**
 * One event, one incident, one feedback (docs/incidents.md, docs/feedback.md): echoes join only on their own
 * window, an incident within another's root cause joins it, a grown event keeps its id, a dissolved id
 * says where its records went, and an event's footprint reaches the event and its echoes however regrouped.
 */
import { describe, expect, it } from 'vitest';
import { absorbInto } from '../../../lib/incidents/absorb';
import { type Footprint, inheritedFootprints } from '../../../lib/incidents/event-feedback';
import { groupRecords, type MemberRecord } from '../../../lib/incidents/grouping';
import { continueByTrace } from '../../../lib/incidents/identity';
import { movesOf } from '../../../lib/incidents/store';

// Categories: district, hotel (child of district), channel. Codes: 0 = all.
let nextId = 1;
function rec(
  codes: number[],
  over: Partial<MemberRecord> & { day?: number; daily?: number } = {},
): MemberRecord {
  const day = over.day ?? 100;
  const daily = over.daily ?? -10;
  return {
    id: nextId++,
    seriesId: codes.reduce((acc, c) => acc * 10 + c, 0),
    codes: Int32Array.from(codes),
    measure: 'value',
    type: 'DT',
    result: daily < 0 ? 'Negative' : 'Positive',
    startDay: day,
    endDay: day,
    actualValue: 100 + daily,
    predictedValue: 100,
    changeCum: daily,
    sharePct: 10,
    sin: 1,
    ...over,
  };
}

describe('echoes join an event on their own window only', () => {
  it('attaches a sibling’s Peer record that starts with the spike, not one of another start date', () => {
    const spike = rec([1, 1, 2], { daily: 200, actualValue: 300 });
    const echo = rec([1, 1, 1], { type: 'Peer', daily: -20, actualValue: 80 });
    const later = rec([1, 1, 1], { type: 'Peer', daily: -20, actualValue: 80, day: 102, endDay: 102 });
    // The later echo's window touches the spike's only through a long record of the event's.
    const long = rec([1, 1, 2], { daily: 150, actualValue: 250, day: 100, endDay: 103, type: 'CW' });
    const rs = [spike, long, echo, later];
    const groups = groupRecords(rs).map((g) => g.map((i) => rs[i].id).sort((a, b) => a - b));
    expect(groups).toContainEqual([spike.id, long.id, echo.id].sort((a, b) => a - b));
    expect(groups).toContainEqual([later.id]);
  });

  it('attaches a Mix record of the same series and direction (its share fell as it fell)', () => {
    const drop = rec([1, 2, 1], { daily: -50, actualValue: 50 });
    // A share's change is not in the value's units: no link by what it explains.
    const mix = rec([1, 2, 1], { type: 'Mix', daily: -5, actualValue: 95, changeCum: null });
    const rs = [drop, mix];
    expect(groupRecords(rs)).toHaveLength(1);
  });
});

describe('an incident within another incident’s root cause joins it', () => {
  const channel = Int32Array.from([0, 0, 1]);
  const of = (codes: number[], over: Partial<Parameters<typeof absorbInto>[0][number]> = {}) => {
    const o = {
      head: rec(codes),
      startDay: 100,
      endDay: 103,
      echoesOnly: false,
      causes: [] as Int32Array[],
      size: 3,
      ...over,
    };
    return { firstDay: o.startDay, lastDay: o.endDay, ...o };
  };

  it('collects a channel-wide gap’s hotels and leaves into the channel’s incident', () => {
    const incidents = [
      of([0, 0, 0], { causes: [channel], size: 278 }),
      of([1, 1, 1], { causes: [Int32Array.from([1, 1, 1])], size: 2 }),
      of([2, 0, 1], { causes: [Int32Array.from([2, 3, 1])], size: 1 }),
      // Another direction, another window, another branch: each stays its own.
      of([1, 1, 1], { head: rec([1, 1, 1], { daily: 10 }) }),
      of([1, 2, 1], { startDay: 120, endDay: 120 }),
      of([1, 2, 2]),
    ];
    expect(absorbInto(incidents)).toEqual([-1, 0, 0, -1, -1, -1]);
  });

  it('takes an incident of echoes only when it starts within a day of the event', () => {
    const incidents = [
      of([0, 0, 0], { causes: [channel] }),
      of([1, 1, 1], { echoesOnly: true, startDay: 101, endDay: 101 }),
      of([1, 2, 1], { echoesOnly: true, startDay: 103, endDay: 103 }),
    ];
    expect(absorbInto(incidents)).toEqual([-1, 0, -1]);
  });
});

describe('identity across a regrouping', () => {
  it('keeps the id of an event that grew by a day at its start (no key in common)', () => {
    const trace = { result: 'Negative', seriesId: 7, startDay: 100, endDay: 103 };
    const match = continueByTrace(
      [-1, -1],
      [
        { ...trace, startDay: 99 },
        { ...trace, seriesId: 8 },
      ],
      [trace],
    );
    expect(match).toEqual([0, -1]);
  });

  it('says where the records of a dissolved incident went, most first', () => {
    const moves = movesOf(
      [
        { id: 1, memberKeys: ['a', 'b', 'c'] },
        { id: 2, memberKeys: ['d'] },
        { id: 3, memberKeys: ['z'] },
      ],
      [{ memberKeys: ['a', 'd'] }, { memberKeys: ['b', 'c'] }],
      [2, 9],
    );
    expect(moves).toEqual([{ id: 1, movedTo: [9, 2] }]);
  });
});

describe('an event’s footprint reaches it however regrouped', () => {
  const names = ['district', 'hotel', 'channel'];
  const values = new Map<number, Array<string | null>>([
    [0, [null, null, null]],
    [100, ['D1', null, null]],
    [110, ['D1', 'H1', null]],
    [111, ['D1', 'H1', 'web']],
    [112, ['D1', 'H1', 'app']],
    [120, ['D1', 'H2', null]],
    [121, ['D1', 'H2', 'web']],
    [290, ['D2', 'H9', null]],
  ]);
  const f: Footprint = {
    incidentId: 18,
    status: 'not-anomaly',
    note: '',
    userId: 1,
    email: 'a@example.com',
    result: 'Negative',
    startDay: 100,
    endDay: 103,
    series: [{ seriesId: 0, categories: { district: null, hotel: null, channel: null } }],
    causes: [{ categories: { district: 'D1', hotel: 'H1', channel: null }, broad: false }],
  };
  const member = (seriesId: number, over: Partial<MemberRecord> & { day?: number; daily?: number } = {}) =>
    rec([0, 0, 0], { seriesId, ...over });
  const incident = (members: MemberRecord[], rootCauses: Array<Record<string, string | null>> = []) => ({
    id: 1,
    result: members[0].result,
    startDay: Math.min(...members.map((m) => m.startDay)),
    endDay: Math.max(...members.map((m) => m.endDay)),
    members,
    rootCauses: rootCauses.map((categories) => ({ categories, broad: false })),
  });
  const judge = (...incidents: ReturnType<typeof incident>[]) =>
    inheritedFootprints(incidents, [f], names, (id) => values.get(id)).map((x) => x?.incidentId ?? null);

  it('reaches the event under another id, detector, measure, and a day earlier', () => {
    expect(
      judge(
        incident(
          [member(111, { type: 'Spike', measure: 'count', day: 99, endDay: 99 })],
          [{ district: 'D1', hotel: 'H1', channel: 'web' }],
        ),
        // Seen from a broader series whose root cause lies within the event's.
        incident([member(100)], [{ district: 'D1', hotel: 'H1', channel: 'web' }]),
      ),
    ).toEqual([18, 18]);
  });

  it('leaves another event alone: another direction, another window, another root cause', () => {
    expect(
      judge(
        incident([member(111, { daily: 10 })]),
        incident([member(111, { day: 110, endDay: 110 })]),
        // The total moved too, but this incident's cause is another hotel.
        incident([member(0), member(121)], [{ district: 'D1', hotel: 'H2', channel: 'web' }]),
      ),
    ).toEqual([null, null, null]);
  });

  it('reaches its echoes of either direction that start within a day, not those of another start date', () => {
    expect(
      judge(
        incident([member(120, { type: 'Peer', daily: 20 })]),
        incident([member(112, { type: 'Mix', day: 101, endDay: 101 })]),
        incident([member(120, { type: 'Peer', daily: 20, day: 103, endDay: 103 })]),
        incident([member(290, { type: 'Peer', daily: 20 })]),
      ),
    ).toEqual([18, 18, null, null]);
  });
});
