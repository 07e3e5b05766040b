/** Shapes shared by the filter domain: the anomaly record, aggregates and parsed filter settings. */
import type { WindowComment } from '../comments/in-window';

export type AnomalyResult = 'Positive' | 'Negative';

/** A move is good or bad news for its measure (docs/filters.md, "Welcome moves"). */
export type News = 'good' | 'bad';

/** The measure an anomaly is on: the view's value column or its count column (the spec's "anomaly variable"). */
export type AnomalyMeasure = 'value' | 'count' | 'ratio';
export const ANOMALY_MEASURES: readonly AnomalyMeasure[] = ['value', 'count', 'ratio'];

/** A comment as attached to an anomaly record (the stored comment, see lib/comments). */
export type AnomalyComment = WindowComment;

/**
 * One anomaly as filters present it (DESIGN.md, "Anomaly record fields").
 * Dates are yyyy-MM-dd; a category that is absent or null is the "all" value of that dimension.
 * Measures may be null when a detector cannot compute them (e.g. no prediction): null ranks last.
 */
export interface AnomalyRecord {
  id: number;
  dataViewId: number;
  /** `<domain> / <name>` */
  dataView: string;
  seriesId: number;
  /** Which measure of the view the anomaly is on. */
  measure: AnomalyMeasure;
  type: string;
  startDate: string;
  endDate: string;
  /** Days, inclusive of both ends. */
  duration: number;
  actualValue: number | null;
  predictedValue: number | null;
  change: number | null;
  /** Percent points (25 means +25 %). */
  changePct: number | null;
  changeCum: number | null;
  /** Percent points of the whole (0..100). */
  sharePct: number | null;
  recurrence: number | null;
  result: AnomalyResult;
  categories: Record<string, string | null>;
  sin: number | null;
  sim: number | null;
  comments: AnomalyComment[];
  /**
   * Only on an event (filter setting mergeEvents): every type that flagged it, the strongest first,
   * the others by name. The record's own fields are those of its strongest member (highest SIN).
   */
  types?: string[];
  /** Only on an event, and only when asked for (`members=true`): the merged records, strongest first. */
  members?: AnomalyRecord[];
  /** The incident the record belongs to (docs/incidents.md); null before the view's incidents were built. */
  incidentId?: number | null;
  /** Only for a view with a fiscal calendar: the record's fiscal period (lib/calendar/fiscal.ts fiscalLabel). */
  fiscalPeriod?: string;
  /** Only on an incident row (filter setting `incidents`): the incident, with its broad series and root causes. */
  incident?: AnomalyIncident;
  /**
   * Whether the move is good or bad news for its measure (the view's `measureProperties.<measure>.badWhen`);
   * absent when the measure is bad news both ways.
   */
  news?: News;
  /** Feedback on the record's stable key (docs/feedback.md); null when none. Set by lib/anomalies/feedback.ts. */
  feedback?: import('../feedback/types').RecordFeedback | null;
  /**
   * Only on GET …/incidents/{id} for an id a regrouping dissolved: that id, and every incident that now holds
   * some of its records (most first); the answer is the first of them.
   */
  movedFrom?: { incidentId: number; movedTo: number[] };
}

/** A combination's change as an incident row carries it: totals over the head record's window. */
export interface AnomalyCombination {
  /** The combination's series (null when the cube holds none for it; absent in a message queued before it was carried). */
  seriesId?: number | null;
  categories: Record<string, string | null>;
  actual: number;
  expected: number;
  change: number;
  changePct: number | null;
}

/** The incident of an incident row (filter setting `incidents`). */
export interface AnomalyIncident {
  id: number;
  /** Member records in all (not only those the filter selected). */
  size: number;
  startDate: string;
  endDate: string;
  firstSeenAt: string;
  /** Every measure and type among the members; the head's first. */
  measures: string[];
  types: string[];
  /** The broadest series of the incident, over the head's window: the row's context (its SIN weighs it). */
  broad: AnomalyCombination;
  /**
   * The combinations that explain the broad series' change; `broad` when it is the series itself. The
   * row's own figures are the first's. `explainsPct` is within 0..100; `explainsNote` says why when the
   * raw share was not (lib/filters/explains.ts).
   */
  rootCauses: Array<
    AnomalyCombination & {
      explainsPct: number;
      explainsNote?: string;
      broad: boolean;
      effect?: 'rate' | 'mix';
      mixOf?: string;
    }
  >;
  /**
   * Only on an incident row: what Sort by SIN orders incident rows by, the row's SIN weighed by the
   * incident's evidence (lib/filters/standing.ts); null when the SIN is unknown.
   */
  standing?: number | null;
}

export const TIME_RANGE_PRESETS = [
  'Custom',
  'Yesterday',
  'Last 2 Days',
  'Last 4 Days',
  'Last 7 Days',
  'Last 15 Days',
  'Last 30 Days',
  'This Week',
  'Previous Week',
  'Previous 2 Weeks',
  'This Month',
  'Previous Month',
  'This Year',
  'Previous Year',
  'This Fiscal Month',
  'Previous Fiscal Month',
  'This Fiscal Quarter',
  'Previous Fiscal Quarter',
  'This Fiscal Year',
  'Previous Fiscal Year',
] as const;
export type TimeRangePreset = (typeof TIME_RANGE_PRESETS)[number];

