/**
 * Feedback given on an incident applies to the event: every member record carries it, a filter that hides
 * dismissed records hides the whole incident (no other member stands in for it), and after the next
 * detection cycle the event does not come back as another of its members, in any measure.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import type { Caller } from '../../../lib/identity/caller';
import { putFeedback } from '../../../lib/feedback/service';
import { recordEndDate } from '../../../lib/process-job';
import { deleteIncidentFeedback, putIncidentFeedback } from '../../../lib/incidents/feedback';
import { systemClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDetectionView, loadView, writeSource } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { CATEGORIES, cityCube, incidentCycle } from './city-cube';
import { createCaller } from '../filters/fixtures';

/** Milan's orders (value and count, both channels) fall to a fifth for four days. */
const DROP = { city: 'Milan', from: 120, to: 123 };
const WINDOW = { from: '2024-04-28', to: '2024-05-05' };

const series = () =>
  cityCube(11, (city, _channel, t) => (city === DROP.city && t >= DROP.from && t <= DROP.to ? 0.2 : 1), true);

describe(`feedback on an incident on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;
  let analyst: Caller;
  let other: Caller;
  const harness = incidentCycle(
    () => t,
    () => viewId,
  );
  let lastDetail: Record<string, unknown> = {};
  const cycle = async (job: number) => {
    lastDetail = await harness.detect(job);
    return harness.incidents(job);
  };
  const run = async (settings: { incidents?: boolean; hideDismissed?: boolean }) =>
    (
      await runFilterDefinition(
        { db: t.db, clock: systemClock, timeZone: 'UTC' },
        analyst,
        { name: 'f', timeRange: 'Custom', dateFrom: WINDOW.from, dateTo: WINDOW.to, limit: 100, ...settings },
        true,
      )
    ).anomalies;
  /** Records of the view on Milan or above it, in the drop's window. */
  const milanRecords = (rows: Awaited<ReturnType<typeof run>>) =>
    rows.filter(
      (r) =>
        r.startDate <= WINDOW.to &&
        r.endDate >= WINDOW.from &&
        r.result === 'Negative' &&
        (r.categories.city === 'Milan' || r.incident?.rootCauses.some((c) => c.categories.city === 'Milan')),
    );
  let incidentId: number;
  let size: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    const o = {
      name: 'orders',
      categories: CATEGORIES,
      detectors: [{ type: 'dod' }, { type: 'spike' }, { type: 'dt' }],
      series: series(),
    };
    await writeSource(source, o);
    viewId = await createDetectionView(t.db, o);
    await loadView(t.db, source, viewId);
    await cycle(1);
    analyst = await createCaller(t.db, 'analyst@example.com', 'admin');
    other = await createCaller(t.db, 'other@example.com', 'data-user', [viewId]);
  }, 180_000);

  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  it('counts in the job what a query over the whole history returns', async () => {
    const all = await runFilterDefinition(
      { db: t.db, clock: systemClock, timeZone: 'UTC' },
      analyst,
      { name: 'all', timeRange: 'Custom', dateFrom: '2024-01-01', dateTo: '2024-05-19', limit: 100_000 },
      true,
    );
    const stored = Number(lastDetail.anomalies) + Number(lastDetail.keptAnomalies);
    expect(stored).toBe(all.anomalies.length);
    // The detectors reported more: count records that echo a value record are not published.
    expect(Number(lastDetail.detected)).toBeGreaterThan(stored);
  });

  it('stores the feedback on every member of the incident (every series, measure and level)', async () => {
    const rows = milanRecords(await run({ incidents: true }));
    expect(rows.length, JSON.stringify(rows.map((r) => [r.categories, r.type]))).toBe(1);
    incidentId = rows[0].incidentId as number;
    size = rows[0].incident?.size ?? 0;
    expect(size).toBeGreaterThan(1);
    const answer = await putIncidentFeedback(t.db, analyst, {
      dataViewId: viewId,
      incidentId,
      status: 'not-anomaly',
      note: 'load test traffic',
    });
    expect(answer.members).toHaveLength(size);
    expect(new Set(answer.members.map((m) => m.incidentId))).toEqual(new Set([incidentId]));
    // The members span more than one series (the leaf and what it moved above it).
    expect(new Set(answer.members.map((m) => m.seriesId)).size).toBeGreaterThan(1);
    // Every member record shown carries it.
    const members = (await run({})).filter((r) => r.incidentId === incidentId);
    expect(members).toHaveLength(size);
    expect(members.every((m) => m.feedback?.status === 'not-anomaly')).toBe(true);
  });

  it('hides the whole incident, not only the record it was given on', async () => {
    expect(milanRecords(await run({ incidents: true, hideDismissed: true }))).toEqual([]);
    expect(milanRecords(await run({ hideDismissed: true }))).toEqual([]);
  });

  it('refuses another user’s change and names the author; nothing is written', async () => {
    await expect(
      putIncidentFeedback(t.db, other, { dataViewId: viewId, incidentId, status: 'confirmed' }),
    ).rejects.toThrow(/analyst@example\.com/);
    const statuses = await t.db.rows<{ status: string }>(
      sql`SELECT DISTINCT status FROM anomaly_feedback WHERE data_view_id = ${viewId} AND incident_id = ${incidentId}`,
    );
    expect(statuses.map((s) => s.status)).toEqual(['not-anomaly']);
  });

  it('answers 404 for an incident the view does not have', async () => {
    await expect(
      putIncidentFeedback(t.db, analyst, { dataViewId: viewId, incidentId: 999_999, status: 'expected' }),
    ).rejects.toThrow(/Incident 999999 of data view/);
  });

  it('does not come back as another member at the next cycle, in any measure or at any level', async () => {
    await cycle(2);
    expect(milanRecords(await run({ incidents: true, hideDismissed: true }))).toEqual([]);
    expect(milanRecords(await run({ hideDismissed: true }))).toEqual([]);
    // What the detectors still report on those series in that window carries the event's feedback.
    const left = milanRecords(await run({}));
    expect(left.every((r) => r.feedback?.status === 'not-anomaly')).toBe(true);
  });

  it('is removed from every member by its author', async () => {
    const n = await deleteIncidentFeedback(t.db, analyst, viewId, incidentId);
    expect(n).toBeGreaterThanOrEqual(size);
    const [{ left }] = await t.db.rows<{ left: number }>(
      sql`SELECT count(*)::int AS left FROM anomaly_feedback WHERE data_view_id = ${viewId}`,
    );
    expect(left).toBe(0);
  });

  it('dismisses the whole incident when one member is marked on its own', async () => {
    // Without its feedback, the next cycle reports the event again.
    await cycle(3);
    const [row] = milanRecords(await run({ incidents: true }));
    expect(row?.incidentId).toBeTypeOf('number');
    incidentId = row.incidentId as number;
    const members = (await run({})).filter((r) => r.incidentId === incidentId);
    expect(members.length).toBeGreaterThan(1);
    const one = members[members.length - 1];
    await putFeedback(
      t.db,
      analyst,
      {
        dataViewId: viewId,
        seriesId: one.seriesId,
        measure: one.measure ?? 'value',
        type: one.type,
        startDate: one.startDate,
        status: 'expected',
      },
      recordEndDate,
    );
    const hidden = await run({ hideDismissed: true });
    expect(hidden.filter((r) => r.incidentId === incidentId)).toEqual([]);
    expect(milanRecords(await run({ incidents: true, hideDismissed: true }))).toEqual([]);
    // Without hideDismissed every member is still listed; only the marked one carries the feedback.
    const shown = (await run({})).filter((r) => r.incidentId === incidentId);
    expect(shown.length).toBe(members.length);
    expect(shown.filter((r) => r.feedback).length).toBe(1);
  });
});
