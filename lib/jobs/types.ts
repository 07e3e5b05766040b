/** Shapes of the jobs module: the job record the API returns and the monitoring rows. */
import type { DatasetSummary } from '../dataset/summary';
import type { DataViewState } from '../dataviews/definition/index';
import type { JobKind, JobStatus } from '../db/tables/jobs';
import type { JobProgress } from './progress';

export type { JobKind, JobStatus };

/** What started a job: an API call, the cron schedule, or a finished load (its process job). */
export type JobTrigger = 'api' | 'cron' | 'load';

export interface JobView {
  id: number;
  dataViewId: number;
  /** `<domain> / <name>`. */
  dataView: string;
  kind: JobKind;
  status: JobStatus;
  trigger: string;
  attempts: number;
  error: string | null;
  detail: Record<string, unknown>;
  requestedBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The error of a failed attempt, else what the job did in a few words (GET /jobs, /monitoring). */
  message?: string | null;
  /** Source rows read by a finished load or custom load. */
  rows?: number | null;
  /** Detection shards done of the total while a fanned-out process job runs; null while unknown. */
  progress?: JobProgress | null;
}

/** The answer to a job request: the job, plus warnings such as an exceeded licence. */
export interface EnqueuedJob extends JobView {
  warnings?: string[];
}

export interface JobListQuery {
  dataViewId?: number;
  status?: JobStatus;
  kind?: JobKind;
  limit?: number;
}

export interface JobCounts {
  jobs: number;
  pending: number;
  running: number;
  finished: number;
  failed: number;
}

/** One data view as operators watch it. */
export interface MonitoringRow extends JobCounts {
  dataViewId: number;
  dataView: string;
  domain: string;
  name: string;
  state: 'prepared' | 'disabled' | 'enabled';
  /** When the last load or custom load finished successfully. */
  lastDataImport: string | null;
  /** First and last day of the loaded series (yyyy-MM-dd). */
  seriesStart: string | null;
  seriesEnd: string | null;
  series: number;
  anomalies: number;
  lastJob: JobView | null;
  /** The newest job of each kind, so that a running detection does not hide the load's outcome. */
  jobsByKind: {
    load: JobView | null;
    customLoad: JobView | null;
    process: JobView | null;
    /** The newest replay of a changed definition (lib/replay). */
    replay?: JobView | null;
  };
  /** Source rows of the last finished load; daily rows of its series (from the job record). */
  loadedRows: number | null;
  dataRows: number | null;
}

export interface Monitoring {
  generatedAt: string;
  totals: JobCounts & { dataViews: number; series: number; anomalies: number };
  dataViews: MonitoringRow[];
}

export const JOB_KINDS: readonly JobKind[] = ['Load', 'Process', 'CustomLoad', 'Replay'];
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'failed', 'finished'];

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
  jobs?: {
    load: JobInfo | null;
    customLoad: JobInfo | null;
    process: JobInfo | null;
    /** The newest replay of a changed definition (lib/replay). */
    replay?: JobInfo | null;
  };
}
