/**
 * The ratio measure of a view (value ÷ count per day: the average rate, the average basket), derived at
 * detection time from the value and count series, so that nothing about it is stored. Every series of
 * the cube is a sum of its leaves, so its ratio is Σ value ÷ Σ count at its own level, never an average
 * of its children's ratios.
 */
import type { AnalysedMeasure, DataViewAnalysis } from '../dataviews/definition/types';
import { rowValues, type SeriesBlock, type SeriesMeasure } from '../dataset/series-store';

/** A block of ratios with what judges them: the events behind each day and the value whose share is shown. */
export interface RatioBlock extends SeriesBlock {
  /** The count of each row and day (row-major, as values): the events behind each ratio. */
  weights: Float64Array;
  /** The value of each row and day: a ratio anomaly's share % is its value's share of the view's total. */
  shareOf: Float64Array;
}

/** Whether a block is a ratio block. */
export function isRatioBlock(block: SeriesBlock): block is RatioBlock {
  return (block as Partial<RatioBlock>).weights !== undefined;
}

/**
 * The ratio block of the same series and days: value ÷ count where the count is positive; a day without
 * events has no ratio, so it is a day without data (its value repeats the last ratio, for the window
 * detectors that read it) and weighs nothing.
 */
export function ratioBlock(value: SeriesBlock, count: SeriesBlock): RatioBlock {
  const { days } = value;
  const n = value.values.length;
  const values = new Float64Array(n);
  const present = new Uint8Array(n);
  for (let r = 0; r < value.ids.length; r++) {
    const from = r * days;
    let last = Number.NaN;
    let firstKnown = -1;
    for (let i = from; i < from + days; i++) {
      const c = count.values[i];
      if (c > 0 && value.present[i] !== 0) {
        last = value.values[i] / c;
        present[i] = 1;
        if (firstKnown < 0) firstKnown = i;
      }
      values[i] = last;
    }
    // Days before the first ratio take the first one (nothing judges them: analysis starts at the first day with data).
    const first = firstKnown < 0 ? 0 : values[firstKnown];
    for (let i = from; i < (firstKnown < 0 ? from + days : firstKnown); i++) values[i] = first;
  }
  return {
    dayIndex0: value.dayIndex0,
    days,
    ids: value.ids,
    rowOf: value.rowOf,
    values,
    present,
    weights: count.values,
    shareOf: value.values,
  };
}

/** Rows of a ratio block: the counts (weights) and values of row r as views. */
export function ratioRow(block: RatioBlock, r: number): { weights: Float64Array; shareOf: Float64Array } {
  const from = r * block.days;
  return {
    weights: block.weights.subarray(from, from + block.days),
    shareOf: block.shareOf.subarray(from, from + block.days),
  };
}

/**
 * The measures a view's detection analyses: `analysis.measures` when set (count and ratio need a
 * count column, which validation ensures), else value, and count and ratio when the count varies.
 */
export function analysedMeasures(
  analysis: Pick<DataViewAnalysis, 'measures'> | undefined,
  countVaries: boolean,
): AnalysedMeasure[] {
  const chosen = analysis?.measures;
  if (chosen !== undefined && chosen.length > 0) {
    const order: AnalysedMeasure[] = ['value', 'count', 'ratio'];
    return order.filter((m) => chosen.includes(m));
  }
  return countVaries ? ['value', 'count', 'ratio'] : ['value'];
}

/** The stored measures a set of analysed measures reads: the ratio reads both. */
export function measuresToRead(measures: readonly AnalysedMeasure[]): SeriesMeasure[] {
  const read = new Set<SeriesMeasure>();
  for (const m of measures) {
    if (m === 'value' || m === 'ratio') read.add('value');
    if (m === 'count' || m === 'ratio') read.add('count');
  }
  return (['value', 'count'] as const).filter((m) => read.has(m));
}

/** One block per analysed measure (in their order) from the blocks read for measuresToRead. */
export function blocksOf(
  measures: readonly AnalysedMeasure[],
  read: readonly SeriesMeasure[],
  blocks: readonly SeriesBlock[],
): SeriesBlock[] {
  const of = (m: SeriesMeasure) => blocks[read.indexOf(m)];
  return measures.map((m) => (m === 'ratio' ? ratioBlock(of('value'), of('count')) : of(m)));
}

/** The view total of a measure: the ratio's share % is taken on the value's total. */
export function totalOf(
  measure: AnalysedMeasure,
  root: { value?: SeriesBlock; count?: SeriesBlock },
): Float64Array | undefined {
  const block = measure === 'count' ? root.count : root.value;
  return block === undefined ? undefined : rowValues(block, 0);
}
