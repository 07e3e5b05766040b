/**
 * The incident step reads the leaves of its plans in batches whose one read each stays within a budget
 * of values (leaves × days × measures), so a large view's incidents never hold all of its leaves at once.
 */
import { describe, expect, it } from 'vitest';
import type { IncidentPlan } from '../../../lib/incidents/plan';
import { valuePerEvent } from '../../../lib/dataset/series-store';
import { leafBatches } from '../../../lib/incidents/step';

function plan(fromDay: number, toDay: number, measure = 'value', leaves: number[] = []): IncidentPlan {
  return {
    members: [0],
    head: 0,
    startDay: fromDay,
    endDay: toDay,
    types: ['Spike'],
    measures: [measure],
    needs: { codes: Int32Array.from(leaves), measure, fromDay, toDay, window: [fromDay, toDay] },
  };
}

const leavesOf = (p: IncidentPlan) => Array.from(p.needs!.codes);

describe('leaf batches', () => {
  it('keeps every plan in one batch while the read fits the budget', () => {
    const plans = [plan(50, 60, 'count', [1, 2]), plan(0, 10, 'count', [1, 3])];
    // 3 leaves × 61 days × 1 measure = 183 values.
    expect(leafBatches(plans, leavesOf, 183)).toEqual([[plans[1], plans[0]]]);
  });

  it("counts a value plan as two measures: its leaves' units come from their events", () => {
    const plans = [plan(50, 60, 'value', [1, 2]), plan(0, 10, 'value', [1, 3])];
    // 3 leaves × 61 days × 2 measures = 366 values.
    expect(leafBatches(plans, leavesOf, 365)).toEqual([[plans[1]], [plans[0]]]);
    expect(leafBatches(plans, leavesOf, 366)).toEqual([[plans[1], plans[0]]]);
  });

  it('cuts the plans, in day order, where one more would pass the budget', () => {
    const a = plan(0, 9, 'count', [1, 2]);
    const b = plan(5, 14, 'count', [2, 3]);
    const c = plan(100, 109, 'ratio', [1]);
    const d = plan(20, 29, 'count', [4]);
    // a+b: 3 leaves × 15 days = 45; + d: 4 × 30 = 120 > 100; d + c: 2 leaves × 90 days × 2 measures.
    const batches = leafBatches([c, b, a, d], leavesOf, 100);
    expect(batches).toEqual([[a, b], [d], [c]]);
    expect(batches.flat()).toHaveLength(4);
  });

  it('gives a plan larger than the budget a batch of its own and skips plans without needs', () => {
    const big = plan(0, 99, 'count', [1, 2, 3]);
    const small = plan(0, 1, 'count', [1]);
    const leaf = { ...plan(0, 1), needs: null };
    expect(leafBatches([big, leaf, small], leavesOf, 50)).toEqual([[big], [small]]);
  });

  it("takes a value leaf's unit from its own days with data, 0 when the count does not vary", () => {
    const values = { values: Float64Array.of(99, 30, 20, 10, 40), present: Uint8Array.of(1, 1, 0, 1, 1) };
    const counts = { values: Float64Array.of(1, 3, 9, 1, 4) };
    // Days 1..4 with data: 1, 3 (value 30, 10, 40 over 3 + 1 + 4 events; day 2 has no data).
    expect(valuePerEvent(values.values, counts.values, values.present, 1, 4)).toBeCloseTo(80 / 8);
    expect(valuePerEvent(values.values, Float64Array.of(2, 2, 2, 2, 2), values.present, 0, 5)).toBe(0);
  });
});
