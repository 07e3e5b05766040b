import { describe, expect, it } from 'vitest';
import { contains, generateCube, leafIn, movedShare, SMALL_CUBE } from '../../../scripts/synthetic/cube';

const tiny = { ...SMALL_CUBE, hotels: 6, days: 200, injections: 8 };

describe('synthetic hotel cube', () => {
  it('is deterministic by seed and has the series count of its grouping sets', () => {
    const a = generateCube(tiny);
    const b = generateCube(tiny);
    expect(a.rows).toBe(b.rows);
    expect(Array.from(a.rowAmount.subarray(0, 50))).toEqual(Array.from(b.rowAmount.subarray(0, 50)));
    expect(a.injections).toEqual(b.injections);
    expect(generateCube({ ...tiny, seed: 8 }).rows).not.toBe(a.rows);
    // (1 + 3 districts + 6 hotels) × (1 + 2 room types) × (1 + 2 channels)
    expect(a.seriesCount).toBe(90);
    expect(generateCube(SMALL_CUBE).seriesCount).toBe(198);
  });

  it('writes no source row for a leaf on the days of a gap injected on it', () => {
    const cube = generateCube({ ...tiny, injections: 40, seed: 3 });
    const gap = cube.injections.find((i) => i.kind === 'gap');
    expect(gap).toBeDefined();
    if (!gap) return;
    for (let r = 0; r < cube.rows; r++) {
      const leaf = cube.leaves[cube.rowLeaf[r]];
      const d = cube.rowDay[r];
      if (leafIn(leaf, gap.key)) expect(d < gap.start || d > gap.end).toBe(true);
    }
  });

  it('relates series by containment and measures how far an injection moved a series', () => {
    const hotel = { district: 'D01', hotel: 'H001', room_type: null, channel: null };
    const leaf = { district: 'D01', hotel: 'H001', room_type: 'R1', channel: 'C2' };
    const total = { district: null, hotel: null, room_type: null, channel: null };
    expect(contains(hotel, leaf)).toBe(true);
    expect(contains(leaf, hotel)).toBe(false);
    expect(contains(total, hotel)).toBe(true);
    const cube = generateCube(tiny);
    const inj = { kind: 'drop' as const, key: hotel, start: 100, end: 101, factor: 0.5 };
    expect(movedShare(cube, inj, hotel, 'count')).toBeCloseTo(0.5);
    const onTotal = movedShare(cube, inj, total, 'value');
    expect(onTotal).toBeGreaterThan(0);
    expect(onTotal).toBeLessThan(0.5);
  });
});
