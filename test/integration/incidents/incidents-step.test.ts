/** After detection, the view's records are grouped into incidents with root causes, stored with stable ids. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import { systemCaller } from '../../../lib/identity/caller';
import { buildIncidents } from '../../../lib/incidents/step';
import { systemClock } from '../../../lib/shared/clock';
import { runDetection } from '../../../lib/process-job/start';
import { makeNormal, makeRng } from '../../../scripts/synthetic/rng';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import {
  createDetectionView,
  loadView,
  type SourceSeries,
  writeSource,
} from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const DAYS = 140;
const CATEGORIES = [{ name: 'region' }, { name: 'city', parent: 'region' }, { name: 'channel' }];
const CITIES: Array<[string, string, number]> = [
  ['North', 'Oslo', 120],
  ['North', 'Bergen', 80],
  ['South', 'Rome', 150],
  ['South', 'Milan', 100],
];
const GAP = { city: 'Milan', channel: 'app', from: 120, to: 123 };

/** Leaves of region → city × channel with weekly seasonality and Poisson-like noise; Milan's app orders stop for 4 days. */
function series(): SourceSeries[] {
  const normal = makeNormal(makeRng(5));
  const out: SourceSeries[] = [];
  for (const [region, city, size] of CITIES)
    for (const [channel, share] of [
      ['web', 0.6],
      ['app', 0.4],
    ] as const) {
      const values = Array.from({ length: DAYS }, (_, t) => {
        const mean = size * share * (t % 7 === 5 ? 1.2 : 1);
        if (city === GAP.city && channel === GAP.channel && t >= GAP.from && t <= GAP.to) return null;
        return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal()));
      });
      out.push({ categories: { region, city, channel }, values });
    }
  return out;
}

describe(`incidents after detection on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;
  const container = () => ({ db: t.db, config: loadConfig({ LOG_LEVEL: 'silent' }) }) as unknown as Container;
  const view = () => ({
    id: viewId,
    source: { schema: schemaNameFor(viewId), fill: 'zero' as const },
    categories: CATEGORIES,
  });

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
    await runDetection(container(), viewId, 1);
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
    const r = await buildIncidents({ db: t.db }, view(), 1);
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

  it('keeps the incident ids when a new run finds the same records', async () => {
    const before = await incidents();
    await runDetection(container(), viewId, 2);
    const r = await buildIncidents({ db: t.db }, view(), 2);
    const after = await incidents();
    expect(after.map((i) => i.id)).toEqual(before.map((i) => i.id));
    expect(r.created).toEqual([]);
    expect(r.explained).toBe(0);
  });
});
