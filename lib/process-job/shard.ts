/**
 * Detection over one shard held in memory: for each peer group, the peer baselines of its members,
 * the mix input (the parent's values), the cardinality input of the parent, then every detector
 * of the view over every member. Pure: the caller reads the block and writes the results.
 */
import { buildCardinalityBaseline, buildPeerBaseline } from '../detection/baselines';
import { runDetector, seriesWindow } from '../detection/detect';
import { AnomalyColumns } from '../detection/anomaly-columns';
import type { DetectionContext, SeriesInput } from '../detection/types';
import type { Workspace } from '../detection/workspace';
import type { SeriesExclusion } from '../feedback/exclusions';
import { peerWeeks, type ViewDetector } from './detectors';
import type { Shard } from './layout';
import { rowPresent, rowValues, type SeriesBlock } from '../dataset/series-store';
import { materialLevels, measureKindOf, minVolumesOf, totalLevelOf } from './measure-kind';
import { isRatioBlock, ratioRow } from './ratio';

export interface RunSetup {
  detectors: ViewDetector[];
  ctx: DetectionContext;
  /** The view's special-day flags aligned with the block's days, or null without special dates. */
  calendarFlags: Uint8Array | null;
  /** A series' own flags (its holidays joined with the view's special dates), when categories carry calendars. */
  seriesFlags?: (seriesId: number) => Uint8Array | null;
  /** Per series: the days of its feedback (lib/feedback/exclusions.ts), kept out of baselines. */
  exclusions?: ReadonlyMap<number, SeriesExclusion>;
  /** The root series (all categories = all): the denominator of share %. */
  total: Float64Array | undefined;
  ws: Workspace;
  /** The measure is judged on an interval scale (scale.ts): in noise units, never in percent. */
  interval?: boolean;
}

export interface PeerBaselineRow {
  parentId: number;
  category: number;
  weeks: number;
  change: Float64Array;
  members: Uint16Array;
}

export interface CardinalityRow {
  parentId: number;
  category: number;
  counts: Float64Array;
}

export interface ShardBaselines {
  peer: PeerBaselineRow[];
  cardinality: CardinalityRow[];
}

export interface ShardResult {
  /** The shard's anomalies; `detector` holds each one's detector_index. */
  anomalies: AnomalyColumns;
  baselines: ShardBaselines;
}

/** A peer median needs at least this many members (buildPeerBaseline's minPeers). */
const MIN_PEERS = 3;

/** Peer and cardinality baselines of one group, per distinct peer window. */
function groupBaselines(
  members: Float64Array[],
  presents: Uint8Array[],
  weeksList: readonly number[],
  wantCardinality: boolean,
  minLevels?: number[],
  peerMinLevels?: number[],
): { peer: Map<number, { change: Float64Array; members: Uint16Array }>; counts?: Float64Array } {
  const peer = new Map<number, { change: Float64Array; members: Uint16Array }>();
  if (members.length >= MIN_PEERS) {
    for (const weeks of weeksList)
      peer.set(
        weeks,
        buildPeerBaseline(members, { presents, weeks, minPeers: MIN_PEERS, minLevels: peerMinLevels }),
      );
  }
  return {
    peer,
    counts: wantCardinality ? buildCardinalityBaseline(members, presents, minLevels) : undefined,
  };
}

/**
 * A series with feedback (lib/feedback/exclusions.ts): its feedback days apply whether or not the detector uses
 * the view's special dates. A window detector leaves special days out of the period's own total as well, so it
 * runs twice: periods that hold confirmed days are judged without them excluded (the confirmed record stays as
 * it was), every other period with the cleaned baselines.
 */
