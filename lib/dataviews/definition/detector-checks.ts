/** Semantic checks of `analysis.detectors`: known type, typed params, cross-param rules, duplicates. */
import { checkParam } from '../../detection/param-specs';
import type { FieldError } from '../../shared/errors';
import {
  DETECTOR_PARAM_SPECS,
  DETECTOR_TYPES,
  type DetectorConfig,
  type DetectorType,
  detectorTypeOf,
  type ParamSpec,
} from './detector-params';
import { isRecord, stableKey } from './util';

/** Resolves the params of one detector (defaults applied), reporting each bad param at its own path. */
export function checkDetectorParams(
  type: DetectorType,
  raw: unknown,
  path: string,
): { params: Record<string, unknown>; errors: FieldError[] } {
  const specs = DETECTOR_PARAM_SPECS[type] as Record<string, ParamSpec>;
  const errors: FieldError[] = [];
  const given = isRecord(raw) ? raw : {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(specs, key)) {
      errors.push({
        path: `${path}.${key}`,
        message: `is not a parameter of the ${type} detector (known: ${Object.keys(specs).join(', ')})`,
      });
    }
  }
  // Params come out in table order, so stored definitions read the same whatever the input order.
  const params: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const value = given[key];
    // YAML `key:` with nothing after it means "not set", so the default applies.
    if (value === undefined || value === null) {
      if (spec.default !== undefined) params[key] = spec.default;
      continue;
    }
    const checked = checkParam(spec, value);
    if (checked.error) errors.push({ path: `${path}.${key}`, message: checked.error });
    else params[key] = checked.value;
  }
  const { minValue, maxValue, longerThan, shorterThan } = params as Record<string, number | undefined>;
  if (minValue !== undefined && maxValue !== undefined && minValue > maxValue) {
    errors.push({ path: `${path}.maxValue`, message: `must not be smaller than minValue (${minValue})` });
  }
  if (type === 'gap' && longerThan !== undefined && shorterThan !== undefined && longerThan >= shorterThan) {
    errors.push({ path: `${path}.shorterThan`, message: `must be greater than longerThan (${longerThan})` });
  }
  return { params, errors };
}

/** Checks the detector list; returns resolved detectors (meaningful only when errors is empty). */
export function checkDetectors(
  raw: unknown,
  path: string,
): { detectors: DetectorConfig[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const detectors: DetectorConfig[] = [];
  if (!Array.isArray(raw)) return { detectors, errors };
  const seen = new Map<string, number>();
  raw.forEach((item, i) => {
    if (!isRecord(item) || typeof item.type !== 'string') return; // shape errors come from the schema
    const type = detectorTypeOf(item.type);
    if (!type) {
      errors.push({
        path: `${path}[${i}].type`,
        message: `unknown detector type '${item.type}'; expected one of: ${DETECTOR_TYPES.join(', ')}`,
      });
      return;
    }
    const checked = checkDetectorParams(type, item.params, `${path}[${i}].params`);
    errors.push(...checked.errors);
    if (checked.errors.length > 0) return;
    // Two identical detectors would report every anomaly twice.
    const key = stableKey({ type, params: checked.params });
    const first = seen.get(key);
    if (first !== undefined) {
      errors.push({ path: `${path}[${i}]`, message: `duplicates ${path}[${first}] (same type and params)` });
    } else seen.set(key, i);
    detectors.push({ type, params: checked.params } as unknown as DetectorConfig);
  });
  return { detectors, errors };
}
