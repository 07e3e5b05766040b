/** Validation of a data view definition: JSON Schema, then every semantic rule, then the typed result. */
import { type FieldError, ValidationError } from '../../shared/errors';
import { checkCategoryCalendars, checkViewCalendar, fiscalOf, type ViewCalendar } from './calendar-checks';
import { checkDetectors } from './detector-checks';
import type { DetectorConfig } from './detector-params';
import { dataviewSchema, schemaErrors } from './schema';
import { checkAnalysisWindow, checkCategories, checkMeasures, checkSource } from './semantic-checks';
import { checkSpecialDates } from './special-dates';
import type { DataViewCategory, DataViewDefinition, DefinitionContext, MeasureProperty } from './types';
import { isRecord } from './util';

export { lockedFieldsChanged } from './locked-fields';

type SchemaNode = { properties?: Record<string, SchemaNode>; default?: unknown };

/** A property default from the JSON Schema, so the typed builder and the schema cannot disagree. */
function schemaDefault<T>(...path: string[]): T {
  let node = dataviewSchema as SchemaNode;
  for (const key of path) node = node.properties?.[key] as SchemaNode;
  return node.default as T;
}

const DEFAULTS = {
  loadMode: schemaDefault<DataViewDefinition['source']['loadMode']>('source', 'loadMode'),
  trigger: schemaDefault<DataViewDefinition['source']['trigger']>('source', 'trigger'),
  fillGapMethod: schemaDefault<DataViewDefinition['analysis']['fillGapMethod']>('analysis', 'fillGapMethod'),
  ignoreLastNDays: schemaDefault<number>('analysis', 'ignoreLastNDays'),
  scanInLastNDays: schemaDefault<number>('analysis', 'scanInLastNDays'),
};

/**
 * Validates a parsed definition (see parse.ts) and returns it typed with defaults applied.
 * Throws one ValidationError listing every field at fault; read-only fields (id, state,
 * createdAt, updatedAt) are accepted and dropped.
 */
export function validateDefinition(doc: unknown, ctx: DefinitionContext): DataViewDefinition {
  const errors: FieldError[] = [...schemaErrors(doc)];
  if (!isRecord(doc)) throw invalid(errors);

  // Semantic checks run even when the shape is wrong elsewhere, so one round trip shows every problem.
  errors.push(...checkSource(doc.source, doc.categories, ctx));
  errors.push(...checkCategories(doc.categories));
  const analysis = isRecord(doc.analysis) ? doc.analysis : {};
  errors.push(...checkAnalysisWindow(analysis));
  errors.push(...checkMeasures(analysis, doc.source));
  const detectors = checkDetectors(analysis.detectors ?? [], 'analysis.detectors');
  errors.push(...detectors.errors);
  const calendar = checkSpecialDates(analysis, 'analysis');
  errors.push(...calendar.errors);
  const holidays = checkViewCalendar(analysis.calendar, 'analysis.calendar');
  errors.push(...holidays.errors);
  errors.push(...checkCategoryCalendars(doc.categories, holidays.calendar?.country));

  if (errors.length > 0) throw invalid(errors);
  const fiscal = fiscalOf(analysis.fiscal);
  const { specialDates, recurringRules, specialPeriods } = calendar;
  return build(doc as unknown as RawDefinition, detectors.detectors, {
    specialDates,
    recurringRules,
    specialPeriods,
    ...(holidays.calendar ? { calendar: holidays.calendar } : {}),
    ...(fiscal ? { fiscal } : {}),
  });
}

function invalid(errors: FieldError[]): ValidationError {
  const list = errors.length > 0 ? errors : [{ path: '', message: 'must be a data view definition object' }];
  const [first] = list;
  const more = list.length > 1 ? ` (and ${list.length - 1} more)` : '';
  return new ValidationError(
    `Invalid data view definition: ${first.path || 'body'} ${first.message}${more}.`,
    list,
  );
}

