/** Shapes of the API records the UI reads (DESIGN.md field names). */
import type { Filter as FilterBody } from './api-types.gen';

export type DataViewState = 'prepared' | 'disabled' | 'enabled';

/** A data view as the list shows it, whatever list shape the API answers (flat or Fact JSON). */
export interface DataViewSummary {
  id: number;
  name: string;
  domain: string;
  description: string;
  tags: string[];
  connector: string;
  state: DataViewState;
  updatedAt?: string;
}

export interface DataViewLite {
  id: number;
  name: string;
  domain: string;
}

/** Fact JSON with the read-only fields. */
export interface DataViewDoc {
  id: number;
  state: DataViewState;
  createdAt?: string;
  updatedAt?: string;
  schemaVersion: number;
  metadata: {
    name: string;
    domain: string;
    description?: string | null;
    tags?: string | null;
    enabled?: boolean;
  };
  source: {
    connector: string;
    loadQuery: string;
    customLoadQuery?: string | null;
    cron?: string | null;
    trigger?: 'cron' | 'api';
  };
  categories: Array<{ name: string; label: string; parent?: string | null }>;
  analysis?: Record<string, unknown>;
}

export interface Category {
  name: string;
  label: string;
  parent?: string | null;
  values: string[];
}

export type JobStatus = 'pending' | 'running' | 'failed' | 'finished';

export interface Job {
  id: number;
  dataViewId: number;
  kind: string;
  status: JobStatus;
  trigger?: string;
  error?: string | null;
  /** What the job reported (rows loaded, series, …). */
  detail?: Record<string, unknown>;
  createdAt: string;
  startedAt?: string | null;
  finishedAt?: string | null;
}

export type ConnectorType = 'mssql' | 'pgsql' | 'oracle' | 'snowflake' | 'fabric';

export interface Connector {
  name: string;
  type: ConnectorType;
  description: string;
  configuration: Record<string, unknown>;
  status: 'untested' | 'active' | 'failed';
  lastTestedAt: string | null;
  lastTestMessage: string | null;
}

export interface Comment {
  id: number;
  text: string;
  email: string;
  dataViewId: number;
  dateFrom: string;
  dateTo: string;
  categories: Record<string, string | null>;
}

export interface Anomaly {
  id: number;
  dataViewId: number;
  dataView: string;
  seriesId: number;
  /** The measure the anomaly is on: the view's value, its count, or their ratio (value ÷ count per day). */
  measure?: 'value' | 'count' | 'ratio';
  type: string;
  /** Events (filter setting mergeEvents): every type that flagged it, the strongest first. */
  types?: string[];
  startDate: string;
  endDate: string;
  duration: number;
  actualValue: number | null;
  predictedValue: number | null;
  change: number | null;
  changePct: number | null;
  changeCum: number | null;
  sharePct: number | null;
  recurrence: number | null;
  result: 'Positive' | 'Negative';
  categories: Record<string, string | null>;
  sin: number | null;
  sim: number | null;
  comments: Comment[];
  /** Events, when asked for (members=true): the merged records, strongest first. */
  members?: Anomaly[];
  /** Feedback on the record's stable key (docs/feedback.md); null when none. */
  feedback?: import('../components/feedback-form').RecordFeedback | null;
  /** The incident the record belongs to (docs/incidents.md); null before the view's incidents were built. */
  incidentId?: number | null;
  /** Only on an incident row (filter setting `incidents`): the incident with its root causes. */
  incident?: AnomalyIncident;
}

export interface Aggregate {
  id: string;
  dataView: string;
  measure?: 'value' | 'count' | 'ratio';
  result: 'Positive' | 'Negative';
  startDate: string;
  endDate: string;
  types: string[];
  duration: number;
  change: number | null;
  changePct: number | null;
  sharePct: number | null;
  n: number;
  commonCategories: Record<string, string>;
  differentCategories: string[];
  members: Anomaly[];
}

export interface FilterRun {
  anomalies: Anomaly[];
  aggregates?: Aggregate[];
  /** What was searched: the resolved window and the data views. */
  timeRange?: { preset: string; dateFrom: string; dateTo: string };
  dataViews?: Array<{ id: number; dataView: string }>;
  warnings?: string[];
}

/** A filter field as the API validates it (schemas/filter.schema.json, generated into api-types.gen.ts). */
type FilterField<K extends keyof FilterBody> = Exclude<FilterBody[K], undefined>;

/**
 * The writable filter fields (schemas/filter.schema.json): each is typed from the generated schema
 * type, so a field renamed or removed in the schema fails the UI's typecheck here.
 */
export interface FilterSettings {
  name: FilterField<'name'>;
  comment: FilterField<'comment'>;
  timeRange: FilterField<'timeRange'>;
  dateFrom?: FilterField<'dateFrom'>;
  dateTo?: FilterField<'dateTo'>;
  dataViews: FilterField<'dataViews'>;
  anomalyTypes: FilterField<'anomalyTypes'>;
  anomalyResult: FilterField<'anomalyResult'>;
  categoriesFilter: FilterField<'categoriesFilter'>;
  sortBy: FilterField<'sortBy'>;
  limit: FilterField<'limit'>;
  isAggregated: FilterField<'isAggregated'>;
  aggregationMode: FilterField<'aggregationMode'>;
  minCommonCategories: FilterField<'minCommonCategories'>;
  isSummarized: FilterField<'isSummarized'>;
  instructions: FilterField<'instructions'>;
  splitByType: FilterField<'splitByType'>;
  graphThreshold: FilterField<'graphThreshold'>;
  graphWeights: FilterField<'graphWeights'>;
  recurrenceFrom: FilterField<'recurrenceFrom'>;
  recurrenceTo: FilterField<'recurrenceTo'>;
  changePctFrom: FilterField<'changePctFrom'>;
  changePctTo: FilterField<'changePctTo'>;
  changeFrom: FilterField<'changeFrom'>;
  changeTo: FilterField<'changeTo'>;
  sharePctFrom: FilterField<'sharePctFrom'>;
  sharePctTo: FilterField<'sharePctTo'>;
  /** `value`, `count` or both separated by ';'. */
  measures: FilterField<'measures'>;
  /** One record per event (same series, measure and result, overlapping dates) with its types. */
  mergeEvents: FilterField<'mergeEvents'>;
  /** Leave out records marked expected or not an anomaly (docs/feedback.md). */
  hideDismissed?: FilterField<'hideDismissed'>;
  /** One row per incident, its categories the root cause (docs/incidents.md). */
  incidents?: FilterField<'incidents'>;
}

export interface Filter extends FilterSettings {
  id: number;
  ownerId: number;
  ownerEmail: string;
  pinned: boolean;
  isOwner: boolean;
  sharedWith: number[];
  summary: { text: string; generatedAt: string | null } | null;
}

export interface User {
  id: number;
  email: string;
  role: 'admin' | 'data-user';
  enabled: boolean;
  dataViewIds: number[];
}

export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  permissions: string[];
  userId: number;
  userEmail: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  key?: string;
}

export interface License {
  plan: string;
  maxDataViews: number;
  dataViews: number;
  remaining: number;
}

// Answers declared by the API's own types: imported as types (erased at build), never copied here.
export type { DataViewStatus, JobInfo, LoadSchedule } from '../../../lib/jobs/types';
import type { AnomalyIncident } from '../../../lib/filters/types';
export type { AnomalyIncident };
export type {
  ContributionsAnswer,
  ContributionValueAnswer,
} from '../../../lib/incidents/contributions-query';
