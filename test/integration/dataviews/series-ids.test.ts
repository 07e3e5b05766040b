/**
 * Series ids are never given twice within a view: after clean and after undeploy, a new load numbers its series
 * above every id the view gave out before. Feedback and "already alerted" keys name series by id, so an id
 * given again would let an old "not an anomaly" hide another series' anomalies.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import {
  cleanDataView,
  deployDataView,
  enableDataView,
  type ResetDeps,
  undeployDataView,
} from '../../../lib/dataviews/lifecycle';
import { deleteJobsOfView } from '../../../lib/jobs/repository';
import { systemCaller } from '../../../lib/identity/caller';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadedDetectionView, loadView, writeSource } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { insertConnector } from './support';

const flat = (n: number) => Array.from({ length: n }, () => 100);
const spec = (countries: string[]) => ({
  name: 'series_ids',
  categories: [{ name: 'country' }],
  detectors: [],
  series: countries.map((country) => ({ categories: { country }, values: flat(10) })),
});

describe(`series ids across clean and undeploy on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let deps: ResetDeps;
  let id: number;
  const admin = systemCaller();

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    deps = {
      db: t.db,
      clock: fixedClock('2025-01-15T08:00:00Z'),
      config: { license: { plan: 'test', maxDataViews: 100 }, timeZone: 'UTC' },
      forgetJobs: deleteJobsOfView,
    };
    id = await loadedDetectionView(t.db, source, spec(['CZ', 'DE', 'PL']));
  });
  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  const ids = async () =>
    (
      await t.db.rows<{ series_id: number; series_key: string }>(
        sql.raw(`SELECT series_id, series_key FROM ${schemaNameFor(id)}.cat_map ORDER BY series_id`),
      )
    ).map((r) => ({ id: Number(r.series_id), key: r.series_key }));

  it('numbers the series of a load after clean above every id given out before', async () => {
    const before = await ids();
    expect(before.map((s) => s.id)).toEqual([1, 2, 3, 4]);
    await cleanDataView(deps, admin, id);
    await writeSource(source, spec(['AT', 'SK']));
    await loadView(t.db, source, id);
    const after = await ids();
    expect(after.map((s) => s.id)).toEqual([5, 6, 7]);
    // The same total series is another id now: the old ids name nothing.
    expect(after[0].key).toBe(before[0].key);
  });

  it('keeps doing so after undeploy and a new deployment', async () => {
    await insertConnector(t.db, 'test_source');
    await undeployDataView(deps, admin, id);
    await deployDataView(deps, admin, id);
    await enableDataView(deps, admin, id);
    await loadView(t.db, source, id);
    expect((await ids()).map((s) => s.id)).toEqual([8, 9, 10]);
  });
});
