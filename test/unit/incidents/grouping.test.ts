import { describe, expect, it } from 'vitest';
import { groupRecords, headOf, type MemberRecord } from '../../../lib/incidents/grouping';
import { matchPrevious } from '../../../lib/incidents/identity';

// Categories: district, hotel (child of district), channel. Codes: 0 = all.
const TOTAL = [0, 0, 0];
const D1 = [1, 0, 0];
const H1 = [1, 1, 0];
const H1_OTA = [1, 1, 1];
const H1_WEB = [1, 1, 2];
const H2 = [1, 2, 0];
const OTA = [0, 0, 1];
const WEB = [0, 0, 2];

let nextId = 1;
function rec(
  codes: number[],
  over: Partial<MemberRecord> & { day?: number; days?: number; daily?: number } = {},
): MemberRecord {
  const day = over.day ?? 100;
  const days = over.days ?? 1;
  const daily = over.daily ?? -10;
  const seriesId = codes.reduce((acc, c) => acc * 10 + c, 0);
  return {
    id: nextId++,
    seriesId,
    codes: Int32Array.from(codes),
    measure: 'value',
    type: 'DT',
    result: daily < 0 ? 'Negative' : 'Positive',
    startDay: day,
    endDay: day + days - 1,
    actualValue: 100 + daily,
    predictedValue: 100,
    changeCum: daily * days,
    sharePct: 10,
    sin: 1,
    ...over,
  };
}

const together = (records: MemberRecord[]) =>
  groupRecords(records).map((g) => g.map((i) => records[i].id).sort((a, b) => a - b));

