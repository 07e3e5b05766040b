/** Public surface of the detection engine. */
export { assembleAnomalies } from './assemble';
export { buildCardinalityBaseline, buildPeerBaseline, sumSeries } from './baselines';
export type { PeerBaseline, PeerBaselineOptions } from './baselines';
export {
  detectSeries,
  detectShard,
  RATIO_TYPES,
  resolveDetectors,
  runDetector,
  seriesWindow,
  skipReason,
} from './detect';
export type { ResolvedDetector, SeriesWindow, ShardInput } from './detect';
export * from './params';
export { previewSeries } from './preview';
export type { SeriesPreview } from './preview';
export { anomalyTypeOf, DETECTORS, getDetector } from './registry';
export { computeSignificance } from './significance';
export type { Significance, SignificanceInput } from './significance';
export type * from './types';
export { Workspace } from './workspace';
