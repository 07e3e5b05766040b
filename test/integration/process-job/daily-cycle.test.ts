/**
 * The daily cycle (issue 45): a view that gets its newest days by custom loads, each followed by
 * detection, holds after every cycle exactly the records a full load and detection of the same data
 * gives. Records are compared without `id` (a sequence number given at publish: a full re-detection
 * numbers every record anew) — every other column, SIN, SIM and recurrence included.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import type { Database } from '../../../lib/db/database';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../../lib/dataviews/definition/types';
import { findView } from '../../../lib/dataviews/repository';
import type { JobRow } from '../../../lib/jobs/repository';
import { runLoad } from '../../../lib/pipeline/load';
import { runViewDetection } from '../../../lib/process-job/run';
import { logger } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDetectionView, type StoredAnomaly, storedAnomalies } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const DAY0 = toEpochDay('2024-01-01');
/** Days loaded before the first daily cycle, then the cycles. */
const HISTORY = 200;
const CYCLES = 30;
const CATS = [{ name: 'country' }, { name: 'channel' }];
const DETECTORS = ['dod', 'wow', 'spike', 'dt', 'changepoint', 'gap'].map((type) => ({ type }));
const TODAY = '(SELECT t FROM cycle_today)';
const COLUMNS = 'day, country, channel, amount, nights';

const ymd = (epochDay: number) => {
  const d = new Date(epochDay * 86_400_000);
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
};

/** A deterministic day of one series: weekly season, noise, a spike, a level shift and a gap. */
function dayRow(s: number, t: number): { amount: number; nights: number } | null {
  if (s === 3 && t >= 160 && t < 164) return null;
  const noise = Math.sin(t * 12.9898 + s * 78.233) * 43758.5453;
  const base =
    (100 + 40 * s) * (1 + 0.2 * Math.sin((2 * Math.PI * t) / 7)) * (1 + 0.1 * (noise - Math.floor(noise)));
  const shock = (s === 1 && t === 130) || (s === 0 && t === 215) ? 3 : s === 2 && t >= 150 ? 0.6 : 1;
  const amount = Math.round(base * shock * 100) / 100;
  return { amount, nights: Math.max(1, Math.round(amount / (20 + s))) };
}

const SERIES = [
  ['CZ', 'web'],
  ['CZ', 'store'],
  ['DE', 'web'],
  ['DE', 'store'],
];

describe(`the daily cycle equals a full re-detection on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let daily: number;
  let runId = 100;

  const job = (dataViewId: number, kind: 'Load' | 'CustomLoad') =>
    ({ id: ++runId, dataViewId, kind }) as JobRow;
  const load = (id: number, kind: 'Load' | 'CustomLoad') =>
    runLoad(
      { db: t.db, log: logger, openSource: source.open, batchSize: 10_000 },
      job(id, kind),
      new AbortController().signal,
    );
  const detect = async (id: number) =>
    runViewDetection({ db: t.db, log: logger, shardSize: 2 }, (await findView(t.db, id))!, ++runId);
  const records = async (id: number) =>
    (await storedAnomalies(t.db, id, ['country', 'channel'])).map(({ id: _, ...r }) => r);

  /** A view over the source's days up to cycle_today; `custom` brings the last three of them again. */
  async function view(db: Database, name: string): Promise<number> {
    const id = await createDetectionView(db, {
      name,
      categories: CATS,
      detectors: DETECTORS,
      series: [{ categories: {}, values: [], counts: [] }],
    });
    const [row] = await db.orm.select().from(dataViews).where(eq(dataViews.id, id));
    const def = row.definition as unknown as DataViewDefinition;
    def.source.loadQuery = `SELECT ${COLUMNS} FROM cycle_src WHERE t <= ${TODAY}`;
    def.source.customLoadQuery = `SELECT ${COLUMNS} FROM cycle_src WHERE t > ${TODAY} - 3 AND t <= ${TODAY}`;
    await db.orm
      .update(dataViews)
      .set({ definition: def as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, id));
    return id;
  }

  /** Records of a fresh view, fully loaded and detected over the same source days. */
  async function fullDetection(name: string): Promise<Omit<StoredAnomaly, 'id'>[]> {
    const id = await view(t.db, name);
    await load(id, 'Load');
    await detect(id);
    return records(id);
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    const rows: string[] = [];
    for (let d = 0; d < HISTORY + CYCLES; d++)
      SERIES.forEach(([country, channel], s) => {
        const r = dayRow(s, d);
        if (r) rows.push(`(${d}, ${ymd(DAY0 + d)}, '${country}', '${channel}', ${r.amount}, ${r.nights})`);
      });
    await source.exec(`CREATE TABLE cycle_src (t integer, day integer, country text, channel text,
        amount double precision, nights double precision);
      INSERT INTO cycle_src VALUES ${rows.join(',\n')};
      CREATE TABLE cycle_today (t integer); INSERT INTO cycle_today VALUES (${HISTORY - 1});`);
    daily = await view(t.db, 'daily');
    await load(daily, 'Load');
    await detect(daily);
  }, 120_000);
  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  it('after each of 30 days brought by a custom load (with late corrections and a day brought twice)', async () => {
    let compared = 0;
    let withRecords = 0;
    for (let k = 1; k <= CYCLES; k++) {
      // Day 12 brings nothing new (the same three days again); days 5, 17, 23 correct yesterday.
      if (k !== 12) await source.exec(`UPDATE cycle_today SET t = t + 1`);
      if (k % 6 === 5)
        await source.exec(
          `UPDATE cycle_src SET amount = amount * 1.7 WHERE t = ${TODAY} - 1 AND country = 'DE'`,
        );
      await load(daily, 'CustomLoad');
      await detect(daily);
      if (k % 10 !== 0 && k !== 12 && k !== 17) continue;
      const got = await records(daily);
      expect(got, `day ${k}`).toEqual(await fullDetection(`full_${k}`));
      compared++;
      if (got.length > 0) withRecords++;
    }
    expect(compared).toBe(5);
    // The comparison is of something: the views hold records, of several types.
    expect(withRecords).toBe(5);
    expect(new Set((await records(daily)).map((r) => r.type)).size).toBeGreaterThan(1);
  }, 600_000);
});
