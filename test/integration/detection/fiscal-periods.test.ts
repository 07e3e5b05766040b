import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { fromEpochDay, toEpochDay, weekday } from '../../../lib/calendar/days';
import { loadConfig } from '../../../lib/config/config';
import type { Database } from '../../../lib/db/database';
import type { DataViewAnalysis } from '../../../lib/dataviews/definition/types';
import { runDetection } from '../../../lib/process-job/start';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadedDetectionView, storedAnomalies } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

// Ten months of daily sales; fiscal month 2 of FY2025 on a 4-4-5 calendar (weeks from Monday, the
// year from Monday 30 December 2024) runs from 27 January to 23 February 2025 and sells 40 % less.
const START = '2024-06-03';
const DAYS = 330; // .. 2025-04-28
const day0 = toEpochDay(START);
const DROP = ['2025-01-27', '2025-02-23'];
const WEEK = [1, 1.05, 1.1, 1.1, 1.3, 1.2, 0.6];

function values(): number[] {
  let s = 3;
  return Array.from({ length: DAYS }, (_, t) => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    const date = fromEpochDay(day0 + t);
    const drop = date >= DROP[0] && date <= DROP[1] ? 0.6 : 1;
    return Math.round(5000 * WEEK[weekday(day0 + t)] * (1 + (s / 2_147_483_648 - 0.5) * 0.04) * drop);
  });
}

describe(`fiscal periods in the process job on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  const container = (db: Database) =>
    ({ db, config: loadConfig({ LOG_LEVEL: 'silent' }) }) as unknown as Container;

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  async function momOf(name: string, analysis: Partial<DataViewAnalysis>) {
    const id = await loadedDetectionView(t.db, source, {
      name,
      start: START,
      categories: [{ name: 'shop' }],
      detectors: [
        { type: 'mom', params: {} },
        { type: 'cw', params: {} },
      ],
      analysis,
      series: [{ categories: { shop: 'S1' }, values: values() }],
    });
    await runDetection(container(t.db), id, 5000 + id);
    return (await storedAnomalies(t.db, id, ['shop'])).filter((a) => a.series === 'S1');
  }

  it('compares calendar months without a fiscal calendar', async () => {
    const mom = (await momOf('fiscal_none', {})).filter((a) => a.type === 'MOM');
    expect(mom.length).toBeGreaterThan(0);
    expect(mom.every((a) => a.start_date.endsWith('-01'))).toBe(true);
  });

  it('compares 4-4-5 fiscal months and weeks from the fiscal week start with analysis.fiscal', async () => {
    const list = await momOf('fiscal_445', {
      fiscal: { startMonth: 1, pattern: '4-4-5', weekStart: 'monday' },
    });
    const mom = list.filter((a) => a.type === 'MOM');
    expect(mom).toContainEqual(
      expect.objectContaining({ start_date: DROP[0], end_date: DROP[1], result: 'Negative' }),
    );
    // The weeks of the fiscal calendar start on Monday: the drop's first week is a CW anomaly from 27 January.
    expect(list.filter((a) => a.type === 'CW').map((a) => a.start_date)).toContain(DROP[0]);
  });

  it('reads weeks from Sunday on a 4-5-4 calendar whose weeks start on Sunday', async () => {
    const list = await momOf('fiscal_454', {
      fiscal: { startMonth: 1, pattern: '4-5-4', weekStart: 'sunday' },
    });
    const cw = list.filter((a) => a.type === 'CW');
    expect(cw.length).toBeGreaterThan(0);
    expect(cw.every((a) => weekday(toEpochDay(a.start_date)) === 6)).toBe(true);
  });
});
