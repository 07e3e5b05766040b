/** The root cause of an incident headed by a ratio: the segments whose rate moved, or the mix. */
import { describe, expect, it } from 'vitest';
import type { MemberRecord } from '../../../lib/incidents/grouping';
import type { Lattice } from '../../../lib/incidents/lattice';
import type { LeafDays } from '../../../lib/incidents/leaf-window';
import { explainPlan, planGroup } from '../../../lib/incidents/plan';
import type { RatioCause } from '../../../lib/incidents/ratio-contributions';

const lattice: Lattice = { categories: ['hotel', 'channel'], parents: [-1, -1] };
const START = 56;
const END = 62;

/** 3 hotels × 2 channels, 63 days; hotel h sells 40 nights a day at 80·h, changed in the window by `f`. */
function leaves(f: (h: number, t: number) => { nights: number; rate: number }): LeafDays[] {
  const out: LeafDays[] = [];
  for (let h = 1; h <= 3; h++)
    for (let c = 1; c <= 2; c++) {
      const values = new Float64Array(END + 1);
      const counts = new Float64Array(END + 1);
      for (let t = 0; t <= END; t++) {
        const wiggle = 1 + 0.01 * (((t * 7 + h * 3 + c) % 5) - 2);
        const { nights, rate } = t >= START ? f(h, t) : { nights: 40, rate: 80 * h };
        counts[t] = nights;
        values[t] = nights * rate * wiggle;
      }
      out.push({ codes: new Int32Array([h, c]), values, counts, unit: 1 });
    }
  return out;
}

function head(result: 'Positive' | 'Negative'): MemberRecord {
  return {
    id: 1,
    seriesId: 1,
    codes: new Int32Array([0, 0]),
    measure: 'ratio',
    type: 'DT',
    result,
    startDay: START,
    endDay: END,
    actualValue: null,
    predictedValue: null,
    changeCum: null,
    sin: 1,
  };
}

describe('an incident headed by a ratio', () => {
  it('names the hotel whose rate fell, per event', () => {
    const records = [head('Negative')];
    const plan = planGroup(records, [0]);
    const x = explainPlan(
      lattice,
      records,
      plan,
      leaves((h) => ({ nights: 40, rate: 80 * h * (h === 2 ? 0.6 : 1) })),
    );
    expect(x.broad).toBe(false);
    expect(x.expected).toBeGreaterThan(150);
    expect(x.causes[0]).toMatchObject({ effect: 'rate', codes: new Int32Array([2, 0]) });
    expect((x.causes[0] as RatioCause).rateEffect).toBeLessThan(0);
  });

  it('says the mix moved when the dearest hotel sold twice the nights at its usual rate', () => {
    const records = [head('Positive')];
    const plan = planGroup(records, [0]);
    const x = explainPlan(
      lattice,
      records,
      plan,
      leaves((h) => ({ nights: h === 3 ? 80 : 40, rate: 80 * h })),
    );
    expect(x.broad).toBe(false);
    expect(x.causes).toHaveLength(1);
    expect(x.causes[0]).toMatchObject({ effect: 'mix', mixOf: 'hotel' });
  });
});
