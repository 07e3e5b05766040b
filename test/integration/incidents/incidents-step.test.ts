/** After detection, the view's records are grouped into incidents with root causes, stored with stable ids. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import { systemCaller } from '../../../lib/identity/caller';
import { systemClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDetectionView, loadView, writeSource } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { CATEGORIES, cityCube, incidentCycle } from './city-cube';

const GAP = { city: 'Milan', channel: 'app', from: 120, to: 123 };

/** Milan's app orders stop for 4 days. */
const series = () =>
  cityCube(5, (city, channel, t) =>
    city === GAP.city && channel === GAP.channel && t >= GAP.from && t <= GAP.to ? null : 1,
  );

describe(`incidents after detection on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;
  const cycle = incidentCycle(
    () => t,
    () => viewId,
  );

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    const o = {
      name: 'orders',
      categories: CATEGORIES,
      detectors: [{ type: 'gap' }, { type: 'dod' }, { type: 'spike' }, { type: 'dt' }],
      series: series(),
    };
    await writeSource(source, o);
    viewId = await createDetectionView(t.db, o);
    await loadView(t.db, source, viewId);
    await cycle.detect(1);
  }, 120_000);

  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  const incidents = () =>
    t.db.rows<{
      id: number;
      size: number;
      broad: { categories: Record<string, string | null> };
      root_causes: Array<{ categories: Record<string, string | null>; explainsPct: number }>;
      start_date: string;
    }>(
      sql.raw(
        `SELECT id, size, broad, root_causes, to_char(start_date, 'YYYY-MM-DD') AS start_date FROM ${schemaNameFor(viewId)}.incidents ORDER BY id`,
      ),
    );

  it('groups the gap of one leaf with what it moved above it, and names the leaf as the root cause', async () => {
    const r = await cycle.incidents(1);
    expect(r.incidents).toBeGreaterThan(0);
    const all = await incidents();
    const gap = all.find(
      (i) => i.start_date <= '2024-05-03' && i.root_causes.some((c) => c.categories.city === 'Milan'),
    );
    expect(
      gap,
      JSON.stringify(
        all.map((i) => [i.start_date, i.broad.categories, i.root_causes.map((c) => c.categories)]),
      ),
    ).toBeDefined();
    expect(gap?.root_causes[0].categories).toEqual({ region: 'South', city: 'Milan', channel: 'app' });
    expect(gap?.size).toBeGreaterThan(1);
    // The incident reaches above the leaf: its broad series leaves a category at "all".
    expect(Object.values(gap?.broad.categories ?? {}).some((v) => v === null)).toBe(true);
  });

  it('sets every record’s incident id to one of the view’s incidents', async () => {
    const s = schemaNameFor(viewId);
    const [row] = await t.db.rows<{ records: number; without: number; unknown: number }>(
      sql.raw(`SELECT count(*)::int AS records, count(*) FILTER (WHERE incident_id IS NULL)::int AS without,
        count(*) FILTER (WHERE incident_id IS NOT NULL AND incident_id NOT IN (SELECT id FROM ${s}.incidents))::int AS unknown
        FROM ${s}.all_anomalies`),
    );
    expect(row.records).toBeGreaterThan(0);
    expect(row.without).toBe(0);
    expect(row.unknown).toBe(0);
  });

  it('answers a filter with incidents on as one row per incident, named by its root cause', async () => {
    const deps = { db: t.db, clock: systemClock, timeZone: 'UTC' };
    const body = {
      name: 'f',
      timeRange: 'Custom' as const,
      dateFrom: '2024-01-01',
      dateTo: '2024-05-19',
      limit: 100,
    };
    const rows = (await runFilterDefinition(deps, systemCaller(), { ...body, incidents: true }, true))
      .anomalies;
    const records = (await runFilterDefinition(deps, systemCaller(), body, true)).anomalies;
    expect(rows.length).toBeLessThan(records.length);
    expect(new Set(rows.map((r) => r.incidentId)).size).toBe(rows.length);
    const gap = rows.find((r) => r.incident?.rootCauses.some((c) => c.categories.city === 'Milan'));
    expect(gap?.categories).toEqual({ region: 'South', city: 'Milan', channel: 'app' });
    expect(gap?.incident?.size).toBeGreaterThan(1);
    // Every record the plain filter shows belongs to exactly one of the rows' incidents.
    const shown = new Set(rows.map((r) => r.incidentId));
    expect(records.every((r) => shown.has(r.incidentId))).toBe(true);
  });

  it('keeps the incident ids when a new run finds the same records, and leaves their rows unwritten', async () => {
    const before = await incidents();
    const versions = () =>
      t.db.rows<{ id: number; v: string }>(
        sql.raw(`SELECT id, xmin::text AS v FROM ${schemaNameFor(viewId)}.incidents ORDER BY id`),
      );
    const written = await versions();
    await cycle.detect(2);
    const r = await cycle.incidents(2);
    const after = await incidents();
    expect(after.map((i) => i.id)).toEqual(before.map((i) => i.id));
    expect(after).toEqual(before);
    expect(r.created).toEqual([]);
    expect(r.explained).toBe(0);
    // An incident whose row would be the same is not deleted and inserted again.
    expect(await versions()).toEqual(written);
  });

  it('carries each record’s incident id through the next run by its key, so the step writes none of them', async () => {
    const s = schemaNameFor(viewId);
    const records = () =>
      t.db.rows<{ k: string; incident: number | null; v: string }>(
        sql.raw(`SELECT concat_ws(':', series_id, measure, type, start_date) AS k, incident_id AS incident, xmin::text AS v
          FROM ${s}.all_anomalies ORDER BY 1`),
      );
    const before = await records();
    expect(before.every((r) => r.incident !== null)).toBe(true);
    await cycle.detect(3);
    // The new run's records (new rows, new ids) already carry the incident of the record they replace.
    const published = await records();
    expect(published.map(({ k, incident }) => [k, incident])).toEqual(
      before.map(({ k, incident }) => [k, incident]),
    );
    await cycle.incidents(3);
    // No record's incident changed: none was written again.
    expect(await records()).toEqual(published);
  });
});
