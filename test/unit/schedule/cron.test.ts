import { describe, expect, it } from 'vitest';
import { isDue, nextRuns, normaliseCron, validateCron } from '../../../lib/schedule/cron';
import { ValidationError } from '../../../lib/shared/errors';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('validateCron accepts the spec forms', () => {
  it.each([
    ['six fields, seconds first', '0 30 5 * * *'],
    ['five fields, minute first', '30 5 * * *'],
    ['every n', '*/15 * * * *'],
    ['lists', '0 0 0 1,15 * *'],
    ['ranges', '0 0 8-18 * * 1-5'],
    ['ranges with a step', '0 0 8-18/2 * * 1-5'],
    ['Sunday as 0', '0 0 0 * * 0'],
    ['the bounds of every field', '59 59 23 31 12 6'],
    ['29 February', '0 0 0 29 2 *'],
    ['day of month and day of week together', '0 0 0 13 * 5'],
    ['extra spaces', '  0  30 5 * * *  '],
  ])('%s: %s', (_what, expr) => {
    expect(validateCron(expr)).toBeNull();
  });
});

describe('validateCron names the field at fault', () => {
  it.each([
    ['an empty text', '', 'non-empty'],
    ['not a text', 42, 'non-empty'],
    ['four fields', '0 6 * *', '5 or 6 fields separated by spaces, found 4'],
    ['seven fields', '0 0 6 * * * 2024', 'found 7'],
    ['a predefined expression', '@daily', 'predefined'],
    ['second 60', '60 * * * * *', 'second field: 60 is out of range 0-59'],
    ['minute 60', '0 60 * * * *', 'minute field: 60 is out of range 0-59'],
    ['hour 24', '0 0 24 * * *', 'hour field: 24 is out of range 0-23'],
    ['day of month 0', '0 0 0 0 * *', 'day-of-month field: 0 is out of range 1-31'],
    ['day of month 32', '0 0 0 32 * *', 'day-of-month field: 32 is out of range 1-31'],
    ['month 0', '0 0 0 * 0 *', 'month field: 0 is out of range 1-12'],
    ['month 13', '0 0 0 * 13 *', 'month field: 13 is out of range 1-12'],
    ['day of week 7', '0 0 0 * * 7', 'day-of-week field: 7 is out of range 0-6 (0 is Sunday)'],
    ['a range beyond the field', '0 0 20-25 * * *', 'hour field: 25 is out of range 0-23'],
    ['a day name', '0 0 0 * * MON', "day-of-week field: names such as 'MON' are not supported"],
    ['a day name range', '0 0 0 * * MON-FRI', "day-of-week field: names such as 'MON'"],
    ['a month name', '0 0 0 1 JAN *', "month field: names such as 'JAN'"],
    ['a question mark', '0 0 0 ? * *', "day-of-month field: '?' is not supported"],
    ['last day L', '0 0 0 L * *', "day-of-month field: 'L' is not supported"],
    ['last weekday 5L', '0 0 0 * * 5L', "day-of-week field: '5L' is not supported"],
    ['nth weekday #', '0 0 0 * * 1#2', "day-of-week field: '1#2' is not supported"],
    ['a hash H', 'H * * * *', "minute field: 'H' is not supported"],
    ['a step of 0', '*/0 * * * *', "minute field: step '0' must be a number from 1 to 60"],
    ['a step wider than the field', '0 0 */25 * * *', "hour field: step '25'"],
    ['a step without * or range', '5/15 * * * *', "minute field: '5/15' is not valid; a step needs *"],
    ['a double step', '*/5/2 * * * *', 'minute field: step'],
    ['a backwards range', '0 0 5-2 * * *', 'hour field: range 5-2 must go from low to high'],
    ['an empty list item', '0 0 1,,2 * * *', 'hour field: has an empty list item'],
    ['* inside a list', '0 0 *,5 * * *', "hour field: '*' cannot be part of a list"],
    ['a negative number', '0 0 -1 * * *', "hour field: '-1' is not valid"],
    ['a decimal number', '0 0 1.5 * * *', "hour field: '1.5' is not valid"],
    ['a day that never comes', '0 0 0 31 2 *', 'day-of-month field: day 31 never occurs'],
    [
      'a day missing from every chosen month',
      '0 0 0 31 4,6,9,11 *',
      'day-of-month field: day 31 never occurs',
    ],
  ])('%s', (_what, expr, message) => {
    expect(validateCron(expr)).toContain(message);
  });
});

