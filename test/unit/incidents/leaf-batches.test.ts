/**
 * The incident step reads the leaves of its plans in batches whose one read each stays within a budget
 * of values (leaves × days × measures), so a large view's incidents never hold all of its leaves at once.
 */
import { describe, expect, it } from 'vitest';
import type { IncidentPlan } from '../../../lib/incidents/plan';
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
    const plans = [plan(50, 60, 'value', [1, 2]), plan(0, 10, 'value', [1, 3])];
    // 3 leaves × 61 days × 1 measure = 183 values.
    expect(leafBatches(plans, leavesOf, 183)).toEqual([[plans[1], plans[0]]]);
  });

  it('cuts the plans, in day order, where one more would pass the budget', () => {
    const a = plan(0, 9, 'value', [1, 2]);
    const b = plan(5, 14, 'value', [2, 3]);
    const c = plan(100, 109, 'ratio', [1]);
    const d = plan(20, 29, 'value', [4]);
    // a+b: 3 leaves × 15 days = 45; + d: 4 × 30 = 120 > 100; d + c: 2 leaves × 90 days × 2 measures.
    const batches = leafBatches([c, b, a, d], leavesOf, 100);
    expect(batches).toEqual([[a, b], [d], [c]]);
    expect(batches.flat()).toHaveLength(4);
  });

  it('gives a plan larger than the budget a batch of its own and skips plans without needs', () => {
    const big = plan(0, 99, 'value', [1, 2, 3]);
    const small = plan(0, 1, 'value', [1]);
    const leaf = { ...plan(0, 1), needs: null };
    expect(leafBatches([big, leaf, small], leavesOf, 50)).toEqual([[big], [small]]);
  });
});
