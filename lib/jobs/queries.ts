/** Reading jobs and the monitoring summary, limited to the data views the caller may see. */
import { rowEstimates, summarizeDataset } from '../dataset/summary';
import type { Database } from '../db/database';
import { jobs } from '../db/tables/jobs';
import { stateOf } from '../dataviews/present';
import { assertReadable, canRead, readableBy, readView, readViews } from '../dataviews/scope';
import { type Caller, isAdmin, requireRead } from '../identity/caller';
import { NotFoundError } from '../shared/errors';
import type { Clock } from '../shared/clock';
import { type LatestJobRow, latestJobs, newerFinished } from './latest';
import { withFigures } from './progress';
import { jobForReader } from './redact';
import { findJobView, jobCountsByView, lastImports, listJobRows, newestJobs, toJobView } from './repository';
import type { JobListQuery, JobView, Monitoring, MonitoringRow } from './types';

/** A job row of latestJobs as the API's job record, with its figures and the error the caller may read. */
export function latestJobView(j: LatestJobRow | undefined, dataView: string, admin: boolean): JobView | null {
  if (!j) return null;
  return withFigures(jobForReader(toJobView({ job: j, title: dataView }), admin));
}

export const MAX_JOB_LIST = 1000;

/** GET /jobs: newest first, filtered by data view, status and kind. */
export async function listJobs(db: Database, caller: Caller, q: JobListQuery): Promise<JobView[]> {
  requireRead(caller);
  if (q.dataViewId !== undefined) assertReadable(caller, q.dataViewId);
  const limit = Math.min(Math.max(q.limit ?? 100, 1), MAX_JOB_LIST);
  return (await listJobRows(db, { ...q, limit }, readableBy(caller, jobs.dataViewId))).map((j) =>
    withFigures(jobForReader(j, isAdmin(caller))),
  );
}

/** GET /jobs/{id}: a job of a data view the caller may see. */
export async function getJob(db: Database, caller: Caller, id: number): Promise<JobView> {
  requireRead(caller);
  const job = await findJobView(db, id);
  if (!job || !canRead(caller, job.dataViewId)) throw new NotFoundError(`Job ${id} was not found.`);
  return withFigures(jobForReader(job, isAdmin(caller)));
}

/**
 * GET /monitoring: per visible data view its last import, series range, anomalies, job counts and the
 * newest job of each kind, with totals. The dataset figures come from job records and catalog
 * estimates (lib/dataset/summary.ts): no dataset table is scanned or locked.
 */
export async function getMonitoring(
  deps: { db: Database; clock: Clock },
  caller: Caller,
  onlyId?: number,
): Promise<Monitoring> {
  requireRead(caller);
  const { db } = deps;
  const views = (
    onlyId !== undefined ? [await readView(caller, db, onlyId)] : await readViews(caller, db)
  ).sort((a, b) => a.domain.localeCompare(b.domain) || a.name.localeCompare(b.name) || a.id - b.id);
  const ids = views.map((v) => v.id);
  const [counts, imports, newest, latest, estimates] = await Promise.all([
    jobCountsByView(db, ids),
    lastImports(db),
    newestJobs(db, ids),
    latestJobs(db, ids),
    rowEstimates(
      db,
      views.filter((v) => v.deployed).map((v) => v.schema),
    ),
  ]);
  const rows: MonitoringRow[] = [];
  const admin = isAdmin(caller);
  for (const v of views) {
    const label = v.title;
    const l = latest.get(v.id);
    const lastLoad = newerFinished(l?.finished.Load, l?.finished.CustomLoad);
    const summary = v.deployed
      ? summarizeDataset(lastLoad, l?.finished.Process, estimates.get(v.schema))
      : undefined;
    const c = counts.get(v.id) ?? { jobs: 0, pending: 0, running: 0, finished: 0, failed: 0 };
    rows.push({
      dataViewId: v.id,
      dataView: v.title,
      domain: v.domain,
      name: v.name,
      state: stateOf(v),
      lastDataImport: imports.get(v.id)?.toISOString() ?? null,
      seriesStart: summary?.firstDate ?? null,
      seriesEnd: summary?.lastDate ?? null,
      series: summary?.series ?? 0,
      anomalies: summary?.anomalies ?? 0,
      ...c,
      lastJob: newest.has(v.id) ? withFigures(jobForReader(newest.get(v.id)!, admin)) : null,
      jobsByKind: {
        load: latestJobView(l?.newest.Load, label, admin),
        customLoad: latestJobView(l?.newest.CustomLoad, label, admin),
        process: latestJobView(l?.newest.Process, label, admin),
        replay: latestJobView(l?.newest.Replay, label, admin),
      },
      loadedRows: summary?.rows ?? null,
      dataRows: summary?.dataRows ?? null,
    });
  }
  const sum = (k: 'jobs' | 'pending' | 'running' | 'finished' | 'failed' | 'series' | 'anomalies') =>
    rows.reduce((s, r) => s + r[k], 0);
  return {
    generatedAt: deps.clock.now().toISOString(),
    totals: {
      dataViews: rows.length,
      series: sum('series'),
      anomalies: sum('anomalies'),
      jobs: sum('jobs'),
      pending: sum('pending'),
      running: sum('running'),
      finished: sum('finished'),
      failed: sum('failed'),
    },
    dataViews: rows,
  };
}
