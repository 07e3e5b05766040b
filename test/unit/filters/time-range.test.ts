import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, isValidTimeZone, localDate, resolveTimeRange } from '../../../lib/filters/time-range';
import { TIME_RANGE_PRESETS, type TimeRangePreset } from '../../../lib/filters/types';
import { ValidationError } from '../../../lib/shared/errors';

const at = (iso: string) => new Date(iso);
const range = (preset: TimeRangePreset, iso: string, tz = 'UTC') => {
  const r = resolveTimeRange(preset, at(iso), tz);
  return `${r.dateFrom}..${r.dateTo}`;
};

describe('time range presets on Wednesday 2024-03-06 (UTC, leap year)', () => {
  const now = '2024-03-06T12:00:00Z';
  it.each([
    ['Yesterday', '2024-03-05..2024-03-05'],
    ['Last 2 Days', '2024-03-04..2024-03-05'],
    ['Last 4 Days', '2024-03-02..2024-03-05'],
    ['Last 7 Days', '2024-02-28..2024-03-05'],
    ['Last 15 Days', '2024-02-20..2024-03-05'],
    ['Last 30 Days', '2024-02-05..2024-03-05'],
    ['This Week', '2024-03-04..2024-03-06'],
    ['Previous Week', '2024-02-26..2024-03-03'],
    ['Previous 2 Weeks', '2024-02-19..2024-03-03'],
    ['This Month', '2024-03-01..2024-03-06'],
    ['Previous Month', '2024-02-01..2024-02-29'],
    ['This Year', '2024-01-01..2024-03-06'],
    ['Previous Year', '2023-01-01..2023-12-31'],
  ] as Array<[TimeRangePreset, string]>)('%s is %s', (preset, expected) => {
    expect(range(preset, now)).toBe(expected);
  });
});

describe('time range presets across boundaries', () => {
  it('ends the previous month on 28 February in a common year', () => {
    expect(range('Previous Month', '2023-03-15T00:00:00Z')).toBe('2023-02-01..2023-02-28');
  });

  it('counts 29 February among the last days in a leap year', () => {
    expect(range('Last 4 Days', '2024-03-01T08:00:00Z')).toBe('2024-02-26..2024-02-29');
    expect(range('Yesterday', '2024-03-01T08:00:00Z')).toBe('2024-02-29..2024-02-29');
  });

  it('starts this week on the same day when today is Monday, and ends it on Sunday', () => {
    expect(range('This Week', '2024-03-04T10:00:00Z')).toBe('2024-03-04..2024-03-04');
    expect(range('This Week', '2024-03-10T23:59:59Z')).toBe('2024-03-04..2024-03-10');
    expect(range('Previous Week', '2024-03-10T23:59:59Z')).toBe('2024-02-26..2024-03-03');
  });

  it('lets a week run across New Year', () => {
    expect(range('This Week', '2025-01-01T12:00:00Z')).toBe('2024-12-30..2025-01-01');
    expect(range('Previous 2 Weeks', '2025-01-01T12:00:00Z')).toBe('2024-12-16..2024-12-29');
  });

  it('on New Year’s Day looks back into December of the previous year', () => {
    const now = '2024-01-01T06:00:00Z';
    expect(range('Yesterday', now)).toBe('2023-12-31..2023-12-31');
    expect(range('Last 7 Days', now)).toBe('2023-12-25..2023-12-31');
    expect(range('Previous Week', now)).toBe('2023-12-25..2023-12-31');
    expect(range('Previous Month', now)).toBe('2023-12-01..2023-12-31');
    expect(range('This Month', now)).toBe('2024-01-01..2024-01-01');
    expect(range('This Year', now)).toBe('2024-01-01..2024-01-01');
    expect(range('Previous Year', now)).toBe('2023-01-01..2023-12-31');
  });

  it('has a 366-day previous year after a leap year', () => {
    expect(range('Previous Year', '2025-06-01T00:00:00Z')).toBe('2024-01-01..2024-12-31');
  });
});

