import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogLevel } from '../../../lib/shared/logger';
import { DEMO_VIEW } from '../../../scripts/demo/definition';
import { seedDemo } from '../../../scripts/demo/seed';
import { type DemoSource, startDemoSource } from '../../../scripts/demo/source';
import { backendName } from '../../support/db';
import { viewSeries } from '../../support/view-series';
import { ADMIN, startTestService, type TestService } from '../../support/service';

describe(`the npm start demo on ${backendName}`, () => {
  let s: TestService;
  let source: DemoSource;
  const dir = mkdtempSync(path.join(tmpdir(), 'demo-'));

  beforeAll(async () => {
    s = await startTestService({}, { workers: true });
    setLogLevel('silent');
    source = await startDemoSource(dir, new Date('2026-03-10T08:00:00Z'));
  }, 300_000);
  afterAll(async () => {
    await s.stop();
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds a source with 2.5 years of data, and a data view deployed, enabled and loaded through the API', async () => {
    expect(source).toMatchObject({ anchor: '2026-03-09' });
    expect(source.added).toBeGreaterThan(25_000);
    const lines = await seedDemo({ url: s.url, admin: ADMIN, connString: source.connString });
    expect(lines.join('\n')).toMatch(
      /demo \/ store_sales \(id \d+\): 84 series, 2023-09-09 to 2026-03-09, \d+ anomalies/,
    );
    const views = (
      await s.call('GET', `/api/v1/dataviews?domain=${DEMO_VIEW.domain}`, { auth: s.adminToken })
    ).body;
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ name: 'store_sales', state: 'enabled' });
    // The injected gap: Graz / store has no rows on 2026-02-16..20, filled with zeros.
    const found = await s.container.db.rows<{ id: number }>(
      sql.raw(
        `SELECT series_id AS id FROM dv_${views[0].id}.cat_map m WHERE m.c_city = 'Graz' AND m.c_channel = 'store'`,
      ),
    );
    expect(found).toHaveLength(1);
    const series = await viewSeries(s.container.db, views[0].id);
    const graz = series.byId.get(Number(found[0].id))!;
    const gap = series.days.flatMap((d, i) =>
      d >= 20260216 && d <= 20260220 ? [[graz.present[i], graz.values[i]]] : [],
    );
    expect(gap).toEqual(Array(5).fill([0, 0]));
  });

  it('is idempotent: a second start extends the data to yesterday and loads again', async () => {
    await source.close();
    source = await startDemoSource(dir, new Date('2026-03-12T08:00:00Z'));
    // 11 cities × 3 channels, less Ostrava / app which stopped: 32 rows a day.
    expect(source).toMatchObject({ anchor: '2026-03-09', added: 2 * 32 });
    const lines = await seedDemo({ url: s.url, admin: ADMIN, connString: source.connString });
    expect(lines.join('\n')).toMatch(/: 84 series, 2023-09-09 to 2026-03-11, \d+ anomalies/);
  });

  it('shows anomalies of every detector type once its process job has run', async () => {
    const [view] = (
      await s.call('GET', `/api/v1/dataviews?domain=${DEMO_VIEW.domain}`, { auth: s.adminToken })
    ).body;
    const until = Date.now() + 240_000;
    for (;;) {
      const jobs = (await s.call('GET', `/api/v1/jobs?dataViewId=${view.id}`, { auth: s.adminToken }))
        .body as Array<{
        kind: string;
        status: string;
      }>;
      const active = jobs.filter((j) => j.status === 'pending' || j.status === 'running');
      if (jobs.some((j) => j.kind === 'Process' && j.status === 'finished') && active.length === 0) break;
      if (Date.now() > until) throw new Error(`detection did not finish: ${JSON.stringify(jobs)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const types = await s.container.db.rows<{ type: string }>(
      sql.raw(`SELECT DISTINCT type FROM dv_${view.id}.all_anomalies ORDER BY type`),
    );
    expect(types.map((t) => t.type).sort()).toEqual(
      [
        'Cardinality',
        'ChangePoint',
        'CW',
        'DOD',
        'DT',
        'Gap',
        'MOM',
        'MPY',
        'Mix',
        'Peer',
        'QOQ',
        'Spike',
        'WOW',
      ].sort(),
    );
  }, 300_000);
});
