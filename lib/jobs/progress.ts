/**
 * A job's figures as status, monitoring, the jobs panel and `service-cli … --wait` show them: a one-line
 * message, the rows it loaded, and its progress (shards done of the total for a fanned-out detection),
 * all read from the job record (no query).
 */
import type { JobKind, JobStatus } from '../db/tables/jobs';

export interface JobProgress {
  done: number;
  total: number;
  unit: 'shards' | 'rows';
  /** A load's step: reading the source (done = rows read so far) or building the series. */
  phase?: 'reading' | 'building';
}

export interface JobFigures {
  /** The error of a failed (or retried) attempt, else what the job did in a few words. */
  message: string | null;
  /** Source rows read by a finished load or custom load. */
  rows: number | null;
  /** How far a job is: detection shards done of the total; null while unknown. */
  progress: JobProgress | null;
}

interface JobLike {
  kind: JobKind | string;
  status: JobStatus | string;
  error: string | null;
  detail: Record<string, unknown> | null | undefined;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function jobProgress(job: JobLike): JobProgress | null {
  const d = job.detail ?? {};
  const own = d.progress as { done?: unknown; total?: unknown; unit?: unknown; phase?: unknown } | undefined;
  // A load's rows progress describes it while it runs; once ended, its result says what it did.
  const ended = job.status === 'finished' || job.status === 'failed';
  if (own && num(own.done) !== null && num(own.total) !== null && !(own.unit === 'rows' && ended)) {
    const phase = own.phase === 'reading' || own.phase === 'building' ? own.phase : undefined;
    return {
      done: num(own.done)!,
      total: num(own.total)!,
      unit: own.unit === 'rows' ? 'rows' : 'shards',
      ...(phase ? { phase } : {}),
    };
  }
  const shards = num(d.shards);
  if (job.kind === 'Process' && shards !== null) {
    const done = Array.isArray(d.shardsDone) ? d.shardsDone.length : job.status === 'finished' ? shards : 0;
    return { done: Math.min(done, shards), total: shards, unit: 'shards' };
  }
  return null;
}

const plural = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export function jobMessage(job: JobLike): string | null {
  if (job.error) return job.error;
  const d = job.detail ?? {};
  const parts: string[] = [];
  const rows = num(d.rows);
  const series = num(d.series);
  const anomalies = num(d.anomalies);
  if (rows !== null) parts.push(plural(rows, 'row', 'rows'));
  if (series !== null) parts.push(plural(series, 'series', 'series'));
  if (anomalies !== null) parts.push(plural(anomalies, 'anomaly', 'anomalies'));
  if (typeof d.firstDate === 'string' && typeof d.lastDate === 'string')
    parts.push(`${d.firstDate} – ${d.lastDate}`);
  const progress = jobProgress(job);
  if (job.status === 'running' && progress?.phase === 'reading')
    parts.push(`reading the source: ${plural(progress.done, 'row', 'rows')} read`);
  else if (job.status === 'running' && progress?.phase === 'building')
    parts.push(`building the series from ${plural(progress.done, 'row', 'rows')}`);
  else if (job.status === 'running' && progress)
    parts.push(`${progress.done} of ${progress.total} ${progress.unit} done`);
  for (const k of ['message', 'processError', 'warning'])
    if (typeof d[k] === 'string') parts.push(d[k] as string);
  return parts.length > 0 ? parts.join(', ') : null;
}

export function jobFigures(job: JobLike): JobFigures {
  const rows = job.kind === 'Process' ? null : num(job.detail?.rows);
  return { message: jobMessage(job), rows, progress: jobProgress(job) };
}

/** The job with its figures added (additive fields of the API's job record). */
export function withFigures<T extends JobLike>(job: T): T & JobFigures {
  return { ...job, ...jobFigures(job) };
}
