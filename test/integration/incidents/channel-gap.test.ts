/**
 * One event is one incident (docs/incidents.md, "Grouping"): a channel that stops everywhere for four days is
 * one incident holding the channel's, the regions' and every city's own gap records, not one more incident
 * per city.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDetectionView, loadView, writeSource } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { CATEGORIES, cityCube, incidentCycle } from './city-cube';

const GAP = { channel: 'app', from: 120, to: 123 };
const FIRST = '2024-04-30';
const LAST = '2024-05-03';

describe(`a channel-wide gap on ${backendName}`, () => {
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
      series: cityCube(7, (_city, channel, d) =>
        channel === GAP.channel && d >= GAP.from && d <= GAP.to ? null : 1,
      ),
    };
    await writeSource(source, o);
    viewId = await createDetectionView(t.db, o);
    await loadView(t.db, source, viewId);
    await cycle.detect(1);
    await cycle.incidents(1);
  }, 180_000);

  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  it('is one incident holding every city’s own gap', async () => {
    const s = schemaNameFor(viewId);
    const rows = await t.db.rows<{
      incident_id: number;
      city: string | null;
      channel: string | null;
      type: string;
    }>(
      sql.raw(`SELECT a.incident_id, m.c_city AS city, m.c_channel AS channel, a.type FROM ${s}.all_anomalies a
        JOIN ${s}.cat_map m ON m.series_id = a.series_id
        WHERE a.result = 'Negative' AND a.start_date BETWEEN '${FIRST}'::date - 1 AND '${LAST}'::date AND m.c_channel = 'app'`),
    );
    const cities = rows.filter((r) => r.city !== null);
    expect(new Set(cities.map((r) => r.city)).size, JSON.stringify(rows)).toBe(4);
    expect(new Set(rows.map((r) => r.incident_id)), JSON.stringify(rows)).toEqual(
      new Set([rows[0].incident_id]),
    );
    const [incident] = await t.db.rows<{ root_causes: Array<{ categories: Record<string, string | null> }> }>(
      sql.raw(`SELECT root_causes FROM ${s}.incidents WHERE id = ${rows[0].incident_id}`),
    );
    expect(incident.root_causes[0].categories).toEqual({ region: null, city: null, channel: 'app' });
  });
});
