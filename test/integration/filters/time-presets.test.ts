import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import type { TimeRangePreset } from '../../../lib/filters/types';
import type { Caller } from '../../../lib/identity/caller';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { addAnomalies, addDays, createCaller, createView, daysBetween } from './fixtures';

/** Expected windows [dateFrom, dateTo] per preset at one instant. */
type Expectations = Partial<Record<TimeRangePreset, [string, string]>>;

const cases: Array<{ title: string; now: string; timeZone: string; expected: Expectations }> = [
  {
    title: 'on Monday 2024-01-01, where a week, a month and a year begin',
    now: '2024-01-01T08:00:00Z',
    timeZone: 'UTC',
    expected: {
      Yesterday: ['2023-12-31', '2023-12-31'],
      'Last 2 Days': ['2023-12-30', '2023-12-31'],
      'Last 4 Days': ['2023-12-28', '2023-12-31'],
      'Last 7 Days': ['2023-12-25', '2023-12-31'],
      'Last 15 Days': ['2023-12-17', '2023-12-31'],
      'Last 30 Days': ['2023-12-02', '2023-12-31'],
      'This Week': ['2024-01-01', '2024-01-01'],
      'Previous Week': ['2023-12-25', '2023-12-31'],
      'Previous 2 Weeks': ['2023-12-18', '2023-12-31'],
      'This Month': ['2024-01-01', '2024-01-01'],
      'Previous Month': ['2023-12-01', '2023-12-31'],
      'This Year': ['2024-01-01', '2024-01-01'],
      'Previous Year': ['2023-01-01', '2023-12-31'],
    },
  },
  {
    title: 'on Sunday 2024-03-03, the last day of a week after a leap February',
    now: '2024-03-03T23:00:00Z',
    timeZone: 'UTC',
    expected: {
      Yesterday: ['2024-03-02', '2024-03-02'],
      'Last 7 Days': ['2024-02-25', '2024-03-02'],
      'This Week': ['2024-02-26', '2024-03-03'],
      'Previous Week': ['2024-02-19', '2024-02-25'],
      'Previous 2 Weeks': ['2024-02-12', '2024-02-25'],
      'This Month': ['2024-03-01', '2024-03-03'],
      'Previous Month': ['2024-02-01', '2024-02-29'],
      'This Year': ['2024-01-01', '2024-03-03'],
      'Previous Year': ['2023-01-01', '2023-12-31'],
    },
  },
  {
    title: 'at 2024-03-31T22:30Z in Europe/Prague, already Monday 1 April there',
    now: '2024-03-31T22:30:00Z',
    timeZone: 'Europe/Prague',
    expected: {
      Yesterday: ['2024-03-31', '2024-03-31'],
      'This Week': ['2024-04-01', '2024-04-01'],
      'Previous Week': ['2024-03-25', '2024-03-31'],
      'This Month': ['2024-04-01', '2024-04-01'],
      'Previous Month': ['2024-03-01', '2024-03-31'],
    },
  },
  {
    title: 'at the same instant in UTC, still Sunday 31 March',
    now: '2024-03-31T22:30:00Z',
    timeZone: 'UTC',
    expected: {
      Yesterday: ['2024-03-30', '2024-03-30'],
      'This Week': ['2024-03-25', '2024-03-31'],
      'This Month': ['2024-03-01', '2024-03-31'],
      'Previous Month': ['2024-02-01', '2024-02-29'],
    },
  },
];

describe(`time range presets over stored anomalies on ${backendName}`, () => {
  let t: TestDatabase;
  let admin: Caller;

  beforeAll(async () => {
    t = await createTestDatabase();
    admin = await createCaller(t.db, 'admin@example.com', 'admin');
    const view = await createView(t.db, { domain: 'ops', name: 'daily', categories: ['Site'] });
    // One single-day anomaly on every day, so a window's answer is exactly its days.
    const first = '2022-11-01';
    const days = daysBetween(first, '2024-04-30');
    await addAnomalies(
      t.db,
      view,
      Array.from({ length: days }, (_, i) => ({ startDate: addDays(first, i), categories: { Site: 'S1' } })),
    );
  });
  afterAll(() => t.drop());

  for (const c of cases) {
    for (const [preset, [dateFrom, dateTo]] of Object.entries(c.expected) as Array<
      [TimeRangePreset, [string, string]]
    >) {
      it(`${preset} ${c.title} selects ${dateFrom}..${dateTo}`, async () => {
        const deps = { db: t.db, clock: fixedClock(c.now), timeZone: c.timeZone };
        const answer = await runFilterDefinition(
          deps,
          admin,
          { timeRange: preset, sortBy: 'Date', limit: 10_000 },
          true,
        );
        expect(answer.timeRange).toEqual({ preset, dateFrom, dateTo });
        const dates = answer.anomalies.map((a) => a.startDate);
        expect(dates).toHaveLength(daysBetween(dateFrom, dateTo));
        expect(dates[0]).toBe(dateTo);
        expect(dates.at(-1)).toBe(dateFrom);
      });
    }
  }

  it('Custom selects dateFrom..dateTo inclusive, whatever the clock says', async () => {
    const deps = { db: t.db, clock: fixedClock('2030-01-01T00:00:00Z'), timeZone: 'UTC' };
    const body = {
      timeRange: 'Custom',
      dateFrom: '2023-02-27',
      dateTo: '2023-03-02',
      sortBy: 'Date',
    } as const;
    const answer = await runFilterDefinition(deps, admin, body, true);
    expect(answer.anomalies.map((a) => a.startDate)).toEqual([
      '2023-03-02',
      '2023-03-01',
      '2023-02-28',
      '2023-02-27',
    ]);
  });
});