function runWithFeedback(
  input: SeriesInput,
  d: ViewDetector,
  setup: RunSetup,
  w: ReturnType<typeof seriesWindow>,
  ex: SeriesExclusion,
  out: AnomalyColumns,
): void {
  const own = d.resolved.params.useSpecialDates;
  const resolved = own
    ? d.resolved
    : { ...d.resolved, params: { ...d.resolved.params, useSpecialDates: true } };
  const flags = own ? ex.withCalendar : ex.alone;
  if (!d.resolved.impl.aggregate || ex.confirmed.length === 0) {
    runDetector(input, resolved, setup.ctx, w, flags, setup.ws, out);
    return;
  }
  const holdsConfirmed = (c: AnomalyColumns, i: number) => {
    const from = c.startDay[i];
    const to = from + c.duration[i] - 1;
    return ex.confirmed.some(([s, e]) => from <= e && to >= s);
  };
  const cleaned = new AnomalyColumns();
  runDetector(input, resolved, setup.ctx, w, flags, setup.ws, cleaned);
  const plain = new AnomalyColumns();
  runDetector(
    input,
    resolved,
    setup.ctx,
    w,
    own ? ex.withCalendarUnconfirmed : ex.aloneUnconfirmed,
    setup.ws,
    plain,
  );
  const copy = (c: AnomalyColumns, keep: boolean) => {
    for (let i = 0; i < c.length; i++) {
      if (holdsConfirmed(c, i) !== keep) continue;
      const share = c.sharePct[i];
      out.add(
        c.seriesIds[i],
        c.types[i],
        c.startDay[i],
        c.duration[i],
        c.actual[i],
        c.predicted[i],
        Number.isNaN(share) ? null : share,
        c.recurrence[i],
        c.positive[i] === 1,
        c.changeCum[i],
      );
    }
  };
  copy(cleaned, false);
  copy(plain, true);
}

/** A series' feedback exclusions joined with its own calendar instead of the view's. */
function withOwnCalendar(
  ex: SeriesExclusion,
  flags: Uint8Array | null,
  viewFlags: Uint8Array | null,
): SeriesExclusion {
  if (flags === viewFlags) return ex;
  const join = (a: Uint8Array) => {
    const out = new Uint8Array(a);
    if (flags) for (let t = 0; t < out.length && t < flags.length; t++) out[t] |= flags[t];
    return out;
  };
  return { ...ex, withCalendar: join(ex.alone), withCalendarUnconfirmed: join(ex.aloneUnconfirmed) };
}

/** Runs `d` and tags what it appended with its detector index. */
function run(
  input: SeriesInput,
  d: ViewDetector,
  setup: RunSetup,
  w: ReturnType<typeof seriesWindow>,
  out: ShardResult,
): void {
  const before = out.anomalies.length;
  const flags = setup.seriesFlags ? setup.seriesFlags(Number(input.seriesId)) : setup.calendarFlags;
  const ex = setup.exclusions?.get(Number(input.seriesId));
  if (ex === undefined) runDetector(input, d.resolved, setup.ctx, w, flags, setup.ws, out.anomalies);
  else runWithFeedback(input, d, setup, w, withOwnCalendar(ex, flags, setup.calendarFlags), out.anomalies);
  out.anomalies.tag(before, d.index);
}

