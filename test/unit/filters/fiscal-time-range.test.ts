import { describe, expect, it } from 'vitest';
import { sharedFiscalCalendar, type ViewInfo } from '../../../lib/filters/data-views';
import { resolveTimeRange } from '../../../lib/filters/time-range';
import { ValidationError } from '../../../lib/shared/errors';

const at = (iso: string) => new Date(`${iso}T12:00:00Z`);

describe('fiscal time ranges', () => {
  it('names the fiscal month, quarter and year of a year that starts in April', () => {
    const april = { startMonth: 4 };
    const now = at('2026-02-10');
    expect(resolveTimeRange('This Fiscal Month', now, 'UTC', null, april)).toEqual({
      dateFrom: '2026-02-01',
      dateTo: '2026-02-10',
    });
    expect(resolveTimeRange('This Fiscal Quarter', now, 'UTC', null, april)).toEqual({
      dateFrom: '2026-01-01',
      dateTo: '2026-02-10',
    });
    expect(resolveTimeRange('Previous Fiscal Quarter', now, 'UTC', null, april)).toEqual({
      dateFrom: '2025-10-01',
      dateTo: '2025-12-31',
    });
    expect(resolveTimeRange('This Fiscal Year', now, 'UTC', null, april)).toEqual({
      dateFrom: '2025-04-01',
      dateTo: '2026-02-10',
    });
    expect(resolveTimeRange('Previous Fiscal Year', now, 'UTC', null, april)).toEqual({
      dateFrom: '2024-04-01',
      dateTo: '2025-03-31',
    });
  });

  it('names retail months of whole weeks (4-5-4 from Sunday)', () => {
    const nrf = { startMonth: 2, pattern: '4-5-4' as const, weekStart: 'sunday' as const };
    // Fiscal 2024's first month: 4 February to 2 March 2024; its second: 3 March to 6 April.
    expect(resolveTimeRange('Previous Fiscal Month', at('2024-03-10'), 'UTC', null, nrf)).toEqual({
      dateFrom: '2024-02-04',
      dateTo: '2024-03-02',
    });
    expect(resolveTimeRange('This Fiscal Month', at('2024-03-10'), 'UTC', null, nrf)).toEqual({
      dateFrom: '2024-03-03',
      dateTo: '2024-03-10',
    });
  });

  it('uses calendar periods for views without a fiscal calendar', () => {
    expect(resolveTimeRange('Previous Fiscal Month', at('2026-03-10'), 'UTC')).toEqual(
      resolveTimeRange('Previous Month', at('2026-03-10'), 'UTC'),
    );
    expect(resolveTimeRange('This Fiscal Year', at('2026-03-10'), 'UTC')).toEqual(
      resolveTimeRange('This Year', at('2026-03-10'), 'UTC'),
    );
  });

  it("takes the fiscal calendar the filter's views share, and refuses views of different ones", () => {
    const view = (id: number, fiscal?: ViewInfo['fiscal']): ViewInfo => ({
      id,
      domain: 'retail',
      name: `v${id}`,
      label: `retail / v${id}`,
      deployed: true,
      schema: `dv_${id}`,
      categories: [],
      ...(fiscal ? { fiscal } : {}),
    });
    expect(sharedFiscalCalendar([view(1, { startMonth: 4 }), view(2, { startMonth: 4 })])).toEqual({
      startMonth: 4,
    });
    expect(sharedFiscalCalendar([view(1), view(2)])).toBeUndefined();
    expect(() => sharedFiscalCalendar([view(1, { startMonth: 4 }), view(2)])).toThrow(ValidationError);
  });
});
