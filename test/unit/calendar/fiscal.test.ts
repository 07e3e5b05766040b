import { describe, expect, it } from 'vitest';
import { fromEpochDay, toEpochDay } from '../../../lib/calendar/days';
import {
  type FiscalCalendar,
  fiscalBounds,
  fiscalMonthStarts,
  fiscalPeriodName,
  fiscalPeriodOf,
  fiscalPeriods,
  fiscalYearStart,
  hasWeek53,
} from '../../../lib/calendar/fiscal';

const NRF: FiscalCalendar = { startMonth: 2, pattern: '4-5-4', weekStart: 'sunday' };
const days = (list: number[]) => list.map(fromEpochDay);

describe('fiscal calendars', () => {
  it('starts a fiscal year in its month, its quarters three months apart', () => {
    const april: FiscalCalendar = { startMonth: 4 };
    expect(fromEpochDay(fiscalYearStart(april, 2025))).toBe('2025-04-01');
    const q = fiscalPeriods(april, toEpochDay('2025-01-01'), toEpochDay('2025-12-31'), 3);
    expect(q.map((p) => [fromEpochDay(p.start), fromEpochDay(p.end), fiscalPeriodName(p, 3)])).toEqual([
      ['2025-01-01', '2025-03-31', 'FY2024 Q4'],
      ['2025-04-01', '2025-06-30', 'FY2025 Q1'],
      ['2025-07-01', '2025-09-30', 'FY2025 Q2'],
      ['2025-10-01', '2025-12-31', 'FY2025 Q3'],
    ]);
    expect(fiscalPeriodName(fiscalPeriodOf(april, toEpochDay('2026-02-10'), 1), 1)).toBe('FY2025 M11');
  });

  it('builds 4-5-4 retail months of whole weeks from the week start nearest the 1st', () => {
    // The NRF calendar: fiscal 2024 runs from Sunday 4 February 2024 to Saturday 1 February 2025.
    expect(days(fiscalMonthStarts(NRF, 2024).slice(0, 4))).toEqual([
      '2024-02-04',
      '2024-03-03',
      '2024-04-07',
      '2024-05-05',
    ]);
    expect(fromEpochDay(fiscalYearStart(NRF, 2025))).toBe('2025-02-02');
  });

  it('gives a 53-week year its extra week in the last month (fiscal 2023 of the NRF calendar)', () => {
    expect(fromEpochDay(fiscalYearStart(NRF, 2023))).toBe('2023-01-29');
    expect(hasWeek53(NRF, 2023)).toBe(true);
    expect(hasWeek53(NRF, 2024)).toBe(false);
    const months = fiscalPeriods(NRF, fiscalYearStart(NRF, 2023), fiscalYearStart(NRF, 2024) - 1, 1);
    expect(months.map((m) => (m.end - m.start + 1) / 7)).toEqual([4, 5, 4, 4, 5, 4, 4, 5, 4, 4, 5, 5]);
  });

  it('orders the weeks of a quarter by the pattern: 4-4-5 and 5-4-4', () => {
    const len = (f: FiscalCalendar) => {
      const s = fiscalMonthStarts(f, 2025);
      return s.slice(1, 4).map((d, i) => (d - s[i]) / 7);
    };
    expect(len({ startMonth: 1, pattern: '4-4-5' })).toEqual([4, 4, 5]);
    expect(len({ startMonth: 1, pattern: '5-4-4' })).toEqual([5, 4, 4]);
  });

  it('gives the period detectors their period starts around the analysed days', () => {
    const day0 = toEpochDay('2024-03-10');
    const b = fiscalBounds(NRF, day0, 60, 1);
    expect(b.map((i) => fromEpochDay(day0 + i))).toEqual([
      '2024-03-03',
      '2024-04-07',
      '2024-05-05',
      '2024-06-02',
    ]);
    const w = fiscalBounds(NRF, day0, 14, 0);
    // 2024-03-10 is a Sunday: the retail weeks start on it.
    expect(w.slice(0, 3)).toEqual([0, 7, 14]);
  });
});