describe('grouping records into incidents', () => {
  it('joins a leaf, its hotel, its district and the total when the leaf explains their change', () => {
    const rs = [
      rec(H1_OTA, { daily: -30 }),
      rec(H1, { daily: -32 }),
      rec(D1, { daily: -35 }),
      rec(TOTAL, { daily: -40 }),
    ];
    expect(together(rs)).toHaveLength(1);
    expect(rs[headOf(rs, groupRecords(rs)[0])].codes).toEqual(Int32Array.from(TOTAL));
  });

  it('keeps apart a broad change that a small part does not explain, unless they moved alike', () => {
    // The total fell by 400 a day; a hotel fell by 10 a day (2 %), by a different share of itself.
    const small = [
      rec(TOTAL, { daily: -400, actualValue: 600, predictedValue: 1000 }),
      rec(H2, { daily: -10, actualValue: 40, predictedValue: 50 }),
    ];
    expect(together(small)).toHaveLength(2);
    // Every part of a department that dropped by 40 % dropped by about 40 %: one event.
    const alike = [
      rec(TOTAL, { daily: -400, actualValue: 600, predictedValue: 1000 }),
      rec(H2, { daily: -20, actualValue: 30, predictedValue: 50 }),
    ];
    expect(together(alike)).toHaveLength(1);
  });

  it('does not let a three-day spike join a quarter-long record of its parent', () => {
    const rs = [
      rec(H1, { type: 'QOQ', day: 0, days: 92, daily: -5, actualValue: 95, predictedValue: 100 }),
      rec(H1_OTA, { day: 40, days: 3, daily: -8, actualValue: 2, predictedValue: 10 }),
    ];
    expect(together(rs)).toHaveLength(2);
  });

  it('joins the value and the count of one series on the same days, and names both measures', () => {
    const rs = [rec(H1, { measure: 'value', days: 3 }), rec(H1, { measure: 'count', days: 2, day: 101 })];
    expect(together(rs)).toHaveLength(1);
  });

  it('keeps rises and falls apart, and windows more than a day apart', () => {
    expect(together([rec(H1, { daily: -10 }), rec(H1_OTA, { daily: 10 })])).toHaveLength(2);
    expect(together([rec(H1, { day: 100 }), rec(H1_OTA, { day: 103 })])).toHaveLength(2);
    // Touching windows (a day either side) are one event.
    expect(together([rec(H1, { day: 100 }), rec(H1_OTA, { day: 101 })])).toHaveLength(1);
  });

  it('never joins series that are not ancestor and descendant (two channels), without a common record', () => {
    expect(together([rec(OTA), rec(WEB)])).toHaveLength(2);
  });

  it('joins a Peer record that sees its sibling’s spike from the other side', () => {
    const rs = [
      rec(H1_OTA, { daily: 50, actualValue: 150, predictedValue: 100 }),
      rec(H1_WEB, { type: 'Peer', daily: -10, actualValue: 90, predictedValue: 100 }),
    ];
    expect(together(rs)).toHaveLength(1);
  });

  it('joins Peer and Mix records beside the branch of a spike to the spike', () => {
    // Categories: region, city (child of region), channel. Prague/web spiked; Moravia (another region) and
    // Plzen (another city of Prague's region) looked low next to it.
    const prague = rec([1, 1, 2], { daily: 200, actualValue: 300, predictedValue: 100 });
    const moravia = rec([2, 0, 0], { type: 'Mix', daily: -20, actualValue: 80, predictedValue: 100 });
    const plzen = rec([1, 2, 0], { type: 'Peer', daily: -10, actualValue: 90, predictedValue: 100 });
    expect(together([prague, moravia, plzen])).toEqual([[prague.id, moravia.id, plzen.id]]);
  });

  it('joins an echo to the largest event beside its branch, whichever category they differ in', () => {
    // Categories: region, city (child of region), channel. The echo: Prague's web channel looked low.
    const echo = rec([1, 1, 2], { type: 'Peer', daily: -10, actualValue: 90, predictedValue: 100 });
    // Beside it: Prague's app (differs in the channel), Brno's web (differs in the city); not beside it:
    // Prague itself (fixes no channel), the web total (fixes no region nor city), Brno's app (differs twice).
    const pragueApp = rec([1, 1, 1], { daily: 30, actualValue: 130, predictedValue: 100 });
    const brnoWeb = rec([1, 2, 2], { daily: 60, actualValue: 160, predictedValue: 100 });
    const prague = rec([1, 1, 0], { daily: 500, actualValue: 600, predictedValue: 100 });
    const web = rec([0, 0, 2], { daily: 900, actualValue: 1000, predictedValue: 100, day: 101 });
    const brnoApp = rec([1, 2, 1], { daily: 800, actualValue: 900, predictedValue: 100, day: 99 });
    const all = [prague, web, brnoApp, pragueApp, echo, brnoWeb];
    const groups = together(all);
    expect(groups).toContainEqual([echo.id, brnoWeb.id].sort((a, b) => a - b));
    // Of two events of the same size, the first record.
    const twin = rec([1, 1, 3], { daily: 60, actualValue: 160, predictedValue: 100 });
    expect(together([twin, ...all])).toContainEqual([twin.id, echo.id].sort((a, b) => a - b));
  });

  it('never lets an echo link two events', () => {
    // Two events of one country: the app channel of one region rose for weeks; a store of another region
    // went missing for five days. The store channel's Peer record is part of the missing store (a drop
    // like it) and also looks low next to the app's rise: it must not join the two.
    const AUSTRIA_APP = [1, 0, 1];
    const EAST_APP = [1, 1, 1];
    const AUSTRIA_STORE = [1, 0, 2];
    const SOUTH_STORE = [1, 2, 2];
    const rise = [
      rec(EAST_APP, { day: 90, days: 40, daily: 50, actualValue: 150, predictedValue: 100 }),
      rec(AUSTRIA_APP, { day: 90, days: 40, daily: 45, actualValue: 140, predictedValue: 100 }),
    ];
    const gap = [
      rec(SOUTH_STORE, { type: 'Gap', day: 100, days: 5, daily: -100, actualValue: 0, predictedValue: 100 }),
      rec(AUSTRIA_STORE, {
        type: 'Peer',
        day: 100,
        days: 1,
        daily: -30,
        actualValue: 70,
        predictedValue: 100,
      }),
    ];
    const groups = together([...rise, ...gap]);
    expect(groups).toHaveLength(2);
    expect(groups).toContainEqual(rise.map((r) => r.id));
    expect(groups).toContainEqual(gap.map((r) => r.id));
  });

  it('heads an incident by the value, not by a stronger ratio record of the same series', () => {
    // A dear department's orders doubled: the total's value rose, and its value per order rose by the mix
    // alone (every leaf kept its own prices), with a slightly higher SIN.
    const rs = [
      rec(TOTAL, { measure: 'ratio', type: 'Spike', daily: 10, sin: 2.09 }),
      rec(TOTAL, { type: 'DT', daily: 40, sin: 2.05 }),
      rec([0, 0, 1], { type: 'DT', daily: 35, sin: 1.1 }),
    ];
    expect(together(rs)).toHaveLength(1);
    const head = rs[headOf(rs, groupRecords(rs)[0])];
    expect(head.codes).toEqual(Int32Array.from(TOTAL));
    expect(head.measure).toBe('value');
  });

  it('joins a Cardinality record with the child that went missing', () => {
    const rs = [
      rec(H1, { type: 'Cardinality', actualValue: 1, predictedValue: 2, changeCum: -1 }),
      rec(H1_OTA, { type: 'Gap', actualValue: 0, predictedValue: 30, changeCum: -30 }),
    ];
    expect(together(rs)).toHaveLength(1);
    // The head is in the measure's units, not the count of children.
    expect(rs[headOf(rs, groupRecords(rs)[0])].type).toBe('Gap');
  });
});

describe('incident identity across runs', () => {
  it('keeps the id of the previous incident sharing the most members, one to one', () => {
    const previous = [
      { id: 7, memberKeys: ['a', 'b', 'c'] },
      { id: 8, memberKeys: ['d'] },
    ];
    // The first grew by a day; the second is new; the third continues 8.
    expect(matchPrevious([['a', 'b', 'c', 'e'], ['x'], ['d']], previous)).toEqual([0, -1, 1]);
    // A split keeps the id on its larger part.
    expect(matchPrevious([['a'], ['b', 'c']], previous)).toEqual([-1, 0]);
  });
});
