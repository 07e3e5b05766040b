/** Shapes the data view use cases take and return (the definition itself lives in ./definition). */
import type { Config } from '../config/config';
import type { DatasetSummary } from '../dataset/summary';
import type { Database } from '../db/database';
import type { JobProgress } from '../jobs/progress';
import type { Clock } from '../shared/clock';
import type { DataViewDefinition, DataViewState } from './definition/index';

/** What the data view use cases need; the Container satisfies it. */
export interface DataViewDeps {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'license' | 'timeZone'>;
}

/** GET /dataviews/{id}: the definition plus the read-only fields. */
export type DataViewDocument = {
  id: number;
  state: DataViewState;
  createdAt: string;
  updatedAt: string;
} & DataViewDefinition;

/** One row of the list, and the answer of every lifecycle action. */
export interface DataViewSummary {
  id: number;
  name: string;
  domain: string;
  description: string;
  tags: string[];
  connector: string;
  state: DataViewState;
  deployed: boolean;
  enabled: boolean;
  deployedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DataViewLite {
  id: number;
  name: string;
  domain: string;
  state: DataViewState;
}

export interface DataViewListQuery {
  /** Substring of the name, any case. */
  name?: string;
  /** Whole domain, any case. */
  domain?: string;
  /** One tag, any case. */
  tag?: string;
}

/** GET /dataviews/{id}/categories: each category and, once deployed, the values seen in cat_map. */
export interface CategoryInfo {
  name: string;
  label: string;
  parent: string | null;
  values: string[];
  /** True when more than the returned values exist. */
  valuesTruncated: boolean;
}

export interface JobInfo {
  id: number;
  kind: string;
  status: string;
  trigger: string;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  attempts?: number;
  /** The error of a failed attempt, else what the job did in a few words. */
  message?: string | null;
  /** Source rows read by a finished load or custom load. */
  rows?: number | null;
  /** Detection shards done of the total (fanned-out process jobs); null while unknown. */
  progress?: JobProgress | null;
}

/** How the view is loaded: by the cron schedule or by API calls, and when the schedule loads it next. */
export interface LoadSchedule {
  trigger: 'cron' | 'api';
  cron: string | null;
  /** The service time zone the cron runs in. */
  timeZone: string;
  /** The next scheduled load (ISO 8601); null unless the view is enabled with the cron trigger. */
  nextLoadAt: string | null;
}

/** GET /dataviews/{id}/status: where the view stands and what its dataset holds. */
export interface DataViewStatus {
  id: number;
  name: string;
  domain: string;
  state: DataViewState;
  deployed: boolean;
  enabled: boolean;
  deployedAt: string | null;
  schemaName: string | null;
  /** Tables present in the dataset schema. */
  tables: string[];
  /**
   * Estimated rows of the data tables (int, dict, data, cat_map, all_series, all_anomalies) from the
   * catalog (pg_class.reltuples as of the last ANALYZE; null for a table never analysed); null while not deployed.
   */
  rowCounts: Record<string, number | null> | null;
  /** Always true: rowCounts are catalog estimates, never a count per call. */
  rowCountsEstimated?: boolean;
  /** Loaded range and counts (firstDate, lastDate yyyy-MM-dd, series, anomalies); null while not deployed. */
  dataset: DatasetSummary | null;
  /** Jobs waiting (pending) or running. */
  activeJobs: { pending: number; running: number };
  /** The load trigger and the next scheduled load. */
  schedule: LoadSchedule;
  lastJob: JobInfo | null;
  /** The newest job of each kind: a running detection does not hide the load's outcome. */
  jobs?: { load: JobInfo | null; customLoad: JobInfo | null; process: JobInfo | null };
}
