/** Detectors registered by name (the `type` of a definition's analysis.detectors entry). */
import type { DetectorImpl } from './detector';
import { changepoint } from './detectors/changepoint';
import { cardinality, mix, peer } from './detectors/cross';
import { gap } from './detectors/gap';
import { dod, wow } from './detectors/lag';
import { cw, mom, mpy, qoq } from './detectors/periods';
import { dt, spike } from './detectors/robust';
import type { DetectorType } from './params';
import type { AnomalyType } from './types';

export const DETECTORS: { readonly [K in DetectorType]: DetectorImpl<K> } = {
  dod,
  wow,
  mom,
  qoq,
  mpy,
  cw,
  gap,
  spike,
  changepoint,
  dt,
  peer,
  mix,
  cardinality,
};

/** The implementation registered under a detector type, or undefined. */
export function getDetector(type: string): DetectorImpl | undefined {
  return (DETECTORS as Record<string, DetectorImpl>)[type];
}

/** Display code of a detector type (dod → DOD, changepoint → ChangePoint). */
export function anomalyTypeOf(type: DetectorType): AnomalyType {
  return DETECTORS[type].code;
}
