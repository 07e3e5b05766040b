import { describe, expect, it } from 'vitest';
import { buildPeerBaseline } from '../../../lib/detection/baselines';

describe('buildPeerBaseline and days without source data', () => {
  // Five members at a steady 100 a day; day 30 the source brought nothing (zero, not present).
  const n = 60;
  const members = Array.from({ length: 5 }, () => new Float64Array(n).fill(100));
  const presents = members.map(() => new Uint8Array(n).fill(1));
  for (let i = 0; i < 5; i++) {
    members[i][30] = 0;
    presents[i][30] = 0;
  }

  it('leaves a missing day out of the members’ normal level in the weeks after it', () => {
    const b = buildPeerBaseline(members, { presents });
    // The same weekday 1–4 weeks after the missing day: the members did not move.
    for (const t of [37, 44, 51, 58]) expect(b.change[t]).toBeCloseTo(0, 9);
    // The missing day itself does not vote.
    expect(b.members[30]).toBe(0);
  });
});
