/**
 * A dismissed event stays dismissed (docs/feedback.md, "On an incident"): after "not an anomaly" on an
 * incident, detection runs again — on the same data, on data where the event grew by a day, and after a
 * regrouping that gave every incident a new id and left no record's own feedback — and the event comes back
 * in no form: not listed by default, not new (so never alerted), never above an undismissed row. An event
 * that grows by a day keeps its id and is not new again; a dissolved id answers where its records went.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentDetail } from '../../../lib/anomalies/incident';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import type { AnomalyRecord } from '../../../lib/filters/types';
import type { Caller } from '../../../lib/identity/caller';
import { putIncidentFeedback } from '../../../lib/incidents/feedback';
import { systemClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDetectionView, loadView, writeSource } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { createCaller } from '../filters/fixtures';
import { CATEGORIES, cityCube, incidentCycle } from './city-cube';

const WINDOW = { from: '2024-04-01', to: '2024-05-19' };

/** Milan's orders fall to a fifth (days drop..123); Oslo's triple (days spike..102). */
const series = (drop: number, spike: number) =>
  cityCube(
    11,
    (city, _channel, t) =>
      city === 'Milan' && t >= drop && t <= 123 ? 0.2 : city === 'Oslo' && t >= spike && t <= 102 ? 3 : 1,
    true,
  );

describe(`a dismissed event stays dismissed on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;
  let analyst: Caller;
  const harness = incidentCycle(
    () => t,
    () => viewId,
  );
  const cycle = async (job: number) => {
    await harness.detect(job);
    return harness.incidents(job);
  };
  const options = {
    name: 'orders',
    categories: CATEGORIES,
    detectors: [{ type: 'dod' }, { type: 'spike' }, { type: 'dt' }],
  };
  const deps = () => ({ db: t.db, clock: systemClock, timeZone: 'UTC' });
  const run = async (showDismissed?: boolean, members = false) =>
    (
      await runFilterDefinition(
        deps(),
        analyst,
        {
          name: 'f',
          timeRange: 'Custom',
          dateFrom: WINDOW.from,
          dateTo: WINDOW.to,
          limit: 100,
          incidents: true,
        },
        true,
        { ...(showDismissed === undefined ? {} : { showDismissed }), members },
      )
    ).anomalies;
  const milan = (rows: AnomalyRecord[]) =>
    rows.filter(
      (r) =>
        r.result === 'Negative' &&
        (r.categories.city === 'Milan' || r.incident?.rootCauses.some((c) => c.categories.city === 'Milan')),
    );
  const oslo = (rows: AnomalyRecord[]) =>
    rows.filter(
      (r) => r.result === 'Positive' && r.incident?.rootCauses.some((c) => c.categories.city === 'Oslo'),
    );
  const reload = async (drop: number, spike: number) => {
    await writeSource(source, { ...options, series: series(drop, spike) });
    await loadView(t.db, source, viewId);
  };
  let dismissed: number;
  let osloId: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    const o = { ...options, series: series(120, 100) };
    await writeSource(source, o);
    viewId = await createDetectionView(t.db, o);
    await loadView(t.db, source, viewId);
    await cycle(1);
    analyst = await createCaller(t.db, 'analyst@example.com', 'admin');
  }, 180_000);

  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  it('dismisses the event and leaves it out of the list by default', async () => {
    const [row] = milan(await run());
    expect(row?.incidentId).toBeTypeOf('number');
    dismissed = row.incidentId as number;
    const [o] = oslo(await run());
    expect(o?.incidentId).toBeTypeOf('number');
    osloId = o.incidentId as number;
    await putIncidentFeedback(t.db, analyst, {
      dataViewId: viewId,
      incidentId: dismissed,
      status: 'not-anomaly',
    });
    expect(milan(await run(false))).toEqual([]);
    // Shown on request, below every row that is not dismissed.
    const all = await run(true);
    const at = all.findIndex((r) => r.incidentId === dismissed);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(all.slice(at).every((r) => r.feedback?.status === 'not-anomaly')).toBe(true);
  });

  it('does not come back, nor as new, when detection runs again on the same data', async () => {
    const r = await cycle(2);
    expect(milan(await run(false))).toEqual([]);
    const fresh = (await run(false)).filter((row) => r.created.includes(row.incidentId as number));
    expect(fresh).toEqual([]);
  });

  it('keeps an event that grew by a day at its start under its id, not new again; the dismissed one stays out', async () => {
    await reload(119, 99);
    const r = await cycle(3);
    const rows = await run(false);
    expect(milan(rows)).toEqual([]);
    const [o] = oslo(rows);
    expect(o?.incidentId).toBe(osloId);
    expect(r.created).not.toContain(osloId);
    // Whatever the grown event's incident is now, it is not among this cycle's new incidents that a filter lists.
    expect(rows.filter((row) => r.created.includes(row.incidentId as number) && milan([row]).length)).toEqual(
      [],
    );
  });

  it('stays dismissed across a regrouping that gives every incident a new id, by its footprint alone', async () => {
    const s = schemaNameFor(viewId);
    await t.db.rows(sql.raw(`DELETE FROM ${s}.incidents`));
    await t.db.rows(sql.raw(`UPDATE ${s}.all_anomalies SET incident_id = NULL`));
    // No record keeps its own feedback: only the event's footprint remembers it.
    await t.db.rows(sql`DELETE FROM anomaly_feedback WHERE data_view_id = ${viewId}`);
    await reload(118, 99);
    const r = await cycle(4);
    expect(r.created.length).toBeGreaterThan(0);
    expect(milan(await run(false))).toEqual([]);
    const shown = milan(await run(true, true));
    expect(shown.length).toBeGreaterThan(0);
    for (const row of shown) {
      expect(row.feedback?.status).toBe('not-anomaly');
      expect(row.feedback?.incidentId).toBe(dismissed);
      expect(row.members?.every((m) => m.feedback?.status === 'not-anomaly')).toBe(true);
    }
  });

  it('names every member’s series on the incident page', async () => {
    const [o] = oslo(await run());
    const detail = await incidentDetail(deps(), analyst, viewId, o.incidentId as number);
    expect(detail.members?.length).toBeGreaterThan(1);
    for (const m of detail.members ?? [])
      expect(Object.keys(m.categories)).toEqual(['region', 'city', 'channel']);
    expect(detail.members?.some((m) => m.categories.city === 'Oslo')).toBe(true);
  });

  it('answers a dissolved id with the incident that now holds its records', async () => {
    const [o] = oslo(await run());
    const s = schemaNameFor(viewId);
    // A previous incident that held one of its records (two incidents that a regrouping makes one).
    await t.db.rows(
      sql.raw(`INSERT INTO ${s}.incidents (id, result, measures, types, start_date, end_date, size, series_id, broad, root_causes,
        head_series_id, head_measure, head_type, head_start, member_keys, first_seen_at, first_seen_job, explained_from)
      SELECT 5000, result, measures, types, start_date, end_date, 1, series_id, broad, root_causes, head_series_id, head_measure,
        head_type, head_start, member_keys[1:1], first_seen_at, first_seen_job, NULL FROM ${s}.incidents WHERE id = ${o.incidentId}`),
    );
    await harness.incidents(5);
    const moved = await incidentDetail(deps(), analyst, viewId, 5000);
    expect(moved.movedFrom).toEqual({ incidentId: 5000, movedTo: [o.incidentId] });
    expect(moved.incidentId).toBe(o.incidentId);
    await expect(incidentDetail(deps(), analyst, viewId, 987_654)).rejects.toThrow(/not found/);
  });
});
