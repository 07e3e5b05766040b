/**
 * The URL of a dismissed incident keeps answering (docs/incidents.md, "Storage"): "not an anomaly" keeps the
 * incident's own records out of the next detection (docs/feedback.md, "Feedback that teaches"), so its id can
 * hold no record any more while what is left of the event comes back under another id that inherits the
 * feedback by its footprint (on the demo: an Ostrava app outage dismissed, the city's count of channels back
 * as a new incident). The old id answers that incident with `movedFrom`, not 404.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentDetail } from '../../../lib/anomalies/incident';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import type { Caller } from '../../../lib/identity/caller';
import { putIncidentFeedback } from '../../../lib/incidents/feedback';
import { systemClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDetectionView, loadView, writeSource } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { createCaller } from '../filters/fixtures';
import { CATEGORIES, cityCube, incidentCycle } from './city-cube';

/** Milan's app channel stops selling on day 120 and stays gone to the end. */
const options = {
  name: 'orders',
  categories: CATEGORIES,
  detectors: [{ type: 'dod' }, { type: 'changepoint', params: { minSegment: 14 } }],
  series: cityCube(
    13,
    (city, channel, t) => (city === 'Milan' && channel === 'app' && t >= 120 ? null : 1),
    true,
  ),
};
/** The id the event was dismissed under, of an incident whose records detection no longer reports. */
const GONE = 5000;

describe(`a dismissed incident's id once its records are gone on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;
  let analyst: Caller;
  const harness = incidentCycle(
    () => t,
    () => viewId,
  );
  const deps = () => ({ db: t.db, clock: systemClock, timeZone: 'UTC' });
  const run = async () =>
    (
      await runFilterDefinition(
        deps(),
        analyst,
        {
          name: 'f',
          timeRange: 'Custom',
          dateFrom: '2024-04-01',
          dateTo: '2024-05-19',
          limit: 100,
          incidents: true,
        },
        true,
        { showDismissed: true },
      )
    ).anomalies;

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    await writeSource(source, options);
    viewId = await createDetectionView(t.db, options);
    await loadView(t.db, source, viewId);
    await harness.detect(1);
    await harness.incidents(1);
    analyst = await createCaller(t.db, 'analyst@example.com', 'admin');
  }, 180_000);

  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  it('answers the dismissed id with the incident that inherited its feedback, not 404', async () => {
    const [row] = (await run()).filter((r) => r.result === 'Negative' && r.categories.city === 'Milan');
    expect(row?.incidentId).toBeTypeOf('number');
    const heir = row.incidentId as number;
    await putIncidentFeedback(t.db, analyst, { dataViewId: viewId, incidentId: heir, status: 'not-anomaly' });
    // As after a regrouping: the event was dismissed as incident GONE, whose stored records are reported no more
    // (their keys name a day nothing starts on), and the event's records stand in an incident of another id.
    const s = schemaNameFor(viewId);
    await t.db.rows(
      sql.raw(`INSERT INTO ${s}.incidents (id, result, measures, types, start_date, end_date, size, series_id, broad, root_causes,
        head_series_id, head_measure, head_type, head_start, member_keys, first_seen_at, first_seen_job, explained_from)
      SELECT ${GONE}, result, measures, types, start_date, end_date, 1, series_id, broad, root_causes, head_series_id, head_measure,
        head_type, DATE '2020-01-01', ARRAY[head_series_id || '|value|' || head_type || '|2020-01-01'], first_seen_at,
        first_seen_job, NULL FROM ${s}.incidents WHERE id = ${heir}`),
    );
    await t.db.rows(sql`UPDATE event_feedback SET incident_id = ${GONE} WHERE data_view_id = ${viewId}`);
    await t.db.rows(sql`DELETE FROM anomaly_feedback WHERE data_view_id = ${viewId}`);
    // No record stands in it: until a cycle says where its event went, the id finds nothing.
    await expect(incidentDetail(deps(), analyst, viewId, GONE)).rejects.toThrow(/not found/);
    await harness.incidents(2);

    const moved = await incidentDetail(deps(), analyst, viewId, GONE);
    expect(moved.movedFrom).toEqual({ incidentId: GONE, movedTo: [heir] });
    expect(moved.incidentId).toBe(heir);
    expect(moved.feedback).toMatchObject({ status: 'not-anomaly', incidentId: GONE });
    // An id that never was still is one.
    await expect(incidentDetail(deps(), analyst, viewId, 987_654)).rejects.toThrow(/not found/);
  });
});
