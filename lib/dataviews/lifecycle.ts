/**
 * The data view state machine (spec: States and transitions): prepared → deploy → disabled ⇄ enabled,
 * undeploy back to prepared, clean keeps the state. Each action runs in one transaction on the
 * locked row and answers the updated summary; an action the state does not allow is a 409.
 */
import {
  cleanDataset,
  createDataset,
  datasetExists,
  dropDataset,
  maxSeriesId,
  schemaNameFor,
} from '../dataset/ddl';
import type { Database } from '../db/database';
import { type Caller, requireAdmin } from '../identity/caller';
import { ConflictError, ValidationError } from '../shared/errors';
import { checkDefinition } from './checked-definition';
import { label, toSummary } from './present';
import { updateView } from './repository';
import { readView } from './scope';
import type { DataViewDeps, DataViewSummary } from './types';
import { assertDeployed, type DataViewRecord } from './views';

type Action = (db: Database, row: DataViewRecord) => Promise<DataViewRecord>;

/** Removes a view's job rows inside the action's transaction: the jobs table is lib/jobs's, handed in from lib/app. */
export type ForgetJobs = (db: Database, dataViewId: number) => Promise<number>;

/** Undeploy and clean remove the view's jobs too. */
export type ResetDeps = DataViewDeps & { forgetJobs: ForgetJobs };

async function act(deps: DataViewDeps, caller: Caller, id: number, action: Action): Promise<DataViewSummary> {
  requireAdmin(caller);
  return toSummary(
    await deps.db.tx(async (db) => action(db, await readView(caller, db, id, { forUpdate: true }))),
  );
}

/** The series id floor to keep when the series go: new series of a later load are numbered above it. */
async function floorBefore(db: Database, row: DataViewRecord): Promise<number> {
  return Math.max(row.seriesIdFloor, await maxSeriesId(db, row.schema));
}

function requireDeployed(row: DataViewRecord, action: string): void {
  assertDeployed(row, `, so it cannot be ${action}. Deploy it first.`);
}

/** POST /{id}/deploy: validates again, creates the dataset and leaves the view disabled. */
export function deployDataView(deps: DataViewDeps, caller: Caller, id: number): Promise<DataViewSummary> {
  return act(deps, caller, id, async (db, row) => {
    if (row.deployed) {
      throw new ConflictError(
        `Data view ${label(row)} is already deployed. Delete the deployment first to deploy it again.`,
      );
    }
    let def: Awaited<ReturnType<typeof checkDefinition>>;
    try {
      def = await checkDefinition(db, row.definition);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      throw new ValidationError(`Deploy refused; the data view stays prepared. ${e.message}`, e.errors, e);
    }
    const schema = schemaNameFor(row.id);
    if (await datasetExists(db, schema)) {
      throw new ConflictError(
        `Tables of a previous deployment exist in schema ${schema}; clean the objects or delete the deployment (undeploy) first.`,
      );
    }
    await createDataset(db, schema, { categories: def.categories });
    const now = deps.clock.now();
    return updateView(db, row.id, {
      deployed: true,
      enabled: false,
      schemaName: schema,
      deployedAt: now,
      updatedAt: now,
    });
  });
}

/** POST /{id}/enable: a deployed view starts taking scheduled and manual jobs; enabling an enabled view changes nothing. */
export function enableDataView(deps: DataViewDeps, caller: Caller, id: number): Promise<DataViewSummary> {
  return act(deps, caller, id, async (db, row) => {
    requireDeployed(row, 'enabled');
    if (row.enabled) return row;
    return updateView(db, row.id, { enabled: true, updatedAt: deps.clock.now() });
  });
}

/** POST /{id}/disable: stops scheduled and manual loads; disabling a disabled view changes nothing. */
export function disableDataView(deps: DataViewDeps, caller: Caller, id: number): Promise<DataViewSummary> {
  return act(deps, caller, id, async (db, row) => {
    requireDeployed(row, 'disabled');
    if (!row.enabled) return row;
    return updateView(db, row.id, { enabled: false, updatedAt: deps.clock.now() });
  });
}

/**
 * POST /{id}/undeploy: drops every table and datum and the view's jobs, back to prepared. On a
 * prepared view it removes tables left by an earlier deployment (the remedy deploy names), else 409.
 */
export function undeployDataView(deps: ResetDeps, caller: Caller, id: number): Promise<DataViewSummary> {
  return act(deps, caller, id, async (db, row) => {
    const schema = row.schema;
    if (!row.deployed && !(await datasetExists(db, schema))) {
      throw new ConflictError(`Data view ${label(row)} is not deployed; there is no deployment to delete.`);
    }
    const seriesIdFloor = await floorBefore(db, row);
    await dropDataset(db, schema);
    await deps.forgetJobs(db, row.id);
    return updateView(db, row.id, {
      seriesIdFloor,
      deployed: false,
      enabled: false,
      schemaName: null,
      deployedAt: null,
      updatedAt: deps.clock.now(),
    });
  });
}

/** POST /{id}/clean: empties int, data, cat_map, all_series and all_anomalies and removes the view's jobs; the state stays. */
export function cleanDataView(deps: ResetDeps, caller: Caller, id: number): Promise<DataViewSummary> {
  return act(deps, caller, id, async (db, row) => {
    requireDeployed(row, 'cleaned');
    const seriesIdFloor = await floorBefore(db, row);
    await cleanDataset(db, row.schema);
    await deps.forgetJobs(db, row.id);
    return updateView(db, row.id, { seriesIdFloor, updatedAt: deps.clock.now() });
  });
}
