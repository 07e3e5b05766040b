import { describe, expect, it } from 'vitest';
import { buildCardinalityBaseline, buildPeerBaseline, sumSeries } from '../../../lib/detection/baselines';
import { detectSeries } from '../../../lib/detection/detect';
import { dateOf, flat, series, weekly } from './helpers';

describe('peer baseline', () => {
  it('lets only members at a material level vote (minLevels): tiny members move by ±100 % at random', () => {
    const big = [flat(60, 100), flat(60, 200), flat(60, 150)];
    const tiny = [flat(60, 2), flat(60, 3), flat(60, 1)];
    for (const m of tiny) m[40] = m[40] * 3; // +200 % on one day
    big[0][40] = 110; // +10 %
    const all = [...big, ...tiny];
    const levels = all.map(() => 10);
    expect(buildPeerBaseline(all).change[40]).toBeCloseTo(1.05, 10); // the tiny ones pull the median up
    const material = buildPeerBaseline(all, { minLevels: levels });
    expect(material.members[40]).toBe(3);
    expect(material.change[40]).toBeCloseTo(0, 10);
  });

  it('is the median of the members’ changes against their own same-weekday mean', () => {
    const members = [flat(60, 100), flat(60, 200), flat(60, 50)];
    members[0][40] = 150; // +50 %
    members[1][40] = 100; // -50 %
    members[2][40] = 55; // +10 %
    const { change, members: voters } = buildPeerBaseline(members);
    expect(change[40]).toBeCloseTo(0.1, 10);
    expect(voters[40]).toBe(3);
    expect(change[41]).toBe(0);
    expect(Number.isNaN(change[27])).toBe(true); // fewer than 4 weeks of history
  });

  it('leaves days with fewer than minPeers voting members without a baseline', () => {
    const present = new Uint8Array(60).fill(1);
    present[40] = 0;
    const { change } = buildPeerBaseline([flat(60, 1), flat(60, 1), flat(60, 1)], { presents: [present] });
    expect(Number.isNaN(change[40])).toBe(true);
  });
});

describe('peer', () => {
  it('flags the one member that did not move when its peers halved', () => {
    const members = [0, 1, 2, 3].map(() => weekly(70, [100, 100, 100, 100, 100, 60, 50]));
    for (const m of members.slice(0, 3)) m[50] /= 2;
    const { change } = buildPeerBaseline(members);
    const outlier = detectSeries(series(members[3], { peerChange: change }), [{ type: 'peer' }]);
    expect(outlier).toHaveLength(1);
    expect(outlier[0]).toMatchObject({
      type: 'Peer',
      startDate: dateOf(50),
      actualValue: 100,
      predictedValue: 50,
      result: 'Positive',
    });
    expect(detectSeries(series(members[0], { peerChange: change }), [{ type: 'peer' }])).toEqual([]);
  });

  it('is skipped without a peer baseline', () => {
    expect(detectSeries(series(flat(70, 1)), [{ type: 'peer' }])).toEqual([]);
  });
});

describe('mix', () => {
  it('flags a child whose share of its parent grows while the parent holds', () => {
    const child = flat(70, 3000);
    const other = flat(70, 7000);
    child.fill(4500, 50, 53);
    other.fill(5500, 50, 53);
    const parent = sumSeries([child, other]);
    const anomalies = detectSeries(series(child, { parentValues: parent }), [{ type: 'mix' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'Mix',
      startDate: dateOf(50),
      duration: 3,
      actualValue: 4500,
      predictedValue: 3000,
      result: 'Positive',
    });
  });

  it('does not flag a child that grows together with its parent', () => {
    const child = flat(70, 30);
    const parent = flat(70, 100);
    child.fill(45, 50, 53);
    parent.fill(150, 50, 53);
    expect(detectSeries(series(child, { parentValues: parent }), [{ type: 'mix' }])).toEqual([]);
  });
});

describe('cardinality', () => {
  it('counts the children with a non-zero value each day', () => {
    const children = [flat(5, 1), flat(5, 0), flat(5, 3)];
    children[1][2] = 4;
    expect(Array.from(buildCardinalityBaseline(children))).toEqual([2, 2, 3, 2, 2]);
  });

  it('counts only material children with minLevels: a child selling a few a week neither appears nor disappears', () => {
    const material = flat(120, 20);
    // A sparse child: 1 on every third day.
    const sparse = Float64Array.from({ length: 120 }, (_, t) => (t % 3 === 0 ? 1 : 0));
    const counts = buildCardinalityBaseline([material, sparse], undefined, [10, 10]);
    // Material (its mean reaches 10), so it counts from its first day; the sparse child never.
    expect(Array.from(counts.subarray(0, 10))).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(Math.max(...counts)).toBe(1);
    // A material child that stops counts as gone on the days it has nothing.
    material.fill(0, 100, 105);
    const gone = buildCardinalityBaseline([material, sparse], undefined, [10, 10]);
    expect(Array.from(gone.subarray(99, 106))).toEqual([1, 0, 0, 0, 0, 0, 1]);
  });

  it('a child growing across the material level counted all along; one that opens counts from its first day', () => {
    // 6 a day for 100 days, then 14: material (its mean reaches 10), above half of it throughout.
    const growing = Float64Array.from({ length: 200 }, (_, t) => (t < 100 ? 6 : 14));
    const opening = Float64Array.from({ length: 200 }, (_, t) => (t < 150 ? 0 : 20));
    const counts = buildCardinalityBaseline([growing, opening], undefined, [10, 10]);
    expect(Array.from(counts.subarray(95, 105))).toEqual(Array(10).fill(1));
    expect(Array.from(counts.subarray(148, 152))).toEqual([1, 1, 2, 2]);
    // Fading to 2 a day: still the same child on the days it has a value.
    const fading = Float64Array.from({ length: 200 }, (_, t) => (t < 100 ? 20 : 2));
    const faded = buildCardinalityBaseline([fading], undefined, [10]);
    expect(faded[199]).toBe(1);
  });

  it('flags a parent when one of its five children disappears, for adaptAfterDays days', () => {
    const children = [0, 1, 2, 3, 4].map(() => flat(90, 10));
    children[4].fill(0, 50);
    const counts = buildCardinalityBaseline(children);
    const anomalies = detectSeries(series(sumSeries(children), { cardinality: counts }), [
      { type: 'cardinality' },
    ]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      type: 'Cardinality',
      startDate: dateOf(50),
      duration: 7,
      actualValue: 4,
      predictedValue: 5,
      result: 'Negative',
    });
  });

  it('flags a new child value as positive', () => {
    const children = [0, 1, 2].map(() => flat(90, 10));
    children[2].fill(0, 0, 60);
    const counts = buildCardinalityBaseline(children);
    const [a] = detectSeries(series(sumSeries(children), { cardinality: counts }), [{ type: 'cardinality' }]);
    expect(a).toMatchObject({ startDate: dateOf(60), result: 'Positive' });
  });
});
