/**
 * From a validated data view definition to what the detection engine runs: engine detector configs
 * (with their index in `analysis.detectors`, stored as `detector_index`), the special-date calendar
 * and the analysis window.
 */
import { holidayCalendar, unionCalendars } from '../calendar/holidays';
import { buildSpecialCalendar, type SpecialCalendar } from '../calendar/special-calendar';
import { type ResolvedDetector, resolveDetectors } from '../detection/detect';
import { engineParamNames } from '../detection/param-specs';
import type { DetectorType } from '../detection/params';
import type { DetectionContext, DetectorConfig } from '../detection/types';
import type { DataViewAnalysis, DataViewDefinition } from '../dataviews/definition/types';

/** One detector of the view, resolved for the engine. */
export interface ViewDetector {
  /** Position in analysis.detectors (all_anomalies.detector_index). */
  index: number;
  resolved: ResolvedDetector;
}

/** Detectors that read other series (baseline tables). */
export const CROSS_TYPES: readonly DetectorType[] = ['peer', 'mix', 'cardinality'];

/**
 * Definition params → engine params: the names are the engine's (param-specs.ts) except the
 * definition's `baselineDays` of the cross-series detectors, the engine's look-back `window`.
 */
export function engineConfig(type: DetectorType, params: Record<string, unknown> = {}): DetectorConfig {
  return { type, params: engineParamNames(type, params) };
}

/** The view's detectors, defaults applied; throws ValidationError for a type or param the engine refuses. */
export function viewDetectors(def: Pick<DataViewDefinition, 'analysis'>): ViewDetector[] {
  const list = def.analysis?.detectors ?? [];
  const configs = list.map((d) =>
    engineConfig(
      String(d.type).toLowerCase() as DetectorType,
      d.params as unknown as Record<string, unknown>,
    ),
  );
  return resolveDetectors(configs).map((resolved, index) => ({ index, resolved }));
}

/** Weeks of same-weekday history behind a peer baseline: the detector's window in whole weeks. */
export function peerWeeks(d: ResolvedDetector): number {
  const window = (d.params as { window?: number }).window ?? 28;
  return Math.max(1, Math.round(window / 7));
}

/** The view's own special dates, rules and periods over the epoch days fromDay..toDay, or undefined without any. */
export function specialDatesCalendar(
  analysis: Partial<DataViewAnalysis> | undefined,
  fromDay: number,
  toDay: number,
): SpecialCalendar | undefined {
  const a = analysis ?? {};
  const listed =
    (a.specialDates?.length ?? 0) + (a.recurringRules?.length ?? 0) + (a.specialPeriods?.length ?? 0) > 0;
  return listed
    ? buildSpecialCalendar(
        { specialDates: a.specialDates, recurringRules: a.recurringRules, specialPeriods: a.specialPeriods },
        fromDay,
        toDay,
      )
    : undefined;
}

/**
 * The view's calendar over fromDay..toDay: its special dates joined with the public holidays of
 * `analysis.calendar` (a country, and its periods when switched on); undefined when it has neither.
 */
export function viewCalendar(
  analysis: Partial<DataViewAnalysis> | undefined,
  fromDay: number,
  toDay: number,
): SpecialCalendar | undefined {
  const listed = specialDatesCalendar(analysis, fromDay, toDay);
  const c = analysis?.calendar;
  if (!c?.country) return listed;
  const holidays = holidayCalendar(
    { country: c.country, state: c.state },
    fromDay,
    toDay,
    c.periods === true,
  );
  return listed ? unionCalendars(listed, holidays) : holidays;
}

/** Calendar and analysis window of the view over the epoch days dayIndex0 .. dayIndex0 + days - 1. */
export function detectionContext(
  analysis: Partial<DataViewAnalysis> | undefined,
  dayIndex0: number,
  days: number,
): DetectionContext {
  const a = analysis ?? {};
  return {
    calendar: viewCalendar(a, dayIndex0, dayIndex0 + Math.max(0, days - 1)),
    ignoreLastNDays: a.ignoreLastNDays ?? 0,
    scanInLastNDays: a.scanInLastNDays ?? 0,
    ...(a.fiscal ? { fiscal: a.fiscal } : {}),
  };
}

/**
 * First epoch day whose anomalies a run replaces: with scanInLastNDays the older ones are kept
 * (the engine reports only anomalies that reach into the scanned days); null = replace all.
 */
export function replaceFromDay(ctx: DetectionContext, dayIndex0: number, days: number): number | null {
  const scan = ctx.scanInLastNDays ?? 0;
  if (scan <= 0) return null;
  const end = Math.max(0, days - Math.max(0, ctx.ignoreLastNDays ?? 0));
  const from = end - scan;
  return from <= 0 ? null : dayIndex0 + from;
}
