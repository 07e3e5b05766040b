/** What a data view holds: its processing status (data users) and its categories with their values (admins). */
import { datasetTables } from '../dataset/ddl';
import { catalogTables, estimatesOf, summarizeDataset } from '../dataset/summary';
import { type Caller, requireAdmin } from '../identity/caller';
import { type LatestJobRow, latestJobs, newerFinished } from '../jobs/latest';
import { jobFigures } from '../jobs/progress';
import { nextRuns } from '../schedule/cron';
import { categoryValues } from './dataset-reads';
import { stateOf } from './present';
import { activeJobCounts } from './repository';
import { readView } from './scope';
import type { DataViewRecord } from './views';
import type { CategoryInfo, DataViewDeps, DataViewStatus, JobInfo, LoadSchedule } from './types';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function jobInfo(j: LatestJobRow | undefined): JobInfo | null {
  if (!j) return null;
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

/** Enough for a value dropdown; a category with more values says so with valuesTruncated. */
export const MAX_CATEGORY_VALUES = 1000;

/**
 * GET /{id}/status: state, the tables present with their estimated row counts, the loaded range and
 * counts, and the newest job of each kind (load, custom load, process) with its progress.
 * The load schedule with its next run. Reads, none of them on the view's tables: the view row, the jobs (DISTINCT ON per kind, active
 * counts) and the catalog (information_schema, pg_class); it answers at once during a load or a detection (lib/dataset/summary.ts).
 */
export async function getDataViewStatus(
  deps: Pick<DataViewDeps, 'db' | 'clock'> & { config: Pick<DataViewDeps['config'], 'timeZone'> },
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
    lastJob: jobInfo(newest[0]),
    jobs: {
      load: jobInfo(l?.newest.Load),
      customLoad: jobInfo(l?.newest.CustomLoad),
      process: jobInfo(l?.newest.Process),
    },
  };
}

/** GET /{id}/categories (admins): name, label, parent and, once deployed, the values seen in cat_map. */
export async function getDataViewCategories(
  deps: Pick<DataViewDeps, 'db'>,
  caller: Caller,
  id: number,
): Promise<CategoryInfo[]> {
  requireAdmin(caller);
  const { db } = deps;
  const row = await readView(caller, db, id);
  const def = row.definition;
  const schema = row.schema;
  const readable = row.deployed && (await datasetTables(db, schema)).includes('cat_map');
  const out: CategoryInfo[] = [];
  for (const c of def.categories) {
    const found = readable ? await categoryValues(db, schema, c.name, MAX_CATEGORY_VALUES) : undefined;
    out.push({
      name: c.name,
      label: c.label,
      parent: c.parent ?? null,
      values: found?.values ?? [],
      valuesTruncated: found?.truncated ?? false,
    });
  }
  return out;
}
