/**
 * Feedback that teaches, through the real load and process job: the days of a record marked confirmed or not an
 * anomaly leave the series' baselines at the next detection, and a record marked not an anomaly is not reported
 * again for the same window; feedback survives the re-run on its key.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { exclusionFlags, FEEDBACK_EXCLUDED } from '../../../lib/feedback/exclusions';
import { listFeedback, putFeedback } from '../../../lib/feedback/service';
import { recordEndDate } from '../../../lib/process-job';
import type { Caller } from '../../../lib/identity/caller';
import { runDetection } from '../../../lib/process-job/start';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import {
  type DetectionViewOptions,
  loadedDetectionView,
  storedAnomalies,
} from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { createCaller } from '../filters/fixtures';

// 2023-12-18 (Monday) .. 2024-03-10: twelve weeks; CZ has an incident at 300 on Monday..Friday 2024-02-05..09.
const START = '2023-12-18';
const DAYS = 84;
const INCIDENT = [49, 50, 51, 52, 53];
const cz = () =>
  Array.from({ length: DAYS }, (_, t) => (INCIDENT.includes(t) ? 300 : 100 + ((t * 7) % 5) - 2));

function view(name: string, type: string): DetectionViewOptions {
  return {
    name,
    categories: [{ name: 'country' }],
    detectors: [{ type, params: { minVolume: 0 } }],
    start: START,
    series: [
      { categories: { country: 'CZ' }, values: cz() },
      { categories: { country: 'DE' }, values: Array.from({ length: DAYS }, () => 100) },
    ],
  };
}

describe(`feedback in detection on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let admin: Caller;
  let job = 500;
  const container = (db: TestDatabase['db']) =>
    ({ db, config: loadConfig({ LOG_LEVEL: 'silent' }) }) as unknown as Container;
  const detect = (id: number) => runDetection(container(t.db), id, ++job);
  const seriesOf = async (id: number, country: string) =>
    Number(
      (
        await t.db.rows<{ s: number }>(
          sql.raw(`SELECT series_id AS s FROM dv_${id}.cat_map WHERE c_country = '${country}'`),
        )
      )[0].s,
    );
  const brief = (rows: Awaited<ReturnType<typeof storedAnomalies>>) =>
    rows.map((a) => `${a.series} ${a.type} ${a.start_date}..${a.end_date} ${a.result}`);

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    admin = await createCaller(t.db, 'analyst@example.com', 'admin');
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('marks feedback days per series: confirmed only out of baselines, not-anomaly also suppressed', () => {
    const flags = exclusionFlags(
      [
        { seriesId: 7, status: 'confirmed', startDay: 102, endDay: 103 },
        { seriesId: 8, status: 'not-anomaly', startDay: 99, endDay: 100 },
      ],
      100,
      5,
      Uint8Array.from([0, 0, 0, 0, 1]),
    );
    expect([...(flags.get(7)?.alone ?? [])]).toEqual([0, 0, FEEDBACK_EXCLUDED, FEEDBACK_EXCLUDED, 0]);
    expect([...(flags.get(7)?.withCalendar ?? [])]).toEqual([0, 0, FEEDBACK_EXCLUDED, FEEDBACK_EXCLUDED, 1]);
    expect([...(flags.get(8)?.alone ?? [])]).toEqual([3, 0, 0, 0, 0]);
    expect(flags.has(9)).toBe(false);
    expect(flags.get(7)?.confirmed).toEqual([[102, 103]]);
    expect([...(flags.get(7)?.withCalendarUnconfirmed ?? [])]).toEqual([0, 0, 0, 0, 1]);
    expect([...(flags.get(8)?.aloneUnconfirmed ?? [])]).toEqual([3, 0, 0, 0, 0]);
  });

  it('a confirmed incident does not distort the next week, and stays reported itself', async () => {
    const id = await loadedDetectionView(t.db, source, view('fb_cw', 'cw'));
    await detect(id);
    const before = brief(await storedAnomalies(t.db, id, ['country']));
    // The incident week raised the four-week reference of the week after it; judged against the
    // incident week as it was expected, the week after is no drop (returns are not events).
    expect(before).not.toContain('CZ CW 2024-02-12..2024-02-18 Negative');
    expect(before).toContain('CZ CW 2024-02-05..2024-02-11 Positive');
    const fb = await putFeedback(
      t.db,
      admin,
      {
        dataViewId: id,
        seriesId: await seriesOf(id, 'CZ'),
        measure: 'value',
        type: 'CW',
        startDate: '2024-02-05',
        status: 'confirmed',
        note: 'Warehouse outage',
      },
      recordEndDate,
    );
    expect(fb.endDate).toBe('2024-02-11');
    await detect(id);
    const after = brief(await storedAnomalies(t.db, id, ['country']));
    expect(after).not.toContain('CZ CW 2024-02-12..2024-02-18 Negative');
    // The confirmed record itself is still reported (its own period is judged as before).
    expect(after).toContain('CZ CW 2024-02-05..2024-02-11 Positive');
    // Other series keep their baselines: the total still reports the incident week.
    expect(after).toContain('* CW 2024-02-05..2024-02-11 Positive');
    // The feedback survives the re-run on its key.
    expect((await listFeedback(t.db, admin, { dataViewId: id })).map((f) => f.note)).toEqual([
      'Warehouse outage',
    ]);
  });

  it('a record marked not an anomaly is not reported again for the same window; confirmed ones are', async () => {
    const id = await loadedDetectionView(t.db, source, view('fb_dod', 'dod'));
    await detect(id);
    expect(brief(await storedAnomalies(t.db, id, ['country']))).toEqual([
      '* DOD 2024-02-05..2024-02-09 Positive',
      'CZ DOD 2024-02-05..2024-02-09 Positive',
    ]);
    const total = (
      await t.db.rows<{ s: number }>(sql.raw(`SELECT series_id AS s FROM dv_${id}.cat_map WHERE level = 0`))
    )[0].s;
    await putFeedback(
      t.db,
      admin,
      {
        dataViewId: id,
        seriesId: await seriesOf(id, 'CZ'),
        measure: 'value',
        type: 'DOD',
        startDate: '2024-02-05',
        status: 'not-anomaly',
      },
      recordEndDate,
    );
    await putFeedback(
      t.db,
      admin,
      {
        dataViewId: id,
        seriesId: Number(total),
        measure: 'value',
        type: 'DOD',
        startDate: '2024-02-05',
        status: 'confirmed',
      },
      recordEndDate,
    );
    await detect(id);
    expect(brief(await storedAnomalies(t.db, id, ['country']))).toEqual([
      '* DOD 2024-02-05..2024-02-09 Positive',
    ]);
    expect((await listFeedback(t.db, admin, { dataViewId: id })).map((f) => f.status).sort()).toEqual([
      'confirmed',
      'not-anomaly',
    ]);
  });
});
