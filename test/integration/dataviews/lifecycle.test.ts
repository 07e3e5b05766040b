import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_TABLES } from '../../../lib/dataset/ddl';
import { stateOf } from '../../../lib/dataviews/present';
import {
  cleanDataView,
  deployDataView,
  disableDataView,
  enableDataView,
  type ResetDeps,
  undeployDataView,
} from '../../../lib/dataviews/lifecycle';
import { deleteJobsOfView } from '../../../lib/jobs/repository';
import { createDataView, deleteDataView, getDataView, updateDataView } from '../../../lib/dataviews/service';
import { getDataViewStatus } from '../../../lib/jobs/view-status';
import { type Caller, systemCaller } from '../../../lib/identity/caller';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { fixtureText, insertConnector, retailNamed, schemaExists, tablesOf } from './support';

const dataUser = (ids: number[]): Caller => ({
  userId: 2,
  email: 'user@example.com',
  role: 'data-user',
  permissions: new Set(['read', 'process']),
  via: 'token',
  dataViews: new Set(ids),
});

describe(`data view lifecycle use cases on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: ResetDeps;
  const admin = systemCaller();
  const clock = fixedClock('2025-01-15T08:00:00Z');

  beforeAll(async () => {
    t = await createTestDatabase();
    deps = {
      db: t.db,
      clock,
      config: { license: { plan: 'test', maxDataViews: 100 }, timeZone: 'UTC' },
      forgetJobs: deleteJobsOfView,
    };
    await insertConnector(t.db);
  });
  afterAll(() => t.drop());

  const row = async (id: number) =>
    (
      await t.db.rows<{ deployed: boolean; enabled: boolean; schema_name: string | null }>(
        sql`SELECT deployed, enabled, schema_name FROM data_views WHERE id = ${id}`,
      )
    )[0];

  it('moves a view through every state with the right flags and tables after each step', async () => {
    const { id } = await createDataView(deps, admin, fixtureText('minimal.yaml'));
    const schema = `dv_${id}`;
    const expectStep = async (state: string, tables: boolean) => {
      const r = await row(id);
      expect(stateOf(r)).toBe(state);
      expect(r.schema_name).toBe(tables ? schema : null);
      if (tables) expect(await tablesOf(t.db, schema)).toEqual(expect.arrayContaining([...DATASET_TABLES]));
      else expect(await schemaExists(t.db, schema)).toBe(false);
    };
    await expectStep('prepared', false);
    clock.set('2025-01-15T09:00:00Z');
    expect((await deployDataView(deps, admin, id)).deployedAt).toBe('2025-01-15T09:00:00.000Z');
    await expectStep('disabled', true);
    await enableDataView(deps, admin, id);
    await expectStep('enabled', true);
    await enableDataView(deps, admin, id); // enabling again changes nothing
    await expectStep('enabled', true);
    await disableDataView(deps, admin, id);
    await expectStep('disabled', true);
    await cleanDataView(deps, admin, id);
    await expectStep('disabled', true);
    await undeployDataView(deps, admin, id);
    await expectStep('prepared', false);
    await deleteDataView(deps, admin, id);
    expect(await row(id)).toBeUndefined();
  });

  it('removes the jobs of a view on clean and on undeploy, and counts active jobs in the status', async () => {
    const { id } = await createDataView(deps, admin, retailNamed('with_jobs'));
    await deployDataView(deps, admin, id);
    const addJobs = () =>
      t.db.rows(
        sql`INSERT INTO jobs (data_view_id, kind, status) VALUES (${id}, 'Load', 'pending'), (${id}, 'Process', 'running')`,
      );
    await addJobs();
    expect((await getDataViewStatus(deps, admin, id)).activeJobs).toEqual({ pending: 1, running: 1 });
    await cleanDataView(deps, admin, id);
    expect((await getDataViewStatus(deps, admin, id)).activeJobs).toEqual({ pending: 0, running: 0 });
    await addJobs();
    await undeployDataView(deps, admin, id);
    const [{ n }] = await t.db.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM jobs WHERE data_view_id = ${id}`,
    );
    expect(n).toBe(0);
  });

  it('drops the tables a failed deployment left when a prepared view is deleted', async () => {
    const { id } = await createDataView(deps, admin, retailNamed('left_behind'));
    await t.db.rows(sql.raw(`CREATE SCHEMA dv_${id}`));
    await deleteDataView(deps, admin, id);
    expect(await schemaExists(t.db, `dv_${id}`)).toBe(false);
  });

  it('checks the role before visibility, and hides unassigned views from a data user', async () => {
    const { id } = await createDataView(deps, admin, retailNamed('scoped'));
    await expect(deployDataView(deps, dataUser([]), id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(deployDataView(deps, dataUser([]), 99999)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(getDataView(deps, dataUser([]), id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await getDataView(deps, dataUser([id]), id)).metadata.name).toBe('scoped');
    expect(stateOf(await row(id))).toBe('prepared');
  });

  it('keeps the stored definition when an update is refused, and stamps updatedAt when one succeeds', async () => {
    const created = await createDataView(deps, admin, retailNamed('stamped'));
    await deployDataView(deps, admin, created.id);
    const renamed = retailNamed('stamped_again');
    await expect(updateDataView(deps, admin, created.id, renamed)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect((await getDataView(deps, admin, created.id)).metadata.name).toBe('stamped');
    clock.set('2025-02-01T00:00:00Z');
    const doc = retailNamed('stamped');
    doc.metadata.description = 'new words';
    const updated = await updateDataView(deps, admin, created.id, doc);
    expect(updated).toMatchObject({ updatedAt: '2025-02-01T00:00:00.000Z', state: 'disabled' });
    expect(updated.createdAt).not.toBe(updated.updatedAt);
  });
});
