/**
 * The top of the data view page: where the view stands (state), what its last load did and when the
 * schedule loads it next — the three questions an admin opens the page with.
 */
import { Badge } from '../components/ui';
import { STATE_TEXT } from '../lib/dataviews';
import { when } from '../lib/format';
import type { DataViewStatus, JobInfo } from '../lib/types';
import { STATE_TONE } from './dataviews';
import { JOB_TONE } from './jobs-panel';

/** The newer of the view's last load and last custom load. */
function lastLoad(s: DataViewStatus): JobInfo | null {
  const jobs = [s.jobs?.load, s.jobs?.customLoad].filter((j): j is JobInfo => Boolean(j));
  jobs.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
  return jobs[0] ?? null;
}

function LoadFact({ job }: { job: JobInfo | null }) {
  if (!job) return <span className="muted">none yet</span>;
  const at = job.finishedAt ?? job.startedAt ?? job.createdAt;
  return (
    <>
      <Badge tone={JOB_TONE[job.status] ?? 'gray'}>{job.status}</Badge> <time dateTime={at}>{when(at)}</time>
      {job.kind === 'CustomLoad' ? ' (custom query)' : ''}
      {job.message ? <span className={job.error ? ' error-text' : ' muted'}> · {job.message}</span> : null}
    </>
  );
}

/** Why there is no next run, or when it is, in the service time zone. */
function nextRunText(s: DataViewStatus): string {
  const { schedule } = s;
  if (schedule.trigger === 'api') return 'on API calls only (trigger: api)';
  if (!s.deployed) return 'none: deploy and enable the view first';
  if (!s.enabled) return 'none while the view is disabled';
  if (!schedule.nextLoadAt) return 'none: the schedule has no next run';
  const local = new Intl.DateTimeFormat('sv-SE', {
    timeZone: schedule.timeZone,
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(new Date(schedule.nextLoadAt));
  return `${local} (${schedule.timeZone}, cron ${schedule.cron})`;
}

export function DataViewFacts({ status }: { status: DataViewStatus | undefined }) {
  if (!status) return null;
  return (
    <dl className="view-facts" aria-label="Data view status">
      <div>
        <dt>State</dt>
        <dd>
          <Badge tone={STATE_TONE[status.state]}>{status.state}</Badge> {STATE_TEXT[status.state]}
        </dd>
      </div>
      <div>
        <dt>Last load</dt>
        <dd>
          <LoadFact job={lastLoad(status)} />
        </dd>
      </div>
      <div>
        <dt>Next scheduled load</dt>
        <dd>{nextRunText(status)}</dd>
      </div>
    </dl>
  );
}
