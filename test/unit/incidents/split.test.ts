import { describe, expect, it } from 'vitest';
import type { MemberRecord } from '../../../lib/incidents/grouping';
import { planIncidents, splitOff } from '../../../lib/incidents/plan';

// Categories: country, city (child of country), channel. Codes: 0 = all.
let nextId = 1;
function rec(codes: number[], over: Partial<MemberRecord> & { rel: number; days?: number }): MemberRecord {
  const days = over.days ?? 5;
  const predicted = over.predictedValue ?? 1000 / (codes.filter((c) => c !== 0).length + 1);
  const actual = predicted * (1 + over.rel);
  return {
    id: nextId++,
    seriesId: codes.reduce((acc, c) => acc * 10 + c, 0),
    codes: Int32Array.from(codes),
    measure: 'value',
    type: 'DT',
    result: over.rel < 0 ? 'Negative' : 'Positive',
    startDay: 100,
    endDay: 100 + days - 1,
    actualValue: actual,
    predictedValue: predicted,
    changeCum: (actual - predicted) * days,
    sharePct: 10,
    sin: 1,
    ...over,
  };
}

const broadCause = (codes: number[]) => ({
  broad: true,
  causes: [{ codes: Int32Array.from(codes) }],
});

describe('splitting an incident by its explanation', () => {
  // A chain-wide season (+35 % everywhere) and, within it, one city's web channel that tripled for a day:
  // the city's aggregate moved with both and links them.
  const total = rec([0, 0, 0], { rel: 0.35 });
  const city = rec([1, 1, 0], { rel: 0.6 });
  const spike = rec([1, 1, 2], { rel: 2.2, days: 1, startDay: 102, endDay: 102, predictedValue: 150 });
  const spikeCount = { ...rec([1, 1, 2], { rel: 2, days: 1, startDay: 102, endDay: 102 }), measure: 'count' };
  const records = [total, city, spike, spikeCount];

  it('groups them through the city', () => {
    const plans = planIncidents(records);
    expect(plans).toHaveLength(1);
    expect(plans[0].head).toBe(0);
  });

  it('splits off the member that moved far more than a broad change, with its other measure', () => {
    const [plan] = planIncidents(records);
    expect(splitOff(records, plan, broadCause([0, 0, 0]) as never)).toEqual([2, 3]);
  });

  it('keeps members that moved alike the broad change or explain it', () => {
    const alike = [total, rec([1, 1, 0], { rel: 0.5 }), rec([2, 3, 0], { rel: 0.3 })];
    const [plan] = planIncidents(alike);
    expect(plan.members).toHaveLength(3);
    expect(splitOff(alike, plan, broadCause([0, 0, 0]) as never)).toEqual([]);
  });

  it('keeps the echoes of the event: a Mix record of another city that looked low next to the spike', () => {
    const cityWeb = rec([1, 1, 2], { rel: 2.2, days: 1, startDay: 102, endDay: 102, predictedValue: 150 });
    const echo = rec([1, 2, 0], { rel: -0.3, type: 'Mix', days: 1, startDay: 102, endDay: 102 });
    const withEcho = [cityWeb, echo];
    const [plan] = planIncidents(withEcho);
    expect(plan.members).toHaveLength(2);
    const cause = { broad: false, causes: [{ codes: Int32Array.from([1, 1, 2]) }] };
    expect(splitOff(withEcho, plan, cause as never)).toEqual([]);
  });

  it('splits off members outside every root cause when the cause is specific', () => {
    // The cause is country 2; a city of country 1 that moved in the same days is another event.
    const [plan] = planIncidents(records);
    const cause = { broad: false, causes: [{ codes: Int32Array.from([2, 0, 0]) }] };
    expect(splitOff(records, plan, cause as never)).toEqual([1, 2, 3]);
    const inside = { broad: false, causes: [{ codes: Int32Array.from([1, 0, 0]) }] };
    expect(splitOff(records, plan, inside as never)).toEqual([]);
  });

  it('splits off a month-long record that a week-long event overlaps, with what only it linked', () => {
    // The season's week on the total, and a country's month-long rise (a level shift) that overlaps it
    // and moved alike; a share record of a sibling channel echoes the month, the other way.
    const week = rec([0, 0, 0], { rel: 0.35, startDay: 126, endDay: 130 });
    const month = rec([1, 0, 0], { rel: 0.3, days: 30, startDay: 101, endDay: 130, predictedValue: 600 });
    const monthWeb = rec([1, 0, 2], { rel: 0.6, days: 30, startDay: 101, endDay: 130, predictedValue: 500 });
    const echo = rec([1, 0, 1], { rel: -0.2, days: 30, startDay: 101, endDay: 130, type: 'Mix' });
    const all = [week, month, monthWeb, echo];
    const [plan] = planIncidents(all);
    expect(plan.members).toHaveLength(4);
    expect(splitOff(all, plan, broadCause([0, 0, 0]) as never)).toEqual([1, 2, 3]);
  });
});
