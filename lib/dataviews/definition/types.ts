/** The validated data view definition (Fact JSON, schemaVersion 3) with every default applied. */
import type { FiscalCalendar } from '../../calendar/fiscal';
import type { ViewCalendar } from './calendar-checks';
import type { DetectorConfig } from './detector-params';
import type { RecurringRule, SpecialDate, SpecialPeriod } from './special-dates';

export type LoadMode = 'full' | 'incremental';
export type LoadTrigger = 'cron' | 'api';
export type FillGapMethod = 'zero' | 'linear' | 'previous';
/** Read-only lifecycle state returned by GET; never part of what a client defines. */
export type DataViewState = 'prepared' | 'disabled' | 'enabled';

export interface DataViewMetadata {
  name: string;
  domain: string;
  description?: string;
  /** Comma-separated, as written; see `tagList` for the parsed labels. */
  tags?: string;
  dataSource?: string;
  enabled?: boolean;
}

export interface DataViewSource {
  connector: string;
  dateColumn: string;
  valueColumn: string;
  countColumn?: string;
  loadMode: LoadMode;
  trigger: LoadTrigger;
  /** Present (and valid) whenever trigger is cron. */
  cron?: string;
  loadQuery: string;
  customLoadQuery?: string;
  /** Accept empty full loads and incremental batches that drop many days (off: such loads fail, the data stays). */
  allowEmptyLoad?: boolean;
}

export interface DataViewCategory {
  name: string;
  label: string;
  parent?: string;
  /** The values are countries (or states): each series uses its own holidays (see ViewCalendar). */
  calendar?: 'country' | 'state';
  /** Values mapped to country or state codes where the value is neither a code nor a known name. */
  calendarCodes?: Record<string, string>;
}

/** A measure detection can analyse: the value column, the count column, or value ÷ count per day. */
export type AnalysedMeasure = 'value' | 'count' | 'ratio';

/** The direction of a measure that is bad news (docs/dataview-definition.md, "Measure properties"). */
export type BadWhen = 'fall' | 'rise' | 'both';
/** ratio: zero means none, changes in percent; interval: an arbitrary zero, changes in noise units. */
export type MeasureScale = 'ratio' | 'interval';

export interface MeasureProperty {
  badWhen?: BadWhen;
  /** Unset: interval when the view total's values cross zero, else ratio. */
  scale?: MeasureScale;
}

export interface DataViewAnalysis {
  fillGapMethod: FillGapMethod;
  /**
   * The measures analysed; unset: value, and count and ratio when the view's count varies (see
   * docs/dataview-definition.md, "Measures and units").
   */
  measures?: AnalysedMeasure[];
  /** The ratio's name where records are shown; unset: `<valueColumn> per <countColumn>`. */
  ratioLabel?: string;
  /** Per measure: the direction that is bad news and the scale; unset entries are left out. */
  measureProperties?: Partial<Record<AnalysedMeasure, MeasureProperty>>;
  ignoreLastNDays: number;
  /** 0 means the whole history. */
  scanInLastNDays: number;
  detectors: DetectorConfig[];
  specialDates: SpecialDate[];
  recurringRules: RecurringRule[];
  specialPeriods: SpecialPeriod[];
  /** Public holidays of a country (and state), codes of the holiday library; unset: none. */
  calendar?: ViewCalendar;
  /** The fiscal calendar the period detectors, filters and summaries use; unset: calendar periods. */
  fiscal?: FiscalCalendar;
}

/**
 * A definition as validateDefinition returns it: still a valid Fact JSON document (validating it
 * again gives the same value), with detector types lower-case, params and defaults filled in,
 * special dates in object form, and unset optional fields left out.
 */
export interface DataViewDefinition {
  schemaVersion: 3;
  metadata: DataViewMetadata;
  source: DataViewSource;
  categories: DataViewCategory[];
  analysis: DataViewAnalysis;
}

/** Context the semantic checks need from outside the document. */
export interface DefinitionContext {
  connectorExists: (name: string) => boolean;
}

export type { FiscalCalendar } from '../../calendar/fiscal';
export type { ViewCalendar } from './calendar-checks';
export type { DetectorConfig, DetectorMode, DetectorParams, DetectorType } from './detector-params';
export type { Impact, RecurringRule, SpecialCalendar, SpecialDate, SpecialPeriod } from './special-dates';
