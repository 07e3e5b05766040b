import { describe, expect, it } from 'vitest';
import { fromEpochDay, toEpochDay } from '../../../lib/calendar/days';
import {
  alignCalendar,
  buildSpecialCalendar,
  calendarFlags,
  SUPPRESS_NEGATIVE,
  SUPPRESS_POSITIVE,
  type SpecialDatesConfig,
} from '../../../lib/calendar/special-calendar';
import { ValidationError } from '../../../lib/shared/errors';

const BOTH = SUPPRESS_POSITIVE | SUPPRESS_NEGATIVE;

function flaggedDates(config: SpecialDatesConfig, from: string, to: string): string[] {
  const cal = buildSpecialCalendar(config, toEpochDay(from), toEpochDay(to));
  const out: string[] = [];
  for (let d = cal.fromDay; d <= cal.toDay; d++) if (calendarFlags(cal, d) !== 0) out.push(fromEpochDay(d));
  return out;
}

describe('special dates', () => {
  it('flags a plain date string with impact both', () => {
    const cal = buildSpecialCalendar(
      { specialDates: ['2024-05-01'] },
      toEpochDay('2024-04-30'),
      toEpochDay('2024-05-02'),
    );
    expect(Array.from(cal.flags)).toEqual([0, BOTH, 0]);
  });

  it('sets bit 1 for impact positive and bit 2 for impact negative', () => {
    const cal = buildSpecialCalendar(
      {
        specialDates: [
          { date: '2024-05-01', impact: 'positive' },
          { date: '2024-05-02', impact: 'negative' },
          { date: '2024-05-03' },
        ],
      },
      toEpochDay('2024-05-01'),
      toEpochDay('2024-05-03'),
    );
    expect(Array.from(cal.flags)).toEqual([SUPPRESS_POSITIVE, SUPPRESS_NEGATIVE, BOTH]);
  });

  it('combines impacts of overlapping entries', () => {
    const cal = buildSpecialCalendar(
      {
        specialDates: [{ date: '2024-05-01', impact: 'positive' }],
        recurringRules: [{ rule: 'month_start', impact: 'negative' }],
      },
      toEpochDay('2024-05-01'),
      toEpochDay('2024-05-01'),
    );
    expect(cal.flags[0]).toBe(BOTH);
  });
});

describe('recurring rules', () => {
  it('month_end falls on 29 February in a leap year', () => {
    expect(flaggedDates({ recurringRules: ['month_end'] }, '2024-02-01', '2024-03-30')).toEqual([
      '2024-02-29',
    ]);
  });

  it('month_end falls on 28 February in a common year', () => {
    expect(flaggedDates({ recurringRules: ['month_end'] }, '2023-02-01', '2023-03-30')).toEqual([
      '2023-02-28',
    ]);
  });

  it('month_start is the first day of every month', () => {
    expect(flaggedDates({ recurringRules: ['month_start'] }, '2023-12-15', '2024-02-15')).toEqual([
      '2024-01-01',
      '2024-02-01',
    ]);
  });

  it('day_of_month:31 marks no day in a 30-day month', () => {
    expect(
      flaggedDates({ recurringRules: [{ rule: 'day_of_month:31' }] }, '2024-03-01', '2024-05-31'),
    ).toEqual(['2024-03-31', '2024-05-31']);
  });

  it('day_of_month:30 skips February', () => {
    expect(flaggedDates({ recurringRules: ['day_of_month:30'] }, '2024-01-01', '2024-03-31')).toEqual([
      '2024-01-30',
      '2024-03-30',
    ]);
  });
});

describe('special periods', () => {
  it('a period crossing the year boundary covers the end of one year and the start of the next', () => {
    const dates = flaggedDates(
      { specialPeriods: [{ start: '12.30', end: '01.02' }] },
      '2023-12-28',
      '2024-01-04',
    );
    expect(dates).toEqual(['2023-12-30', '2023-12-31', '2024-01-01', '2024-01-02']);
  });

  it('a crossing period also covers the first days of the range that began the year before', () => {
    const dates = flaggedDates(
      { specialPeriods: [{ start: '12.24', end: '01.02', impact: 'negative' }] },
      '2024-01-01',
      '2024-01-05',
    );
    expect(dates).toEqual(['2024-01-01', '2024-01-02']);
  });

  it('a period within one year repeats every year', () => {
    const dates = flaggedDates(
      { specialPeriods: [{ start: '08.01', end: '08.02' }] },
      '2023-07-31',
      '2024-08-03',
    );
    expect(dates).toEqual(['2023-08-01', '2023-08-02', '2024-08-01', '2024-08-02']);
  });
});

describe('invalid calendars', () => {
  it('reports every malformed entry with its path', () => {
    try {
      buildSpecialCalendar(
        {
          specialDates: ['2024-02-30', { date: '2024-01-01', impact: 'sideways' as never }],
          recurringRules: ['day_of_month:32', 'weekly'],
          specialPeriods: [{ start: '13.01', end: '01.02' }],
        },
        0,
        10,
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors?.map((e) => e.path)).toEqual([
        'specialDates[0]',
        'specialDates[1].impact',
        'recurringRules[0]',
        'recurringRules[1]',
        'specialPeriods[0].start',
      ]);
    }
  });
});

describe('aligning a calendar with a series', () => {
  it('returns a view when the calendar covers the series and pads with zeros when it does not', () => {
    const cal = buildSpecialCalendar(
      { specialDates: ['2024-01-02'] },
      toEpochDay('2024-01-01'),
      toEpochDay('2024-01-10'),
    );
    const inside = alignCalendar(cal, toEpochDay('2024-01-02'), 3);
    expect(inside.buffer).toBe(cal.flags.buffer);
    expect(Array.from(inside)).toEqual([BOTH, 0, 0]);
    const outside = alignCalendar(cal, toEpochDay('2023-12-31'), 4);
    expect(Array.from(outside)).toEqual([0, 0, BOTH, 0]);
  });
});
