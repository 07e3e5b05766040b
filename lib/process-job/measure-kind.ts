/**
 * How the process job (and the detector preview, which passes the same input) tells the engine what a
 * series' numbers are (lib/detection/materiality.ts): the count measure is events; the value measure is
 * judged in its events when the series' count varies (valuePerEvent), and is an amount in an unknown
 * unit otherwise (a view whose count is the constant of an unused measure); a ratio block (ratio.ts) is
 * the ratio.
 */
import { type MeasureKind, materialLevel } from '../detection/materiality';
import type { SeriesBlock } from '../dataset/series-store';
import { isRatioBlock } from './ratio';

/** The kind of row `r` of a block: the value block carries valuePerEvent (0 where the count is constant). */
export function measureKindOf(block: SeriesBlock, r: number): MeasureKind {
  if (isRatioBlock(block)) return 'ratio';
  if (block.valuePerEvent === undefined) return 'events';
  return block.valuePerEvent[r] > 0 ? 'events' : 'amount';
}

/** The mean daily value of the view total over its days with a value (what an amount's default materiality is a share of). */
export function totalLevelOf(total: Float64Array | undefined): number {
  if (total === undefined) return 0;
  let sum = 0;
  let days = 0;
  for (const v of total) {
    if (v === 0 || Number.isNaN(v)) continue;
    sum += v;
    days++;
  }
  return days > 0 ? Math.abs(sum / days) : 0;
}

/**
 * The material level of each of `rows` in its own units (materiality.ts materialLevel) under the least
 * strict of `minVolumes` (one per detector, undefined = its default): minVolume events a day times the
 * row's value per event, or for an amount minVolume in its unit or a share of the view total's level.
 * Peer voters and cardinality children count from it; no detector, 0.
 */
export function materialLevels(
  block: SeriesBlock,
  rows: readonly number[],
  minVolumes: readonly (number | undefined)[],
  totalLevel: number,
): number[] {
  return rows.map((r) => {
    if (minVolumes.length === 0) return 0;
    const kind = measureKindOf(block, r);
    const perEvent = block.valuePerEvent?.[r] || 1;
    return Math.min(...minVolumes.map((v) => materialLevel(kind, v, perEvent, () => totalLevel)));
  });
}

/** The minVolume of each of the view's detectors of one type (undefined: its default), as the process job counts. */
export function minVolumesOf(
  detectors: readonly { resolved: { type: string; params: { minVolume?: number } } }[],
  type: 'peer' | 'cardinality',
): (number | undefined)[] {
  return detectors.filter((d) => d.resolved.type === type).map((d) => d.resolved.params.minVolume);
}