describe('normaliseCron', () => {
  it('writes five fields as six with second 0', () => {
    expect(normaliseCron('30 5 * * 1-5')).toBe('0 30 5 * * 1-5');
  });

  it('throws a ValidationError at path cron', () => {
    expect(() => normaliseCron('0 0 24 * * *')).toThrow(ValidationError);
    try {
      normaliseCron('0 0 24 * * *');
    } catch (e) {
      expect((e as ValidationError).errors).toEqual([
        { path: 'cron', message: 'hour field: 24 is out of range 0-23' },
      ]);
    }
  });
});

describe('nextRuns', () => {
  const from = new Date('2024-10-01T00:00:00Z');

  it('lists the next daily runs after the start', () => {
    expect(iso(nextRuns('0 30 5 * * *', 3, from))).toEqual([
      '2024-10-01T05:30:00.000Z',
      '2024-10-02T05:30:00.000Z',
      '2024-10-03T05:30:00.000Z',
    ]);
  });

  it('reads five fields from the minute', () => {
    expect(iso(nextRuns('*/20 * * * *', 3, from))).toEqual([
      '2024-10-01T00:20:00.000Z',
      '2024-10-01T00:40:00.000Z',
      '2024-10-01T01:00:00.000Z',
    ]);
  });

  it('runs on the 13th OR on Fridays when both days are set', () => {
    // October 2024: Fridays are the 4th, 11th, 18th and 25th; the 13th is a Sunday.
    expect(iso(nextRuns('0 0 0 13 * 5', 5, from))).toEqual([
      '2024-10-04T00:00:00.000Z',
      '2024-10-11T00:00:00.000Z',
      '2024-10-13T00:00:00.000Z',
      '2024-10-18T00:00:00.000Z',
      '2024-10-25T00:00:00.000Z',
    ]);
  });

  it('runs on the 13th only when day of week is *', () => {
    expect(iso(nextRuns('0 0 0 13 * *', 2, from))).toEqual([
      '2024-10-13T00:00:00.000Z',
      '2024-11-13T00:00:00.000Z',
    ]);
  });

  it('runs on Fridays only when day of month is *', () => {
    expect(iso(nextRuns('0 0 0 * * 5', 2, from))).toEqual([
      '2024-10-04T00:00:00.000Z',
      '2024-10-11T00:00:00.000Z',
    ]);
  });

  it('evaluates the fields in the given time zone, across a DST change', () => {
    // Berlin leaves summer time on 27 October 2024: 05:30 local is 03:30Z before and 04:30Z after.
    const runs = nextRuns('0 30 5 * * *', 2, new Date('2024-10-26T12:00:00Z'), 'Europe/Berlin');
    expect(iso(runs)).toEqual(['2024-10-27T04:30:00.000Z', '2024-10-28T04:30:00.000Z']);
    expect(iso(nextRuns('0 30 5 * * *', 1, new Date('2024-10-25T12:00:00Z'), 'Europe/Berlin'))).toEqual([
      '2024-10-26T03:30:00.000Z',
    ]);
  });

  it('gives nothing for a count of 0', () => {
    expect(nextRuns('0 30 5 * * *', 0, from)).toEqual([]);
  });

  it('refuses an invalid expression and an unknown time zone', () => {
    expect(() => nextRuns('0 0 24 * * *', 1, from)).toThrow(ValidationError);
    expect(() => nextRuns('0 0 5 * * *', 1, from, 'Mars/Olympus')).toThrow(/Unknown time zone/);
  });
});

describe('isDue', () => {
  const daily = '0 30 5 * * *';
  const at = (time: string) => new Date(`2024-10-01T${time}Z`);

  it('is due in the tick that reaches the scheduled time', () => {
    expect(isDue(daily, at('05:29:00'), at('05:30:00'))).toBe(true);
    expect(isDue(daily, at('05:29:30.250'), at('05:30:30.250'))).toBe(true);
  });

  it('is not due again in the tick after', () => {
    expect(isDue(daily, at('05:30:00'), at('05:31:00'))).toBe(false);
  });

  it('is not due before the scheduled time', () => {
    expect(isDue(daily, at('05:28:00'), at('05:29:59.999'))).toBe(false);
  });

  it('is due once after the scheduler missed several runs', () => {
    expect(isDue(daily, new Date('2024-09-20T00:00:00Z'), at('00:00:00'))).toBe(true);
  });

  it('is never due when the clock did not move forward', () => {
    expect(isDue(daily, at('05:31:00'), at('05:29:00'))).toBe(false);
  });

  it('uses the time zone of the service', () => {
    // 05:30 in Berlin (summer time) is 03:30Z.
    expect(isDue(daily, at('03:29:00'), at('03:30:00'), 'Europe/Berlin')).toBe(true);
    expect(isDue(daily, at('05:29:00'), at('05:30:00'), 'Europe/Berlin')).toBe(false);
  });
});