describe('time range presets in the service time zone', () => {
  it('uses the Auckland date when it is already tomorrow there', () => {
    const now = '2024-03-31T12:30:00Z'; // 2024-04-01 01:30 in Auckland (UTC+13)
    expect(range('This Month', now, 'UTC')).toBe('2024-03-01..2024-03-31');
    expect(range('This Month', now, 'Pacific/Auckland')).toBe('2024-04-01..2024-04-01');
    expect(range('Previous Month', now, 'Pacific/Auckland')).toBe('2024-03-01..2024-03-31');
    expect(range('Yesterday', now, 'Pacific/Auckland')).toBe('2024-03-31..2024-03-31');
  });

  it('uses the Los Angeles date when it is still last year there', () => {
    const now = '2024-01-01T05:00:00Z'; // 2023-12-31 21:00 in Los Angeles
    expect(range('This Year', now, 'America/Los_Angeles')).toBe('2023-01-01..2023-12-31');
    expect(range('Previous Year', now, 'America/Los_Angeles')).toBe('2022-01-01..2022-12-31');
    expect(range('This Week', now, 'America/Los_Angeles')).toBe('2023-12-25..2023-12-31');
    expect(range('This Week', now, 'UTC')).toBe('2024-01-01..2024-01-01');
  });

  it('reads the local date correctly on daylight-saving change days', () => {
    expect(localDate(at('2024-03-10T09:59:00Z'), 'America/Los_Angeles')).toBe('2024-03-10');
    expect(localDate(at('2024-03-31T00:59:00Z'), 'Europe/Berlin')).toBe('2024-03-31');
    expect(localDate(at('2024-10-27T22:59:00Z'), 'Europe/Berlin')).toBe('2024-10-27');
    expect(localDate(at('2024-10-27T23:00:00Z'), 'Europe/Berlin')).toBe('2024-10-28');
  });

  it('knows valid zone names from invalid ones', () => {
    expect(isValidTimeZone('Europe/Prague')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
  });
});

describe('Custom time range', () => {
  const now = at('2024-03-06T12:00:00Z');
  it('returns the given dates', () => {
    expect(resolveTimeRange('Custom', now, 'UTC', { dateFrom: '2023-12-01', dateTo: '2024-01-15' })).toEqual({
      dateFrom: '2023-12-01',
      dateTo: '2024-01-15',
    });
  });

  const fieldsAtFault = (custom?: { dateFrom?: string; dateTo?: string }) => {
    try {
      resolveTimeRange('Custom', now, 'UTC', custom);
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return (e as ValidationError).errors?.map((x) => x.path);
    }
  };

  it('requires both dates', () => {
    expect(fieldsAtFault()).toEqual(['dateFrom', 'dateTo']);
    expect(fieldsAtFault({ dateFrom: '2024-01-01' })).toEqual(['dateTo']);
  });

  it('refuses impossible dates and a window that ends before it starts', () => {
    expect(fieldsAtFault({ dateFrom: '2023-02-29', dateTo: '2023-03-01' })).toEqual(['dateFrom']);
    expect(fieldsAtFault({ dateFrom: '2024-03-02', dateTo: '2024-03-01' })).toEqual(['dateTo']);
  });
});

describe('time range properties', () => {
  const presets = TIME_RANGE_PRESETS.filter((p) => p !== 'Custom');
  const instant = fc.date({
    min: new Date('1999-01-01T00:00:00Z'),
    max: new Date('2099-12-31T00:00:00Z'),
    noInvalidDate: true,
  });
  const zone = fc.constantFrom(
    'UTC',
    'Pacific/Auckland',
    'America/Los_Angeles',
    'Asia/Kolkata',
    'Pacific/Kiritimati',
  );
  const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
  const span = (r: { dateFrom: string; dateTo: string }) =>
    (Date.parse(r.dateTo) - Date.parse(r.dateFrom)) / 86_400_000 + 1;

  it('every preset is a non-empty window that ends no later than today', () => {
    fc.assert(
      fc.property(fc.constantFrom(...presets), instant, zone, (preset, now, tz) => {
        const r = resolveTimeRange(preset, now, tz);
        expect(r.dateFrom <= r.dateTo).toBe(true);
        expect(r.dateTo <= localDate(now, tz)).toBe(true);
      }),
    );
  });

  it('Last N Days holds N days ending yesterday', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 7, 15, 30), instant, zone, (n, now, tz) => {
        const r = resolveTimeRange(`Last ${n} Days` as TimeRangePreset, now, tz);
        expect(span(r)).toBe(n);
        expect(r.dateTo).toBe(addDays(localDate(now, tz), -1));
      }),
    );
  });

  it('week presets start on a Monday; full weeks end on a Sunday', () => {
    fc.assert(
      fc.property(instant, zone, (now, tz) => {
        for (const preset of ['This Week', 'Previous Week', 'Previous 2 Weeks'] as const) {
          expect(weekday(resolveTimeRange(preset, now, tz).dateFrom)).toBe(1);
        }
        expect(span(resolveTimeRange('Previous Week', now, tz))).toBe(7);
        expect(span(resolveTimeRange('Previous 2 Weeks', now, tz))).toBe(14);
        expect(weekday(resolveTimeRange('Previous 2 Weeks', now, tz).dateTo)).toBe(0);
      }),
    );
  });

  it('the previous month ends the day before this month starts', () => {
    fc.assert(
      fc.property(instant, zone, (now, tz) => {
        const prev = resolveTimeRange('Previous Month', now, tz);
        const cur = resolveTimeRange('This Month', now, tz);
        expect(addDays(prev.dateTo, 1)).toBe(cur.dateFrom);
        expect(prev.dateFrom.slice(8)).toBe('01');
        expect(cur.dateFrom.slice(8)).toBe('01');
      }),
    );
  });
});
