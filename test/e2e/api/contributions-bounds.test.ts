/**
 * The contributions of a series read their leaves in bounded batches and refuse a request past the
 * budget of leaves × days (docs/security.md, "Bounded reads"), through HTTP: with a batch budget of three
 * leaves the answer is the one of a single read, the leaves come in three reads, and a window or a
 * baseline whose leaves × days pass CONTRIBUTIONS_MAX_CELLS is a 413 naming the parameter to change.
 */
import type { SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { INCIDENT_CATEGORIES, incidentSeries } from '../../support/incident-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { startTestService, type TestService } from '../../support/service';

// A window of 4 days with 4 weeks of baseline reads 4 + 56 = 60 days of each of the 8 leaves.
const WINDOW = 'from=2024-04-30&to=2024-05-03';
const BATCH_CELLS = 3 * 60;
const MAX_CELLS = 8 * 60;

/** The text of a drizzle statement (its literal chunks: the series reads are raw text). */
function textOf(q: SQL): string {
  return (q.queryChunks as Array<{ value?: unknown }>)
    .map((c) => (Array.isArray(c?.value) ? c.value.join('') : ''))
    .join('');
}

describe(`contributions read in bounded batches on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let view: number;
  /** Reads of the view's day range: one per readSeries call (lib/dataset/series-store.ts). */
  let dayRangeReads = 0;
  const contributions = (q: string) =>
    s.call('GET', `/api/v1/dataviews/${view}/contributions?${q}`, { auth: s.adminToken });

  beforeAll(async () => {
    s = await startTestService({
      CONTRIBUTIONS_BATCH_CELLS: String(BATCH_CELLS),
      CONTRIBUTIONS_MAX_CELLS: String(MAX_CELLS),
    });
    source = await createTestSource();
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'orders_by_city',
      categories: INCIDENT_CATEGORIES,
      detectors: [{ type: 'dod' }],
      series: incidentSeries(),
    });
    const db = s.container.db;
    const rows = db.rows.bind(db);
    db.rows = ((q: SQL) => {
      if (/max\(day\) AS hi/.test(textOf(q))) dayRangeReads++;
      return rows(q);
    }) as typeof db.rows;
  }, 180_000);

  afterAll(async () => {
    await source?.stop();
    await s?.stop();
  });

  it('reads the 8 leaves three at a time and answers what one read answers', async () => {
    dayRangeReads = 0;
    const batched = await contributions(WINDOW);
    expect(batched.status, batched.text).toBe(200);
    expect(batched.body.leaves).toBe(8);
    expect(dayRangeReads).toBe(3);
    // The same request read at once.
    s.container.config.reads.contributionBatchCells = 1_000_000;
    dayRangeReads = 0;
    const whole = await contributions(WINDOW);
    s.container.config.reads.contributionBatchCells = BATCH_CELLS;
    expect(whole.status).toBe(200);
    expect(dayRangeReads).toBe(1);
    expect(batched.body).toEqual(whole.body);
    expect(batched.body.explanation.causes[0].categories).toEqual({
      region: 'South',
      city: 'Milan',
      channel: 'app',
    });
  });

  it('refuses leaves × days past the budget with a 413 naming the parameter to change', async () => {
    // 8 leaves × (5 + 56) days: one day too long.
    const long = await contributions('from=2024-04-30&to=2024-05-04');
    expect(long.status).toBe(413);
    expect(long.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(long.body.errors.map((e: { path: string }) => e.path)).toEqual(['to']);
    expect(long.body.detail).toMatch(/8 leaves × 61 days .* = 488 values, more than the 480/);
    expect(long.body.detail).toMatch(/at most 4 days/);
    // 12 weeks of baseline cannot fit whatever the window: fewer weeks.
    const weeks = await contributions(`${WINDOW}&weeks=12`);
    expect(weeks.status).toBe(413);
    expect(weeks.body.errors.map((e: { path: string }) => e.path)).toEqual(['weeks']);
    // A narrower series has fewer leaves: the same window answers.
    const south = await contributions('categories=region=South&from=2024-04-30&to=2024-05-10');
    expect(south.status).toBe(200);
    expect(south.body.leaves).toBe(4);
  });
});