/** The document as the schema guarantees it, optional fields possibly null. */
interface RawDefinition {
  metadata: Record<string, string | boolean | null | undefined> & { name: string; domain: string };
  source: Record<string, string | null | undefined> & {
    connector: string;
    dateColumn: string;
    valueColumn: string;
    loadQuery: string;
  };
  categories: Array<{
    name: string;
    label: string;
    parent?: string | null;
    calendar?: 'country' | 'state' | null;
    calendarCodes?: Record<string, string> | null;
  }>;
  analysis?: Record<string, unknown>;
}

/** Drops null, undefined and (for free text) blank values so "unset" has one spelling. */
function present<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(
    Object.entries(obj).filter(
      ([, v]) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === ''),
    ),
  ) as T;
}

/** The measure properties without null entries; undefined when none is set. */
function measurePropertiesOf(raw: unknown): DataViewDefinition['analysis']['measureProperties'] {
  if (raw === null || typeof raw !== 'object') return undefined;
  const out: NonNullable<DataViewDefinition['analysis']['measureProperties']> = {};
  for (const m of ['value', 'count', 'ratio'] as const) {
    const p = (raw as Record<string, Record<string, unknown> | null | undefined>)[m];
    if (!p) continue;
    const kept = present({ badWhen: p.badWhen, scale: p.scale }) as MeasureProperty;
    if (Object.keys(kept).length > 0) out[m] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function build(
  doc: RawDefinition,
  detectors: DetectorConfig[],
  calendar: Pick<DataViewDefinition['analysis'], 'specialDates' | 'recurringRules' | 'specialPeriods'> & {
    calendar?: ViewCalendar;
    fiscal?: DataViewDefinition['analysis']['fiscal'];
  },
): DataViewDefinition {
  const { metadata: m, source: s } = doc;
  const analysis = doc.analysis ?? {};
  return {
    schemaVersion: 3,
    metadata: present({
      name: m.name,
      domain: m.domain,
      description: m.description as string | undefined,
      tags: m.tags as string | undefined,
      dataSource: m.dataSource as string | undefined,
      enabled: m.enabled as boolean | undefined,
    }),
    source: present({
      connector: s.connector,
      dateColumn: s.dateColumn,
      valueColumn: s.valueColumn,
      countColumn: s.countColumn ?? undefined,
      loadMode: (s.loadMode ?? DEFAULTS.loadMode) as DataViewDefinition['source']['loadMode'],
      trigger: (s.trigger ?? DEFAULTS.trigger) as DataViewDefinition['source']['trigger'],
      cron: s.cron?.trim() || undefined,
      loadQuery: s.loadQuery,
      customLoadQuery: s.customLoadQuery ?? undefined,
      allowEmptyLoad: (s.allowEmptyLoad as unknown as boolean | undefined) ?? undefined,
    }),
    categories: doc.categories.map(
      (c) =>
        present({
          name: c.name,
          label: c.label,
          parent: c.parent,
          calendar: c.calendar,
          calendarCodes:
            c.calendar && c.calendarCodes && Object.keys(c.calendarCodes).length
              ? c.calendarCodes
              : undefined,
        }) as DataViewCategory,
    ),
    analysis: {
      fillGapMethod: (analysis.fillGapMethod ??
        DEFAULTS.fillGapMethod) as DataViewDefinition['analysis']['fillGapMethod'],
      ignoreLastNDays: (analysis.ignoreLastNDays ?? DEFAULTS.ignoreLastNDays) as number,
      scanInLastNDays: (analysis.scanInLastNDays ?? DEFAULTS.scanInLastNDays) as number,
      ...present({
        measures: analysis.measures as DataViewDefinition['analysis']['measures'],
        ratioLabel: typeof analysis.ratioLabel === 'string' ? analysis.ratioLabel.trim() : undefined,
        measureProperties: measurePropertiesOf(analysis.measureProperties),
      }),
      detectors,
      ...calendar,
    },
  };
}

/** Comma-separated `metadata.tags` as trimmed, non-empty labels. */
export function tagList(tags: string | undefined | null): string[] {
  return (tags ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}
