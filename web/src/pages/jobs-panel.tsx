/**
 * Job monitoring of a data view, refreshed every few seconds: the newest job of each kind (load, custom
 * load, process) with its state, times, message and progress, the loaded data's counts, and the job list.
 */
import { Badge, Problem } from '../components/ui';
import { api, isMissingEndpoint, qs } from '../lib/api';
import { when } from '../lib/format';
import type { DataViewStatus, Job, JobInfo } from '../lib/types';
import { type Loaded, useLoad, usePoll } from '../lib/use-load';

/** A finished job's report in a few words: rows and series loaded, anomalies found, or its own note. */
function jobNote(j: Pick<Job, 'error' | 'detail'>): string {
  if (j.error) return j.error;
  const d = j.detail ?? {};
  const parts: string[] = [];
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  if (typeof d.rows === 'number') parts.push(count(d.rows, 'row', 'rows'));
  if (typeof d.series === 'number') parts.push(`${d.series} series`);
  if (typeof d.anomalies === 'number') parts.push(count(d.anomalies, 'anomaly', 'anomalies'));
  if (typeof d.firstDate === 'string' && typeof d.lastDate === 'string')
    parts.push(`${d.firstDate} – ${d.lastDate}`);
  for (const k of ['message', 'detection', 'warning'])
    if (typeof d[k] === 'string') parts.push(d[k] as string);
  return parts.join(', ');
}

/** Today's times without the date, so that the job list stays narrow. */
function shortWhen(iso: string | null | undefined): string {
  const full = when(iso);
  return full.slice(0, 10) === when(new Date().toISOString()).slice(0, 10) ? full.slice(11) : full;
}

export const JOB_TONE: Record<string, string> = {
  pending: 'amber',
  running: 'blue',
  failed: 'red',
  finished: 'green',
};

const KINDS = [
  ['load', 'Load'],
  ['customLoad', 'Custom load'],
  ['process', 'Detection'],
  ['replay', 'Replay'],
] as const;

const n = (v: number) => v.toLocaleString('en-US');

/** The newest job of one kind: state, when, what it did, and a progress bar while it runs. */
function KindCard({ label, job }: { label: string; job: JobInfo | null }) {
  return (
    <div className="kind-job" role="group" aria-label={`Last ${label.toLowerCase()} job`}>
      <strong>{label}</strong>{' '}
      {job ? (
        <>
          <Badge tone={JOB_TONE[job.status] ?? 'gray'}>{job.status}</Badge>{' '}
          <span className="muted">
            #{job.id} · created {shortWhen(job.createdAt)}
            {job.startedAt ? ` · started ${shortWhen(job.startedAt)}` : ''}
            {job.finishedAt ? ` · finished ${shortWhen(job.finishedAt)}` : ''}
          </span>
          {job.progress && (
            <div>
              <progress max={job.progress.total} value={job.progress.done}>
                {job.progress.done} of {job.progress.total}
              </progress>{' '}
              <span className="muted">
                {job.progress.done} of {job.progress.total} {job.progress.unit}
              </span>
            </div>
          )}
          <div className={job.error ? 'error-text wrap' : 'wrap'}>{job.message ?? jobNote(job)}</div>
        </>
      ) : (
        <span className="muted">none yet</span>
      )}
    </div>
  );
}

/** Jobs of the view with their status (read by the page), the list refreshed every few seconds. */
export function JobsPanel({
  id,
  refreshKey,
  status,
}: {
  id: number;
  refreshKey: number;
  status: Loaded<DataViewStatus | undefined>;
}) {
  const jobs = useLoad(async () => {
    try {
      return await api<Job[]>('GET', `/jobs${qs({ dataViewId: id })}`);
    } catch (e) {
      if (isMissingEndpoint(e)) return null;
      throw e;
    }
  }, [id, refreshKey]);
  usePoll(() => void jobs.reload(), 3000);
  const list = jobs.data ?? (status.data?.lastJob ? [status.data.lastJob] : []);
  const s = status.data;
  return (
    <section className="card" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      {s && (
        <p className="muted" aria-live="polite">
          {s.activeJobs.pending} pending, {s.activeJobs.running} running
          {s.dataset &&
            ` · ${n(s.dataset.series)} series${s.dataset.firstDate ? `, ${s.dataset.firstDate} – ${s.dataset.lastDate}` : ''}` +
              `${typeof s.dataset.rows === 'number' ? `, ${n(s.dataset.rows)} source rows` : ''}, ${n(s.dataset.anomalies)} anomalies`}
          {!s.dataset &&
            s.rowCounts &&
            ` · ${Object.entries(s.rowCounts)
              .map(([t, v]) => `${t}: ${v === null ? '?' : `≈${n(v)}`}`)
              .join(', ')}`}
        </p>
      )}
      {s?.jobs && (
        <div className="kind-jobs">
          {KINDS.map(([k, label]) => (
            <KindCard key={k} label={label} job={s.jobs![k] ?? null} />
          ))}
        </div>
      )}
      <Problem error={status.error ?? jobs.error} />
      {list.length === 0 ? (
        <p className="muted">No jobs yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="list jobs">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Finished</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {list.map((j) => (
                <tr key={j.id}>
                  <td>#{j.id}</td>
                  <td>{j.kind}</td>
                  <td>
                    <Badge tone={JOB_TONE[j.status] ?? 'gray'}>{j.status}</Badge>
                  </td>
                  <td>{shortWhen(j.createdAt)}</td>
                  <td>{shortWhen(j.finishedAt)}</td>
                  <td className={`wrap${j.error ? ' error-text' : ''}`}>
                    {('message' in j ? j.message : null) ?? jobNote(j)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
