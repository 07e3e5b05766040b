/** Shapes of the API records the UI reads (DESIGN.md field names). */

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

/** The writable filter fields (schemas/filter.schema.json). */
export interface FilterSettings {
  name: string;
  comment: string;
  timeRange: string;
  dateFrom?: string | null;
  dateTo?: string | null;
  dataViews: string;
  anomalyTypes: string;
  anomalyResult: string;
  categoriesFilter: string;
  sortBy: string;
  limit: number;
  isAggregated: boolean;
  aggregationMode: 'Hierarchical' | 'Graph';
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
  /** `value`, `count` or both separated by ';'. */
  measures: string;
  /** One record per event (same series, measure and result, overlapping dates) with its types. */
  mergeEvents: boolean;
  /** Leave out records marked expected or not an anomaly (docs/feedback.md). */
  hideDismissed?: boolean;
  /** One row per incident, its categories the root cause (docs/incidents.md). */
  incidents?: boolean;
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
