/**
 * The demo view (scripts/demo: a store chain with injected anomalies) through load, the process job
 * and its Home filters: sorted by SIN, the top of "What changed in the last 7 days" holds the
 * injected anomalies, each event once. Prints the top 20 (DEMO_RANKING_PRINT=1) for the record.
 */
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnomalyDeps } from '../../../lib/anomalies/run';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../../lib/dataviews/definition/types';
import type { AnomalyRecord, FilterDefinition } from '../../../lib/filters/types';
import type { Caller } from '../../../lib/identity/caller';
import { runDetection } from '../../../lib/process-job/start';
import { fixedClock } from '../../../lib/shared/clock';
import { demoInjections, demoRows, demoStart } from '../../../scripts/demo/data';
import { demoDefinition } from '../../../scripts/demo/definition';
import { createTestDatabase, type TestDatabase } from '../../support/db';
import { loadView } from '../../support/detection-fixture';
import { createDeployedView } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { createCaller } from './fixtures';

const ANCHOR = '2026-11-24'; // the demo's last day of data (yesterday when the service starts)
const NOW = '2026-11-25T08:00:00Z';
const DAY = 86_400_000;
const day = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY;

/** City → country and region, from the demo data. */
const CITY: Record<string, { country: string; region: string }> = {};

/** The categories an injection's "where" pins ('Prague / web', 'Brno', 'Germany'). */
function pinned(where: string): Record<string, string> {
  const [place, channel] = where.split(' / ');
  const out: Record<string, string> = {};
  if (CITY[place]) Object.assign(out, { city: place, ...CITY[place] });
  else out.country = place;
  if (channel) out.channel = channel;
  return out;
}

/** How much each kind of injection moves its own series (a fraction of its level). */
const MOVES: Record<string, number> = {
  spike: 1.5,
  drop: 0.75,
  'gap (missing days)': 1,
  'mix shift (store to web)': 0.25,
  'weekly pattern change (Saturdays halved)': 0.5,
  'disappearing series': 1,
  'new series (a new city)': 1,
  'drift (growing trend)': 0.4,
  'level shift': 0.5,
  'common shock (whole country down)': 0.3,
  'temporary outage (level down)': 0.4,
  'price cut (average order value -30 %, orders steady)': 0.3,
};
let ROWS: Array<Record<string, string | number>> = [];

/** Revenue of the rows of `date` that match every given category. */
function revenue(date: string, cats: Record<string, string | null>): number {
  let sum = 0;
  for (const r of ROWS)
    if (r.day === date && Object.entries(cats).every(([k, v]) => v === null || r[k] === v))
      sum += Number(r.revenue);
  return sum;
}

/**
 * Whether an injection explains the record: their dates overlap (±1 day) and the record's series is
 * the injected one, lies inside it (a city's channel), or contains it and the injection moved it by
 * at least 10 % (the injected series' share of it times the injection's size), as the ranking eval counts.
 */
function explains(r: AnomalyRecord, inj: { kind: string; where: string; from: string; to: string }): boolean {
  if (day(r.startDate) > day(inj.to) + 1 || day(r.endDate) < day(inj.from) - 1) return false;
  const pins = Object.entries(pinned(inj.where));
  if (pins.every(([k, v]) => r.categories[k] === v)) return true;
  if (!pins.every(([k, v]) => r.categories[k] === null || r.categories[k] === v)) return false;
  // An ancestor: the share of the injected series in it, on the injection's last day with data.
  const date = inj.to < ANCHOR ? inj.to : ANCHOR;
  const inside = revenue(date, { ...r.categories, ...Object.fromEntries(pins) });
  const whole = revenue(date, r.categories);
  const share = whole > 0 ? inside / whole : 0;
  // A series that vanished has no rows on its last day: use its size the day before it started.
  const before =
    inside === 0 ? revenue(addDay(inj.from, -1), { ...r.categories, ...Object.fromEntries(pins) }) : 0;
  const moved = (inside > 0 ? share : whole > 0 ? before / whole : 0) * (MOVES[inj.kind] ?? 0);
  return moved >= 0.1;
}

function addDay(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
}

