/** The categories of a data view with the values its dataset holds (admins: the comment form's dropdowns). */
import { datasetTables } from '../dataset/ddl';
import { type Caller, requireAdmin } from '../identity/caller';
import { categoryValues } from '../dataset/dataset-reads';
import { readView } from './scope';
import type { CategoryInfo, DataViewDeps } from './types';

/** Enough for a value dropdown; a category with more values says so with valuesTruncated. */
export const MAX_CATEGORY_VALUES = 1000;

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