/** Every anomaly of the shard's series (and the cardinality anomalies of their parents), plus the baselines used. */
export function detectShardBlock(shard: Shard, block: SeriesBlock, setup: RunSetup): ShardResult {
  const out: ShardResult = { anomalies: new AnomalyColumns(), baselines: { peer: [], cardinality: [] } };
  const rowDetectors = setup.detectors.filter((d) => d.resolved.type !== 'cardinality');
  const cardinality = setup.detectors.filter((d) => d.resolved.type === 'cardinality');
  const cardinalityMinVolumes = minVolumesOf(setup.detectors, 'cardinality');
  const peerMinVolumes = minVolumesOf(setup.detectors, 'peer');
  const totalLevel = totalLevelOf(setup.total);
  const weeksList = [
    ...new Set(setup.detectors.filter((d) => d.resolved.type === 'peer').map((d) => peerWeeks(d.resolved))),
  ];
  for (const group of shard.groups) {
    const rows = group.memberIds.map((id) => block.rowOf.get(id) as number);
    const members = rows.map((r) => rowValues(block, r));
    const presents = rows.map((r) => rowPresent(block, r));
    const parentRow = group.parentId === null ? undefined : block.rowOf.get(group.parentId);
    const parentValues = parentRow === undefined ? undefined : rowValues(block, parentRow);
    const base: ReturnType<typeof groupBaselines> =
      group.parentId === null
        ? { peer: new Map() }
        : groupBaselines(
            members,
            presents,
            weeksList,
            cardinality.length > 0 && parentValues !== undefined,
            // A child is material for cardinality at minVolume events a day (its value per event).
            cardinality.length > 0
              ? materialLevels(block, rows, cardinalityMinVolumes, totalLevel)
              : undefined,
            // A member votes in the peer median only at a material level (peer minVolume in its events).
            weeksList.length > 0 ? materialLevels(block, rows, peerMinVolumes, totalLevel) : undefined,
          );
    if (group.parentId !== null) {
      for (const [weeks, b] of base.peer)
        out.baselines.peer.push({ parentId: group.parentId, category: group.category, weeks, ...b });
    }
    for (let m = 0; m < members.length; m++) {
      const input: SeriesInput = {
        seriesId: group.memberIds[m],
        dayIndex0: block.dayIndex0,
        values: members[m],
        present: presents[m],
        totalValues: setup.total,
        parentValues,
        valuePerEvent: block.valuePerEvent?.[rows[m]],
        measureKind: setup.interval ? 'interval' : measureKindOf(block, rows[m]),
        // A ratio is judged with the events behind each day, its share % is its value's.
        ...(isRatioBlock(block) ? ratioRow(block, rows[m]) : {}),
      };
      const w = seriesWindow(input, setup.ctx);
      for (const d of rowDetectors) {
        if (d.resolved.type === 'peer') input.peerChange = base.peer.get(peerWeeks(d.resolved))?.change;
        run(input, d, setup, w, out);
      }
    }
    if (base.counts !== undefined && parentRow !== undefined && group.parentId !== null) {
      out.baselines.cardinality.push({
        parentId: group.parentId,
        category: group.category,
        counts: base.counts,
      });
      const input: SeriesInput = {
        seriesId: group.parentId,
        dayIndex0: block.dayIndex0,
        values: rowValues(block, parentRow),
        present: rowPresent(block, parentRow),
        totalValues: setup.total,
        cardinality: base.counts,
        measureKind: measureKindOf(block, parentRow),
      };
      const w = seriesWindow(input, setup.ctx);
      for (const d of cardinality) run(input, d, setup, w, out);
    }
  }
  return out;
}

/** The series a shard reads: its members and their parents. */
export function shardSeriesIds(shard: Shard): number[] {
  const ids = new Set<number>();
  for (const g of shard.groups) {
    for (const id of g.memberIds) ids.add(id);
    if (g.parentId !== null) ids.add(g.parentId);
  }
  return [...ids];
}

/** Only the baselines of a shard (Recalculate baseline tables): peer per window, cardinality when asked. */
export function shardBaselines(
  shard: Shard,
  block: SeriesBlock,
  weeksList: readonly number[],
  wantCardinality: boolean,
  /** The peer and cardinality detectors' minVolume (undefined: the default): members and children count when material. */
  minVolumes: { peer: readonly (number | undefined)[]; cardinality: readonly (number | undefined)[] } = {
    peer: [],
    cardinality: [],
  },
  /** The view total's mean daily value (measure-kind.ts totalLevelOf): an amount's default materiality. */
  totalLevel = 0,
): ShardBaselines {
  const out: ShardBaselines = { peer: [], cardinality: [] };
  for (const group of shard.groups) {
    if (group.parentId === null) continue;
    const rows = group.memberIds.map((id) => block.rowOf.get(id) as number);
    const base = groupBaselines(
      rows.map((r) => rowValues(block, r)),
      rows.map((r) => rowPresent(block, r)),
      weeksList,
      wantCardinality,
      materialLevels(block, rows, minVolumes.cardinality, totalLevel),
      materialLevels(block, rows, minVolumes.peer, totalLevel),
    );
    for (const [weeks, b] of base.peer)
      out.peer.push({ parentId: group.parentId, category: group.category, weeks, ...b });
    if (base.counts)
      out.cardinality.push({ parentId: group.parentId, category: group.category, counts: base.counts });
  }
  return out;
}
