/** Where a data view stands (GET /dataviews/{id}/status): its state, dataset, load schedule and newest jobs. */
import { catalogTables, estimatesOf, summarizeDataset } from '../dataset/summary';
import { type Caller, isAdmin } from '../identity/caller';
import type { Config } from '../config/config';
import type { Database } from '../db/database';
import { stateOf } from '../dataviews/present';
import { readView } from '../dataviews/scope';
import type { DataViewRecord } from '../dataviews/views';
import { nextRuns } from '../schedule/cron';
import type { Clock } from '../shared/clock';
import { type LatestJobRow, latestJobs, newerFinished } from './latest';
import { jobFigures } from './progress';
import { jobForReader } from './redact';
import { activeJobCounts } from './repository';
import type { DataViewStatus, JobInfo, LoadSchedule } from './types';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function jobInfo(row: LatestJobRow | undefined, admin: boolean): JobInfo | null {
  if (!row) return null;
  const j = jobForReader(row, admin);
  return {
    id: j.id,
    kind: j.kind,
    status: j.status,
    trigger: j.trigger,
    error: j.error,
    createdAt: j.createdAt.toISOString(),
    startedAt: iso(j.startedAt),
    finishedAt: iso(j.finishedAt),
    attempts: j.attempts,
    ...jobFigures(j),
  };
}

/**
 * When the cron schedule loads the view next: only an enabled view with the cron trigger is loaded by
 * the schedule (lib/jobs/schedule.ts); the time is the cron's next run in the service time zone.
 */
export function loadSchedule(row: DataViewRecord, now: Date, timeZone: string): LoadSchedule {
  const source = row.definition.source;
  const trigger = source?.trigger ?? 'cron';
  const cron = source?.cron ?? null;
  const scheduled = row.deployed && row.enabled && trigger === 'cron' && cron !== null;
  let nextLoadAt: string | null = null;
  if (scheduled) {
    try {
      nextLoadAt = nextRuns(cron, 1, now, timeZone)[0]?.toISOString() ?? null;
    } catch {
      // A stored schedule is valid when saved; one the scheduler refuses now has no next run to show.
    }
  }
  return { trigger, cron, timeZone, nextLoadAt };
}

/**
 * GET /{id}/status: state, the tables present with their estimated row counts, the loaded range and
 * counts, and the newest job of each kind (load, custom load, process) with its progress.
 * The load schedule with its next run. Reads, none of them on the view's tables: the view row, the jobs (DISTINCT ON per kind, active
 * counts) and the catalog (information_schema, pg_class); it answers at once during a load or a detection (lib/dataset/summary.ts).
 */
export async function getDataViewStatus(
  deps: { db: Database; clock: Clock; config: Pick<Config, 'timeZone'> },
  caller: Caller,
  id: number,
): Promise<DataViewStatus> {
  const { db } = deps;
  const row = await readView(caller, db, id);
  const schema = row.schema;
  const [catalog, latest, active] = await Promise.all([
    catalogTables(db, [schema]),
    latestJobs(db, [row.id]),
    activeJobCounts(db, row.id),
  ]);
  const present = catalog.get(schema);
  const tables = (present ?? []).map((t) => t.table);
  const l = latest.get(row.id);
  const newest = Object.values(l?.newest ?? {}).sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id,
  );
  const counts = row.deployed ? estimatesOf(present) : undefined;
  const admin = isAdmin(caller);
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    state: stateOf(row),
    deployed: row.deployed,
    enabled: row.enabled,
    deployedAt: row.deployedAt ? row.deployedAt.toISOString() : null,
    schemaName: row.schemaName,
    tables,
    rowCounts: row.deployed ? (counts ?? {}) : null,
    rowCountsEstimated: true,
    dataset: row.deployed
      ? summarizeDataset(newerFinished(l?.finished.Load, l?.finished.CustomLoad), l?.finished.Process, counts)
      : null,
    activeJobs: active,
    schedule: loadSchedule(row, deps.clock.now(), deps.config.timeZone),
    lastJob: jobInfo(newest[0], admin),
    jobs: {
      load: jobInfo(l?.newest.Load, admin),
      customLoad: jobInfo(l?.newest.CustomLoad, admin),
      process: jobInfo(l?.newest.Process, admin),
      replay: jobInfo(l?.newest.Replay, admin),
    },
  };
}
