import { describe, expect, it } from 'vitest';
import { recordsToCsv } from '../../../lib/anomalies/csv';
import { toEpochDay } from '../../../lib/calendar/days';
import { fiscalLabel } from '../../../lib/calendar/fiscal';
import type { AnomalyRecord } from '../../../lib/filters/types';
import { anomalyLine } from '../../../lib/summaries/prompt';

describe('fiscal periods named in records, summaries and CSV', () => {
  it('names the quarter of a QOQ record, the retail week of a CW record, else the fiscal month', () => {
    const april = { startMonth: 4 };
    expect(fiscalLabel(april, 'QOQ', toEpochDay('2025-05-01'))).toBe('FY2025 Q1');
    expect(fiscalLabel(april, 'MOM', toEpochDay('2026-03-01'))).toBe('FY2025 M12');
    expect(fiscalLabel(april, 'DOD', toEpochDay('2025-04-30'))).toBe('FY2025 M1');
    const retail = { startMonth: 1, pattern: '4-4-5' as const, weekStart: 'monday' as const };
    // FY2025 starts on Monday 30 December 2024: 10 February 2025 opens its seventh week.
    expect(fiscalLabel(retail, 'CW', toEpochDay('2025-02-10'))).toBe('FY2025 W07');
    expect(fiscalLabel(retail, 'MOM', toEpochDay('2025-01-27'))).toBe('FY2025 M2');
  });

  it('puts the fiscal period in the summary line and in a CSV column', () => {
    const record = {
      id: 7,
      dataViewId: 1,
      dataView: 'retail / sales',
      seriesId: 1,
      measure: 'value',
      type: 'MOM',
      startDate: '2025-01-27',
      endDate: '2025-02-23',
      duration: 28,
      actualValue: 60,
      predictedValue: 100,
      change: -40,
      changePct: -40,
      changeCum: -40,
      sharePct: 100,
      recurrence: 0,
      result: 'Negative',
      categories: { shop: 'S1' },
      sin: 1,
      sim: 1,
      comments: [],
      fiscalPeriod: 'FY2025 M2',
    } as AnomalyRecord;
    expect(anomalyLine(record)).toContain('2025-01-27..2025-02-23 (28 d) fiscal FY2025 M2 |');
    const [header, row] = recordsToCsv([record as unknown as Record<string, unknown>]).split('\r\n');
    const at = header.split(',').indexOf('fiscalPeriod');
    expect(at).toBeGreaterThan(0);
    expect(row.split(',')[at]).toBe('FY2025 M2');
  });
});
