import { describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { Workspace } from '../../../lib/detection/workspace';
import {
  detectionContext,
  engineConfig,
  replaceFromDay,
  viewDetectors,
} from '../../../lib/process-job/detectors';
import { type PeerGroup, planShards } from '../../../lib/process-job/layout';
import type { SeriesBlock } from '../../../lib/dataset/series-store';
import { detectShardBlock, shardSeriesIds } from '../../../lib/process-job/shard';

const group = (parentId: number | null, category: number, memberIds: number[]): PeerGroup => ({
  parentId,
  category,
  memberIds,
});

describe('shard plan', () => {
  it('packs whole peer groups in order, starting a new shard when the next group would overflow', () => {
    const groups = [group(null, -1, [1]), group(1, 0, [2, 3]), group(2, 1, [4, 5, 6]), group(3, 1, [7])];
    expect(planShards(groups, 3).map((s) => s.groups.map((g) => g.memberIds))).toEqual([
      [[1], [2, 3]],
      [[4, 5, 6]],
      [[7]],
    ]);
  });

  it('keeps a group larger than the shard size whole, in a shard of its own', () => {
    const shards = planShards([group(null, -1, [1]), group(1, 0, [2, 3, 4, 5])], 2);
    expect(shards.map((s) => s.seriesCount)).toEqual([1, 4]);
  });

  it('lets a tail of at most a tenth of the shard size join the last shard instead of making a shard of its own', () => {
    // The hotel view cut for two workers: 1,988 + 1,985 + 5 series made a third shard of 5 series.
    const sizes = [1, 1987, 1985, 5];
    const groups = sizes.map((n, i) =>
      group(
        i === 0 ? null : 1,
        i - 1,
        Array.from({ length: n }, (_, k) => i * 10_000 + k),
      ),
    );
    expect(planShards(groups, 1989).map((s) => s.seriesCount)).toEqual([1988, 1990]);
    // A larger tail still makes its own shard.
    const bigTail = group(
      1,
      3,
      Array.from({ length: 300 }, (_, k) => 90_000 + k),
    );
    expect(planShards([...groups.slice(0, 3), bigTail], 1989).map((s) => s.seriesCount)).toEqual([
      1988, 1985, 300,
    ]);
  });

  it('reads the members of a shard and their parents', () => {
    const [shard] = planShards([group(1, 0, [2, 3]), group(2, 1, [4])], 10);
    expect(shardSeriesIds(shard).sort()).toEqual([1, 2, 3, 4]);
  });
});

describe('definition params for the engine', () => {
  it('turns the baselineDays of a cross-series detector into its window', () => {
    expect(engineConfig('peer', { baselineDays: 56, mode: 'both' })).toEqual({
      type: 'peer',
      params: { window: 56, mode: 'both' },
    });
    const [view] = viewDetectors({
      analysis: { detectors: [{ type: 'mix', params: { baselineDays: 14 } }] },
    } as never);
    expect(view.resolved.params).toMatchObject({ window: 14 });
    expect(view.resolved.params).not.toHaveProperty('baselineDays');
  });

  it('numbers the detectors in definition order, with defaults applied', () => {
    const list = viewDetectors({
      analysis: {
        detectors: [
          { type: 'wow', params: { percentualChange: 25 } },
          { type: 'DOD', params: {} },
        ],
      },
    } as never);
    expect(
      list.map((d) => [
        d.index,
        d.resolved.type,
        (d.resolved.params as { percentualChange: number }).percentualChange,
      ]),
    ).toEqual([
      [0, 'wow', 25],
      [1, 'dod', 30],
    ]);
  });
});

describe('which stored anomalies a run replaces', () => {
  const ctx = (scan: number, ignore = 0) => ({ scanInLastNDays: scan, ignoreLastNDays: ignore });
  it('replaces all without scanInLastNDays', () => {
    expect(replaceFromDay(ctx(0), 100, 30)).toBeNull();
  });
  it('replaces those ending in the last N analysed days, after the ignored days are removed', () => {
    expect(replaceFromDay(ctx(7), 100, 30)).toBe(123);
    expect(replaceFromDay(ctx(7, 2), 100, 30)).toBe(121);
  });
  it('replaces all when the scanned days cover the whole history', () => {
    expect(replaceFromDay(ctx(40), 100, 30)).toBeNull();
  });
});

/** A block of `rows` series × `days` days: row r holds values[r]. */
function block(ids: number[], values: number[][]): SeriesBlock {
  const days = values[0].length;
  const flat = new Float64Array(ids.length * days);
  for (let r = 0; r < values.length; r++) flat.set(values[r], r * days);
  return {
    dayIndex0: toEpochDay('2024-01-01'),
    days,
    ids,
    rowOf: new Map(ids.map((id, r) => [id, r])),
    values: flat,
    present: new Uint8Array(ids.length * days).fill(1),
  };
}

describe('detection of one shard', () => {
  const days = 42;
  const setup = (types: Array<{ type: string; params?: Record<string, unknown> }>, total?: Float64Array) => {
    const d0 = toEpochDay('2024-01-01');
    return {
      detectors: viewDetectors({ analysis: { detectors: types } } as never),
      ctx: detectionContext({}, d0, days),
      calendarFlags: null,
      total,
      ws: new Workspace(),
    };
  };

  it('flags the one city that did not drop when its two siblings halved, with its detector index', () => {
    // Parent 1 (CZ) has cities 2, 3, 4 at 100 a day; on day 35 cities 2 and 3 halve, city 4 holds.
    const v = (drop: boolean) => Array.from({ length: days }, (_, t) => (drop && t === 35 ? 50 : 100));
    const b = block(
      [1, 2, 3, 4],
      [v(false).map((x, t) => (t === 35 ? 200 : 3 * x)), v(true), v(true), v(false)],
    );
    const [shard] = planShards([group(1, 1, [2, 3, 4])], 10);
    const out = detectShardBlock(shard, b, setup([{ type: 'dod' }, { type: 'peer' }]));
    const peer = out.anomalies
      .toDrafts()
      .map((a, i) => ({ ...a, index: out.anomalies.detector[i] }))
      .filter((a) => a.type === 'Peer');
    expect(peer).toEqual([
      expect.objectContaining({
        seriesId: 4,
        index: 1,
        startDate: '2024-02-05',
        actualValue: 100,
        predictedValue: 50,
        result: 'Positive',
      }),
    ]);
    expect(out.baselines.peer).toHaveLength(1);
    expect(out.baselines.peer[0]).toMatchObject({ parentId: 1, category: 1, weeks: 4 });
    expect(out.baselines.peer[0].change[35]).toBeCloseTo(-0.5, 10);
  });

  it('puts cardinality anomalies on the parent, and takes share % from the total', () => {
    // Three cities; city 4 stops on day 35 (zeros, as gap filling writes them).
    const city = (stop: boolean) => Array.from({ length: days }, (_, t) => (stop && t >= 35 ? 0 : 10));
    const parent = Array.from({ length: days }, (_, t) => (t >= 35 ? 20 : 30));
    const b = block([1, 2, 3, 4], [parent, city(false), city(false), city(true)]);
    const [shard] = planShards([group(1, 1, [2, 3, 4])], 10);
    const total = Float64Array.from(parent, (x) => x * 2);
    const out = detectShardBlock(
      shard,
      b,
      setup([{ type: 'cardinality', params: { adaptAfterDays: 100, minVolume: 0 } }], total),
    );
    expect(out.anomalies.toDrafts()).toEqual([
      expect.objectContaining({
        seriesId: 1,
        type: 'Cardinality',
        startDate: '2024-02-05',
        endDate: '2024-02-11',
        actualValue: 2, // per day (the engine's figures are daily means over the window)
        predictedValue: 3,
        result: 'Negative',
        sharePct: 50,
      }),
    ]);
    expect(out.baselines.cardinality[0].counts[34]).toBe(3);
    expect(out.baselines.cardinality[0].counts[35]).toBe(2);
  });
});
