/** A data view as every module reads it: the definition typed once, the dataset schema resolved, its state. */
import { schemaNameFor } from '../dataset/ddl';
import type { dataViews } from '../db/tables/dataviews';
import { ConflictError } from '../shared/errors';
import type { DataViewDefinition } from './definition/types';

/** A row of data_views as stored (only lib/dataviews sees it). */
export type DataViewRow = typeof dataViews.$inferSelect;

export type DataViewRecord = Omit<DataViewRow, 'definition'> & {
  /** The stored definition; it passed the schema and semantic checks when it was saved. */
  definition: DataViewDefinition;
  /** The dataset schema: the one recorded at deployment, else `dv_<id>`. */
  schema: string;
  /** `<domain> / <name>`, as anomaly records and the monitoring page name a view. */
  title: string;
};

/** A row as a DataViewRecord: the one place where the stored JSON is taken as a definition. */
export function toDataView(row: DataViewRow): DataViewRecord {
  return {
    ...row,
    definition: row.definition as unknown as DataViewDefinition,
    schema: row.schemaName ?? schemaNameFor(row.id),
    title: `${row.domain} / ${row.name}`,
  };
}

/**
 * 409 unless the view is deployed. `rest` ends the message (default '.'), e.g.
 * `; deploy it before starting jobs.` or `, so it cannot be enabled. Deploy it first.`
 */
export function assertDeployed(view: Pick<DataViewRecord, 'deployed' | 'domain' | 'name'>, rest = '.'): void {
  if (!view.deployed) throw new ConflictError(`Data view ${view.domain}/${view.name} is not deployed${rest}`);
}
