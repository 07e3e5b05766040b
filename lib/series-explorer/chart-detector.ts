/**
 * The detector whose expectation a chart draws (the series explorer, Home's anomaly chart): the view's
 * first, or the view's detector of the `type` asked for. A data user may ask only for a type the view
 * has (a 400 naming `type` otherwise: another type would read groups of series the view never analyses);
 * an administrator may preview any type with its default params, as in the editor's detector preview.
 */
import { detectorTypeOf } from '../dataviews/definition/detector-params';
import { ValidationError } from '../shared/errors';

export type ChartDetector = { type: string; params?: Record<string, unknown> };

export function chartDetector(
  /** Whether the caller may preview any type (an administrator: isAdmin). */
  anyType: boolean,
  configured: readonly ChartDetector[],
  type: string | undefined,
  unknown = 'detector',
): ChartDetector | undefined {
  if (type === undefined || type === '') return configured[0];
  const wanted = detectorTypeOf(type);
  if (!wanted) throw ValidationError.field('type', `unknown ${unknown} type '${type.slice(0, 40)}'`);
  const own = configured.find((d) => detectorTypeOf(d.type) === wanted);
  if (own) return own;
  if (!anyType) {
    const types = [...new Set(configured.map((d) => detectorTypeOf(d.type) ?? d.type))];
    throw ValidationError.field(
      'type',
      `this data view has no ${wanted} detector (its detectors: ${types.join(', ') || 'none'}); only an administrator may preview another type`,
    );
  }
  return { type: wanted, params: {} };
}
