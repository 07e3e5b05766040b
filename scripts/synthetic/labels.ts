/** Ground truth of the synthetic data: what was injected where, and which detectors should see it. */
import type { SpecialDatesConfig } from '../../lib/calendar/special-calendar';
import type { AnomalyType } from '../../lib/detection/types';

export type InjectionKind =
  | 'spike'
  | 'drop'
  | 'level-shift'
  | 'gap'
  | 'mix-shift'
  | 'common-shock'
  | 'appear'
  | 'disappear';

/** Detectors that judge values: any of them may legitimately react to a change of values. */
export const VALUE_TYPES: AnomalyType[] = [
  'DOD',
  'WOW',
  'MOM',
  'QOQ',
  'MPY',
  'CW',
  'Spike',
  'ChangePoint',
  'DT',
  'Peer',
  'Mix',
];

export interface Label {
  kind: InjectionKind;
  seriesId: number;
  /** Index of the first and last affected day (inclusive) in the view's arrays. */
  start: number;
  end: number;
  /** Detectors expected to report it (recall). */
  expect: AnomalyType[];
  /** Detectors whose findings overlapping it are caused by it (precision). */
  allow: AnomalyType[];
  /** False for the echo of an injection in a parent series. */
  primary: boolean;
}

export interface SyntheticSeries {
  id: number;
  name: string;
  parentId: number | null;
  childIds: number[];
}

export interface SyntheticView {
  dayIndex0: number;
  days: number;
  series: SyntheticSeries[];
  /** Values after zero gap filling, per series. */
  values: Float64Array[];
  present: Uint8Array[];
  labels: Label[];
  specialDates: SpecialDatesConfig;
}
