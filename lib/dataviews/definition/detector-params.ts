/**
 * Detector types and their params as a data view definition spells them. Kinds, bounds, defaults
 * and meanings are the engine's table (lib/detection/param-specs.ts), so a deployed view runs with
 * the defaults the quality eval measures; docs/dataview-definition.md mirrors it. The one name that
 * differs: peer, mix and cardinality call their look-back `baselineDays` (the engine's `window`).
 */
import { definitionSpecs, MODES, type ParamSpec } from '../../detection/param-specs';
import {
  type CardinalityParams as EngineCardinalityParams,
  type ChangePointParams,
  type CommonParams,
  type DtParams,
  DETECTOR_TYPES as ENGINE_DETECTOR_TYPES,
  type DetectorType as EngineDetectorType,
  type DetectorParamsByType as EngineParamsByType,
  type GapParams,
  type PercentChangeParams,
  type SpikeParams,
  type WindowPercentParams,
} from '../../detection/params';

export type { ChangePointParams, CommonParams, DtParams, GapParams, ParamSpec, SpikeParams };

export type DetectorType = EngineDetectorType;

/** Every detector type: the engine's list (the keys of its params table). */
export const DETECTOR_TYPES: readonly DetectorType[] = ENGINE_DETECTOR_TYPES;

export const DETECTOR_MODES = MODES;
/** Which direction of change a detector reports. */
export type DetectorMode = (typeof DETECTOR_MODES)[number];

/** dod, wow, mom, qoq, mpy, cw: period-over-period comparison. */
export type ChangeParams = PercentChangeParams;
type WithBaselineDays<P> = Omit<P, 'window'> & { baselineDays: number };
export type PeerParams = WithBaselineDays<WindowPercentParams>;
export type MixParams = WithBaselineDays<WindowPercentParams>;
export type CardinalityParams = WithBaselineDays<EngineCardinalityParams>;

/** The definition's params of each type: the engine's, with `baselineDays` for the look-back of the cross detectors. */
export type DetectorParamsByType = {
  [T in DetectorType]: T extends 'peer' | 'mix' | 'cardinality'
    ? WithBaselineDays<EngineParamsByType[T]>
    : EngineParamsByType[T];
};
export type DetectorParams = DetectorParamsByType[DetectorType];

/** One configured detector with every param resolved; discriminated by `type`. */
export type DetectorConfig = {
  [T in DetectorType]: { type: T; params: DetectorParamsByType[T] };
}[DetectorType];

/** Detectors that need baseline tables (rebuilt by the "recalculate baseline" action). */
export const BASELINE_DETECTORS: readonly DetectorType[] = ['peer', 'mix', 'cardinality'];

type SpecsOf<P> = { [K in keyof P]-?: ParamSpec };

/** Every param of every detector type with its bounds and default, under the definition's names. */
export const DETECTOR_PARAM_SPECS = Object.fromEntries(
  DETECTOR_TYPES.map((type) => [type, definitionSpecs(type)]),
) as unknown as { readonly [T in DetectorType]: SpecsOf<DetectorParamsByType[T]> };

/** Params of `type` with every default applied; `overrides` win (handy in engine tests). */
export function withDefaults<T extends DetectorType>(
  type: T,
  overrides: Partial<DetectorParamsByType[T]> = {},
): DetectorParamsByType[T] {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(DETECTOR_PARAM_SPECS[type]) as [string, ParamSpec][]) {
    if (spec.default !== undefined) out[key] = spec.default;
  }
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) out[key] = value;
  return out as unknown as DetectorParamsByType[T];
}

/** Lower-case detector code for user input in any case, or undefined when unknown. */
export function detectorTypeOf(input: unknown): DetectorType | undefined {
  if (typeof input !== 'string') return undefined;
  const code = input.trim().toLowerCase();
  return (DETECTOR_TYPES as readonly string[]).includes(code) ? (code as DetectorType) : undefined;
}
