/** What a data view holds: its processing status (data users) and its categories with their values (admins). */
import { datasetExists, datasetTables, schemaNameFor } from '../dataset/ddl';
import { datasetSummary } from '../dataset/summary';
import { type Caller, requireAdmin } from '../identity/caller';
import { categoryValues, dataRowCounts } from './dataset-reads';
import type { DataViewDefinition } from './definition/index';
import { stateOf, toJobInfo } from './present';
import { activeJobCounts, lastJob } from './repository';
import { visibleView } from './service';
import type { CategoryInfo, DataViewDeps, DataViewStatus } from './types';

/** Enough for a value dropdown; a category with more values says so with valuesTruncated. */
export const MAX_CATEGORY_VALUES = 1000;

/** GET /{id}/status: state, the tables present, their row counts and loaded range once deployed, and the jobs. */
export async function getDataViewStatus(
  deps: Pick<DataViewDeps, 'db'>,
  caller: Caller,
  id: number,
): Promise<DataViewStatus> {
  const { db } = deps;
  const row = await visibleView(db, caller, id);
  const schema = row.schemaName ?? schemaNameFor(row.id);
  const tables = (await datasetExists(db, schema)) ? await datasetTables(db, schema) : [];
  const job = await lastJob(db, row.id);
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
    rowCounts: row.deployed ? await dataRowCounts(db, schema, tables) : null,
    dataset: row.deployed ? ((await datasetSummary(db, schema)) ?? null) : null,
    activeJobs: await activeJobCounts(db, row.id),
    lastJob: job ? toJobInfo(job) : null,
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
  const row = await visibleView(db, caller, id);
  const def = row.definition as unknown as DataViewDefinition;
  const schema = row.schemaName ?? schemaNameFor(row.id);
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
