/**
 * The return after an event (docs/incidents.md, "Grouping"): an incident of the other direction that starts
 * within a day of the day after an event's last day, within its cause, and lasts no longer, joins it.
 */
import { describe, expect, it } from 'vitest';
import { type Absorbable, absorbInto } from '../../../lib/incidents/absorb';
import type { MemberRecord } from '../../../lib/incidents/grouping';

// Categories: segment, device, channel. Codes: 0 = all.
let nextId = 1;
function head(codes: number[], result: 'Positive' | 'Negative', day: number): MemberRecord {
  return {
    id: nextId++,
    seriesId: codes.reduce((acc, c) => acc * 10 + c, 0),
    codes: Int32Array.from(codes),
    measure: 'value',
    type: 'DOD',
    result,
    startDay: day,
    endDay: day,
    actualValue: 10,
    predictedValue: 100,
    changeCum: result === 'Negative' ? -90 : 90,
    sin: 1,
  };
}

/** A 4-day gap of segment 1 on channel 1 (days 100–103), its cause named, seen on the channel. */
function gap(over: Partial<Absorbable> = {}): Absorbable {
  return {
    head: head([0, 0, 1], 'Negative', 100),
    startDay: 100,
    endDay: 100,
    firstDay: 100,
    lastDay: 103,
    echoesOnly: false,
    causes: [Int32Array.from([1, 0, 1])],
    size: 20,
    ...over,
  };
}

function rise(
  codes: number[],
  firstDay: number,
  lastDay = firstDay,
  over: Partial<Absorbable> = {},
): Absorbable {
  return {
    head: head(codes, 'Positive', firstDay),
    startDay: firstDay,
    endDay: lastDay,
    firstDay,
    lastDay,
    echoesOnly: false,
    causes: [],
    size: 2,
    ...over,
  };
}

describe('the return after an event joins it', () => {
  it('takes the rise of the cause the day after the gap ended', () => {
    expect(absorbInto([gap(), rise([1, 0, 1], 104), rise([1, 2, 1], 105)])).toEqual([-1, 0, 0]);
  });

  it('leaves a rise of another branch, a later rise and a longer one on their own', () => {
    const other = rise([2, 0, 1], 104);
    const later = rise([1, 0, 1], 107);
    const longer = rise([1, 0, 1], 104, 130);
    const ancestor = rise([0, 0, 0], 104);
    expect(absorbInto([gap(), other, later, longer, ancestor])).toEqual([-1, -1, -1, -1, -1]);
  });

  it('takes the return of an event whose cause is its broad series, within that series', () => {
    const broad = gap({ causes: [], head: head([1, 0, 0], 'Negative', 100) });
    expect(absorbInto([broad, rise([1, 3, 0], 104), rise([2, 3, 0], 104)])).toEqual([-1, 0, -1]);
  });

  it('takes the rise of the broad series the gap of its cause emptied, not of a series beside it', () => {
    // The gap of segment 1 on channel 1, seen on channel 1: the channel's rise the day after is its return.
    const channel = rise([0, 0, 1], 104);
    const device = rise([0, 2, 1], 104);
    expect(absorbInto([gap(), channel, device])).toEqual([-1, 0, -1]);
  });

  it('gives no return to an incident of echoes only', () => {
    expect(absorbInto([gap({ echoesOnly: true }), rise([1, 0, 1], 104)])).toEqual([-1, -1]);
  });
});