describe('the demo view ranks its injected anomalies first', () => {
  let t: TestDatabase;
  let source: TestSource;
  let deps: AnomalyDeps;
  let admin: Caller;
  const injections = demoInjections(ANCHOR);

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    const rows = demoRows(ANCHOR, demoStart(ANCHOR), ANCHOR);
    for (const r of rows) CITY[r.city] = { country: r.country, region: r.region };
    ROWS = rows.filter((r) => r.day >= '2026-06-01') as unknown as typeof ROWS;
    await source.exec(`CREATE TABLE daily_sales (sale_day date NOT NULL, country text NOT NULL, region text NOT NULL,
      city text NOT NULL, channel text NOT NULL, revenue numeric(12, 2) NOT NULL, orders integer NOT NULL)`);
    for (let i = 0; i < rows.length; i += 2000) {
      const part = rows.slice(i, i + 2000);
      await source.exec(
        `INSERT INTO daily_sales VALUES ${part
          .map(
            (r) =>
              `('${r.day}', '${r.country}', '${r.region}', '${r.city}', '${r.channel}', ${r.revenue}, ${r.orders})`,
          )
          .join(',')}`,
      );
    }
    const id = await createDeployedView(t.db, {
      domain: 'demo',
      name: 'store_sales',
      loadQuery: demoDefinition.source.loadQuery,
      valueColumn: 'revenue',
      countColumn: 'orders',
      categories: demoDefinition.categories,
    });
    const [row] = await t.db.orm.select().from(dataViews).where(eq(dataViews.id, id));
    const def = row.definition as unknown as DataViewDefinition;
    def.analysis = demoDefinition.analysis as unknown as DataViewDefinition['analysis'];
    await t.db.orm
      .update(dataViews)
      .set({ definition: def as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, id));
    await loadView(t.db, source, id);
    const container = { db: t.db, config: loadConfig({ LOG_LEVEL: 'silent' }) } as unknown as Container;
    const detail = await runDetection(container, id, 9001);
    if (process.env.DEMO_RANKING_PRINT) console.log('detection', JSON.stringify(detail));
    deps = { db: t.db, clock: fixedClock(NOW), timeZone: 'UTC' };
    admin = await createCaller(t.db, 'admin@example.com', 'admin');
    if (process.env.DEMO_RANKING_PRINT) {
      const counts = await t.db.rows(
        sql.raw(
          `SELECT type, measure, count(*)::int AS n FROM dv_${id}.all_anomalies GROUP BY 1, 2 ORDER BY 1, 2`,
        ),
      );
      console.log('anomalies', JSON.stringify(counts));
    }
  }, 600_000);
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  async function top(body: Partial<FilterDefinition>) {
    const answer = await runFilterDefinition(deps, admin, { dataViews: 'demo / store_sales', ...body }, true);
    const marked = answer.anomalies.map((r) => ({ r, hit: injections.find((inj) => explains(r, inj)) }));
    if (process.env.DEMO_RANKING_PRINT) {
      const events = new Set(marked.map((m) => `${m.r.seriesId} ${m.r.startDate}`)).size;
      const own = new Set(
        marked
          .filter(
            (m) => m.hit && Object.entries(pinned(m.hit.where)).every(([k, v]) => m.r.categories[k] === v),
          )
          .map((m) => m.hit?.where),
      );
      console.log(
        `\n${JSON.stringify(body)}: ${marked.filter((m) => m.hit).length}/${marked.length} explained, ${events} distinct series-starts, ` +
          `injections on their own series: ${[...own].join(', ')}`,
      );
      for (const { r, hit } of marked)
        console.log(
          `${hit ? '*' : ' '} ${r.sin?.toFixed(2)} ${(r.types ?? [r.type]).join('+')} ${r.measure} ${r.result} ${r.startDate}..${r.endDate} ` +
            `${Object.values(r.categories)
              .map((v) => v ?? '·')
              .join(
                '/',
              )} ${r.changePct === null ? 'null' : r.changePct.toFixed(0)}% ${hit ? `← ${hit.kind} ${hit.where}` : ''}`,
        );
    }
    return marked;
  }

  it('"What changed in the last 7 days" (SIN, events merged as the web UI creates it): injected anomalies on top', async () => {
    const marked = await top({ timeRange: 'Last 7 Days', sortBy: 'SIN', limit: 20, mergeEvents: true });
    expect(marked.length).toBeGreaterThan(5);
    // The first record is an injected anomaly, and so are most of the top 20; no lone-type artefact with
    // the largest SIN of all (4.5) tops the view.
    expect(marked[0].hit).toBeDefined();
    expect(marked.filter((m) => m.hit).length).toBeGreaterThanOrEqual(14);
    expect(marked[0].r.sin ?? 0).toBeLessThan(4.5);
    // Each event once: no series, measure and sign twice with overlapping dates.
    for (const [i, a] of marked.entries())
      for (const b of marked.slice(i + 1))
        expect(
          a.r.seriesId === b.r.seriesId &&
            a.r.measure === b.r.measure &&
            a.r.result === b.r.result &&
            a.r.startDate <= b.r.endDate &&
            b.r.startDate <= a.r.endDate,
        ).toBe(false);
  });

  it('finds the price cut as an anomaly of the average order value (the ratio), and no ratio anomaly on a volume shift', async () => {
    const ratio = await top({ timeRange: 'Last 30 Days', sortBy: 'SIN', limit: 200, measures: 'ratio' });
    expect(ratio.every((m) => m.r.measure === 'ratio')).toBe(true);
    const cut = injections.find((i) => i.kind.startsWith('price cut')) as (typeof injections)[number];
    const found = ratio.filter(
      (m) =>
        m.r.categories.city === 'Munich' &&
        m.r.categories.channel === 'web' &&
        m.r.result === 'Negative' &&
        m.r.startDate <= cut.to &&
        m.r.endDate >= cut.from,
    );
    expect(found.length).toBeGreaterThan(0);
    // Per order: about 70 % of what was expected.
    const { actualValue, predictedValue } = found[0].r;
    expect((actualValue ?? 0) / (predictedValue ?? 1)).toBeGreaterThan(0.6);
    expect((actualValue ?? 0) / (predictedValue ?? 1)).toBeLessThan(0.8);
    // Vienna's app took 50 % more orders at the usual prices: the value moved, the ratio did not.
    const shift = await top({
      timeRange: 'Custom',
      dateFrom: '2026-09-20',
      dateTo: '2026-11-24',
      sortBy: 'SIN',
      limit: 500,
      measures: 'ratio',
    });
    expect(shift.filter((m) => m.r.categories.city === 'Vienna' && m.r.categories.channel === 'app')).toEqual(
      [],
    );
  });

  it('the top 20 of the last 30 days by SIN are mostly injected', async () => {
    const marked = await top({ timeRange: 'Last 30 Days', sortBy: 'SIN', limit: 20, mergeEvents: true });
    expect(marked[0].hit).toBeDefined();
    expect(marked.filter((m) => m.hit).length).toBeGreaterThanOrEqual(14);
    if (process.env.DEMO_RANKING_PRINT) {
      await top({ timeRange: 'Last 7 Days', sortBy: 'SIN', limit: 20 });
      await top({ timeRange: 'Last 30 Days', sortBy: 'SIN', limit: 20 });
    }
  });
});
