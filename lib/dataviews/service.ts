/** Data view use cases: create, update, delete, read and list (the lifecycle actions are in ./lifecycle). */
import { datasetExists, dropDataset, schemaNameFor } from '../dataset/ddl';
import { type Caller, isAdmin, requireAdmin } from '../identity/caller';
import { ConflictError } from '../shared/errors';
import { type DataViewDefinition, tagList } from './definition/index';
import { checkDraft } from './draft';
import { assertBelowLicenseLimit } from './license';
import { label, toDocument, toLite, toReaderDocument, toReaderSummary, toSummary } from './present';
import { deleteView, insertView, lockViewCreation, updateView } from './repository';
import { readView, readViews } from './scope';
import type {
  DataViewDeps,
  DataViewDocument,
  DataViewListQuery,
  DataViewLite,
  DataViewSummary,
} from './types';

/** The columns of data_views that mirror the definition (for lists and filters). */
function columnsOf(def: DataViewDefinition) {
  return {
    name: def.metadata.name,
    domain: def.metadata.domain,
    description: def.metadata.description ?? '',
    tags: tagList(def.metadata.tags),
    connector: def.source.connector,
    definition: def as unknown as Record<string, unknown>,
  };
}

/** POST /dataviews: a new, prepared view from Fact JSON or YAML; refused at the licence limit. */
export async function createDataView(
  deps: DataViewDeps,
  caller: Caller,
  body: unknown,
): Promise<DataViewDocument> {
  requireAdmin(caller);
  return deps.db.tx(async (db) => {
    await lockViewCreation(db);
    await assertBelowLicenseLimit({ db, config: deps.config });
    const def = await checkDraft(db, body);
    const now = deps.clock.now();
    return toDocument(await insertView(db, { ...columnsOf(def), createdAt: now, updatedAt: now }));
  });
}

/** PUT /dataviews/{id}: replaces the definition; name, domain and categories are locked while deployed. */
export async function updateDataView(
  deps: DataViewDeps,
  caller: Caller,
  id: number,
  body: unknown,
): Promise<DataViewDocument> {
  requireAdmin(caller);
  return deps.db.tx(async (db) => {
    const row = await readView(caller, db, id, { forUpdate: true });
    const def = await checkDraft(db, body, row);
    return toDocument(await updateView(db, id, { ...columnsOf(def), updatedAt: deps.clock.now() }));
  });
}

/** DELETE /dataviews/{id}: only a prepared view; a deployed one must be undeployed first. */
export async function deleteDataView(deps: DataViewDeps, caller: Caller, id: number): Promise<void> {
  requireAdmin(caller);
  await deps.db.tx(async (db) => {
    const row = await readView(caller, db, id, { forUpdate: true });
    if (row.deployed) {
      throw new ConflictError(
        `Data view ${label(row)} is deployed; delete the deployment (undeploy) first, then delete the data view.`,
      );
    }
    // Leftovers of a failed or interrupted deployment would otherwise stay behind unowned.
    const schema = schemaNameFor(id);
    if (await datasetExists(db, schema)) await dropDataset(db, schema);
    await deleteView(db, id);
  });
}

/**
 * GET /dataviews/{id}: the definition with id, state, createdAt and updatedAt; a data user's without the
 * connector, the load queries and the data source (toReaderDocument).
 */
export async function getDataView(
  deps: Pick<DataViewDeps, 'db'>,
  caller: Caller,
  id: number,
): Promise<DataViewDocument> {
  const row = await readView(caller, deps.db, id);
  return isAdmin(caller) ? toDocument(row) : toReaderDocument(row);
}

/** GET /dataviews: the caller's views, filtered by name (substring), domain and tag. */
export async function listDataViews(
  deps: Pick<DataViewDeps, 'db'>,
  caller: Caller,
  query: DataViewListQuery = {},
): Promise<Array<DataViewSummary | Omit<DataViewSummary, 'connector'>>> {
  return (await readViews(caller, deps.db, query)).map(isAdmin(caller) ? toSummary : toReaderSummary);
}

/** GET /dataviews/lite: id, name, domain and state of the caller's views. */
export async function listDataViewsLite(
  deps: Pick<DataViewDeps, 'db'>,
  caller: Caller,
): Promise<DataViewLite[]> {
  return (await readViews(caller, deps.db)).map(toLite);
}
