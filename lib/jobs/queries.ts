/** Reading jobs and the monitoring summary, limited to the data views the caller may see. */
import { inArray } from 'drizzle-orm';
import { rowEstimates, summarizeDataset } from '../dataset/summary';
import type { Database } from '../db/database';
import { dataViews } from '../db/tables/index';
import type { DataViewRow } from '../dataviews/repository';
import {
  assertDataViewVisible,
  type Caller,
  canSeeDataView,
  requireRead,
  visibleDataViewIds,
} from '../identity/caller';
import { NotFoundError } from '../shared/errors';
import type { Clock } from '../shared/clock';
import { type LatestJobRow, latestJobs, newerFinished } from './latest';
import { withFigures } from './progress';
import { findJobView, jobCountsByView, lastImports, listJobRows, newestJobs } from './repository';
import type { JobListQuery, JobView, Monitoring, MonitoringRow } from './types';

/** A job row of latestJobs as the API's job record, with its figures. */
export function latestJobView(j: LatestJobRow | undefined, dataView: string): JobView | null {
  if (!j) return null;
  return withFigures({
    id: j.id,
    dataViewId: j.dataViewId,
    dataView,
    kind: j.kind,
    status: j.status,
    trigger: j.trigger,
    attempts: j.attempts,
    error: j.error,
    detail: j.detail,
    requestedBy: j.requestedBy,
    createdAt: j.createdAt.toISOString(),
    startedAt: j.startedAt?.toISOString() ?? null,
    finishedAt: j.finishedAt?.toISOString() ?? null,
  });
}

export const MAX_JOB_LIST = 1000;

/** GET /jobs: newest first, filtered by data view, status and kind. */
export async function listJobs(db: Database, caller: Caller, q: JobListQuery): Promise<JobView[]> {
  requireRead(caller);
  if (q.dataViewId !== undefined) assertDataViewVisible(caller, q.dataViewId);
  const limit = Math.min(Math.max(q.limit ?? 100, 1), MAX_JOB_LIST);
  return (await listJobRows(db, { ...q, limit }, visibleDataViewIds(caller))).map(withFigures);
}

/** GET /jobs/{id}: a job of a data view the caller may see. */
export async function getJob(db: Database, caller: Caller, id: number): Promise<JobView> {
  requireRead(caller);
  const job = await findJobView(db, id);
  if (!job || !canSeeDataView(caller, job.dataViewId)) throw new NotFoundError(`Job ${id} was not found.`);
  return withFigures(job);
}

const stateOf = (r: DataViewRow) => (!r.deployed ? 'prepared' : r.enabled ? 'enabled' : 'disabled');

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
  if (onlyId !== undefined) assertDataViewVisible(caller, onlyId);
  const visible = visibleDataViewIds(caller);
  let ids = onlyId !== undefined ? [onlyId] : visible;
  const views = (
    ids && ids.length === 0
      ? []
      : ((await (ids
          ? db.orm.select().from(dataViews).where(inArray(dataViews.id, ids))
          : db.orm.select().from(dataViews))) as DataViewRow[])
  ).sort((a, b) => a.domain.localeCompare(b.domain) || a.name.localeCompare(b.name) || a.id - b.id);
  if (onlyId !== undefined && views.length === 0)
    throw new NotFoundError(`Data view ${onlyId} was not found.`);
  ids = views.map((v) => v.id);
  const schemaOf = (v: DataViewRow) => v.schemaName ?? `dv_${v.id}`;
  const [counts, imports, newest, latest, estimates] = await Promise.all([
    jobCountsByView(db, ids),
    lastImports(db),
    newestJobs(db, ids),
    latestJobs(db, ids),
    rowEstimates(db, views.filter((v) => v.deployed).map(schemaOf)),
  ]);
  const rows: MonitoringRow[] = [];
  for (const v of views) {
    const label = `${v.domain} / ${v.name}`;
    const l = latest.get(v.id);
    const lastLoad = newerFinished(l?.finished.Load, l?.finished.CustomLoad);
    const summary = v.deployed
      ? summarizeDataset(lastLoad, l?.finished.Process, estimates.get(schemaOf(v)))
      : undefined;
    const c = counts.get(v.id) ?? { jobs: 0, pending: 0, running: 0, finished: 0, failed: 0 };
    rows.push({
      dataViewId: v.id,
      dataView: `${v.domain} / ${v.name}`,
      domain: v.domain,
      name: v.name,
      state: stateOf(v),
      lastDataImport: imports.get(v.id)?.toISOString() ?? null,
      seriesStart: summary?.firstDate ?? null,
      seriesEnd: summary?.lastDate ?? null,
      series: summary?.series ?? 0,
      anomalies: summary?.anomalies ?? 0,
      ...c,
      lastJob: newest.has(v.id) ? withFigures(newest.get(v.id)!) : null,
      jobsByKind: {
        load: latestJobView(l?.newest.Load, label),
        customLoad: latestJobView(l?.newest.CustomLoad, label),
        process: latestJobView(l?.newest.Process, label),
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
