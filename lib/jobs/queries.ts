/** Reading jobs and the monitoring summary, limited to the data views the caller may see. */
import { inArray } from 'drizzle-orm';
import { datasetSummary } from '../dataset/summary';
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
import { findJobView, jobCountsByView, lastImports, listJobRows, newestJobs } from './repository';
import type { JobListQuery, JobView, Monitoring, MonitoringRow } from './types';

export const MAX_JOB_LIST = 1000;

/** GET /jobs: newest first, filtered by data view, status and kind. */
export async function listJobs(db: Database, caller: Caller, q: JobListQuery): Promise<JobView[]> {
  requireRead(caller);
  if (q.dataViewId !== undefined) assertDataViewVisible(caller, q.dataViewId);
  const limit = Math.min(Math.max(q.limit ?? 100, 1), MAX_JOB_LIST);
  return listJobRows(db, { ...q, limit }, visibleDataViewIds(caller));
}

/** GET /jobs/{id}: a job of a data view the caller may see. */
export async function getJob(db: Database, caller: Caller, id: number): Promise<JobView> {
  requireRead(caller);
  const job = await findJobView(db, id);
  if (!job || !canSeeDataView(caller, job.dataViewId)) throw new NotFoundError(`Job ${id} was not found.`);
  return job;
}

const stateOf = (r: DataViewRow) => (!r.deployed ? 'prepared' : r.enabled ? 'enabled' : 'disabled');

/** GET /monitoring: per visible data view its last import, series range, anomalies and job counts, with totals. */
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
  const [counts, imports, newest] = await Promise.all([
    jobCountsByView(db, ids),
    lastImports(db),
    newestJobs(db, ids),
  ]);
  const rows: MonitoringRow[] = [];
  for (const v of views) {
    const summary = v.deployed ? await datasetSummary(db, v.schemaName ?? `dv_${v.id}`) : undefined;
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
      lastJob: newest.get(v.id) ?? null,
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