/** The presets that name periods of the data views' fiscal calendar (analysis.fiscal). */
export const FISCAL_PRESETS: Readonly<Partial<Record<TimeRangePreset, { months: 1 | 3 | 12; back: 0 | 1 }>>> =
  {
    'This Fiscal Month': { months: 1, back: 0 },
    'Previous Fiscal Month': { months: 1, back: 1 },
    'This Fiscal Quarter': { months: 3, back: 0 },
    'Previous Fiscal Quarter': { months: 3, back: 1 },
    'This Fiscal Year': { months: 12, back: 0 },
    'Previous Fiscal Year': { months: 12, back: 1 },
  };

export const SORT_BY_VALUES = [
  'Duration',
  'Date',
  'SIN',
  'SIM',
  'Anomaly Value',
  'Predicted Value',
  'Change',
  'Change %',
  'Change Cum',
  'Category Share %',
] as const;
export type SortBy = (typeof SORT_BY_VALUES)[number];

export const AGGREGATION_MODES = ['Hierarchical', 'Graph'] as const;
export type AggregationMode = (typeof AGGREGATION_MODES)[number];

/** The filter body as the API stores it (schemas/filter.schema.json), read-only fields removed. */
export interface FilterDefinition {
  name: string;
  comment: string;
  timeRange: TimeRangePreset;
  dataViews: string;
  anomalyTypes: string;
  anomalyResult: string;
  categoriesFilter: string;
  sortBy: SortBy;
  limit: number;
  isAggregated: boolean;
  aggregationMode: AggregationMode;
  minCommonCategories: number;
  isSummarized: boolean;
  instructions: string;
  splitByType: boolean;
  graphThreshold: number;
  graphWeights: string;
  recurrenceFrom: number | null;
  recurrenceTo: number | null;
  changePctFrom: number | null;
  changePctTo: number | null;
  changeFrom: number | null;
  changeTo: number | null;
  sharePctFrom: number | null;
  sharePctTo: number | null;
  /** `value`, `count` or both separated by ';' (default both). */
  measures: string;
  /** One record per event: the same series, measure and result with overlapping dates (docs/filters.md). */
  mergeEvents: boolean;
  /** One record per incident, named by its root cause (docs/filters.md, "Incidents"); takes precedence over mergeEvents. */
  incidents?: boolean;
  /** Leave out records marked expected or not an anomaly (docs/feedback.md); default off. */
  hideDismissed?: boolean;
  /** Leave out welcome moves (good news for the measure's badWhen); default on. */
  hideWelcome?: boolean;
  /** Only with timeRange Custom (then required). */
  dateFrom?: string | null;
  dateTo?: string | null;
}

export interface DataViewRef {
  domain: string;
  name: string;
}

/** Inclusive numeric bound; null on either side means unbounded there. */
export interface NumericBound {
  from: number | null;
  to: number | null;
}

/** What applyFilter needs: everything but data-view and time scoping. Missing fields do not constrain. */
export interface SelectionSettings {
  /** Type codes, compared case-insensitively; empty means every type. */
  anomalyTypes: string[];
  /** Empty means both signs. */
  anomalyResults: AnomalyResult[];
  /** Empty (or missing) means both measures. */
  measures?: AnomalyMeasure[];
  /** Category name → required value; every entry must hold. */
  categories: Record<string, string>;
  recurrence: NumericBound;
  /** Applies to |changePct|. */
  changePct: NumericBound;
  /** Applies to |change|. */
  change: NumericBound;
  sharePct: NumericBound;
  /** Leave out records marked expected or not an anomaly (docs/feedback.md). */
  hideDismissed?: boolean;
  /** Leave out welcome moves: good news for the measure's badWhen (lib/filters/news.ts). */
  hideWelcome?: boolean;
}

export interface RankSettings {
  sortBy: SortBy;
  limit: number;
  splitByType: boolean;
}

export interface AggregationSettings {
  isAggregated: boolean;
  aggregationMode: AggregationMode;
  minCommonCategories: number;
  /** 0..1: share of the compared category weight that must agree. */
  graphThreshold: number;
  /** Category → weight; categories not listed weigh 1. */
  graphWeights: Record<string, number>;
}

/** A filter after parsing its `;` strings: what runFilter and the repository work with. */
export interface FilterSettings extends SelectionSettings, RankSettings, AggregationSettings {
  timeRange: TimeRangePreset;
  dateFrom: string | null;
  dateTo: string | null;
  /** Empty means every data view the caller can access. */
  dataViews: DataViewRef[];
  /** Merge the records of one event (same series, measure, result, overlapping dates) into one. */
  mergeEvents: boolean;
  /** One record per incident (lib/filters/incidents.ts); takes precedence over mergeEvents. */
  incidents: boolean;
}

/** A group of anomalies rolled up by hierarchical or graph aggregation (docs/filters.md). */
export interface AggregateRecord {
  /** Deterministic: the mode letter and a hash of the member ids. */
  id: string;
  dataViewId: number;
  dataView: string;
  /** The members' measure: aggregates never mix measures. */
  measure: AnomalyMeasure;
  result: AnomalyResult;
  startDate: string;
  endDate: string;
  types: string[];
  /** Days spanned from the earliest start to the latest end, inclusive. */
  duration: number;
  actualValue: number | null;
  predictedValue: number | null;
  change: number | null;
  changePct: number | null;
  changeCum: number | null;
  sharePct: number | null;
  sin: number | null;
  sim: number | null;
  n: number;
  commonCategories: Record<string, string>;
  differentCategories: string[];
  members: AnomalyRecord[];
}

export interface FilterRun {
  anomalies: AnomalyRecord[];
  aggregates?: AggregateRecord[];
}
