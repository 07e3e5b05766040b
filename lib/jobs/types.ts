/** Shapes of the jobs module: the job record the API returns and the monitoring rows. */
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
  jobsByKind: { load: JobView | null; customLoad: JobView | null; process: JobView | null };
  /** Source rows of the last finished load; daily rows of its series (from the job record). */
  loadedRows: number | null;
  dataRows: number | null;
}

export interface Monitoring {
  generatedAt: string;
  totals: JobCounts & { dataViews: number; series: number; anomalies: number };
  dataViews: MonitoringRow[];
}

export const JOB_KINDS: readonly JobKind[] = ['Load', 'Process', 'CustomLoad'];
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'failed', 'finished'];
