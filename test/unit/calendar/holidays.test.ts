import { describe, expect, it } from 'vitest';
import { fromEpochDay, toEpochDay } from '../../../lib/calendar/days';
import {
  blendCalendars,
  type HolidayRegion,
  holidayCalendar,
  holidayDays,
  isKnownRegion,
} from '../../../lib/calendar/holidays';
import { resolveRegion } from '../../../lib/calendar/regions';
import { SUPPRESS_NEGATIVE, SUPPRESS_POSITIVE } from '../../../lib/calendar/special-calendar';

const dates = (r: HolidayRegion, from: string, to: string, periods = false) =>
  holidayDays(r, toEpochDay(from), toEpochDay(to), periods).map((h) => fromEpochDay(h.day));

describe('public holidays of a country or state', () => {
  it("has Austria's holidays, with Easter Monday and the national day", () => {
    const at = dates({ country: 'AT' }, '2025-01-01', '2025-12-31');
    expect(at).toEqual(
      expect.arrayContaining(['2025-01-06', '2025-04-21', '2025-10-26', '2025-12-08', '2025-12-25']),
    );
    expect(at).not.toContain('2025-10-03');
  });

  it("has Czechia's 17 November and 28 September, which Germany has not", () => {
    expect(dates({ country: 'CZ' }, '2025-09-01', '2025-11-30')).toEqual([
      '2025-09-28',
      '2025-10-28',
      '2025-11-17',
    ]);
    expect(dates({ country: 'DE' }, '2025-09-01', '2025-11-30')).toEqual(['2025-10-03']);
  });

  it('adds a state holiday: Corpus Christi in Bavaria, not in Germany as a whole', () => {
    expect(dates({ country: 'DE', state: 'BY' }, '2025-06-01', '2025-06-30')).toEqual([
      '2025-06-09',
      '2025-06-19',
    ]);
    expect(dates({ country: 'DE' }, '2025-06-01', '2025-06-30')).toEqual(['2025-06-09']);
  });

  it('has the US federal holidays of a year (Thanksgiving, the 4th of July)', () => {
    const us = dates({ country: 'US' }, '1980-01-01', '1980-12-31');
    expect(us).toEqual(expect.arrayContaining(['1980-07-04', '1980-11-27', '1980-12-25', '1980-09-01']));
  });

  it('adds special periods on request: Christmas Eve to the first working day back, and bridge days', () => {
    const plain = dates({ country: 'AT' }, '2025-12-20', '2026-01-10');
    const periods = dates({ country: 'AT' }, '2025-12-20', '2026-01-10', true);
    // 2026-01-01 is a Thursday: the 2nd is the first working day back (and a bridge day); the 5th
    // bridges the weekend to Epiphany (a Tuesday).
    expect(plain).toEqual([
      '2025-12-24',
      '2025-12-25',
      '2025-12-26',
      '2025-12-31',
      '2026-01-01',
      '2026-01-06',
    ]);
    expect(periods).toEqual([
      '2025-12-24',
      '2025-12-25',
      '2025-12-26',
      '2025-12-27',
      '2025-12-28',
      '2025-12-29',
      '2025-12-30',
      '2025-12-31',
      '2026-01-01',
      '2026-01-02',
      '2026-01-05',
      '2026-01-06',
    ]);
    // Ascension (always a Thursday) brings its Friday.
    expect(dates({ country: 'DE' }, '2025-05-29', '2025-05-30', true)).toEqual(['2025-05-29', '2025-05-30']);
    expect(dates({ country: 'DE' }, '2025-05-29', '2025-05-30')).toEqual(['2025-05-29']);
  });

  it('marks holidays in both directions, on a calendar over any range', () => {
    const cal = holidayCalendar({ country: 'CZ' }, toEpochDay('2025-11-16'), toEpochDay('2025-11-18'));
    expect(Array.from(cal.flags)).toEqual([0, SUPPRESS_POSITIVE | SUPPRESS_NEGATIVE, 0]);
  });

  it('gives an aggregate the holidays of most of its volume', () => {
    const from = toEpochDay('2025-11-17');
    const cz = holidayCalendar({ country: 'CZ' }, from, from);
    const de = holidayCalendar({ country: 'DE' }, from, from);
    expect(
      blendCalendars(
        [
          { calendar: cz, volume: 60 },
          { calendar: de, volume: 40 },
        ],
        from,
        from,
      ).flags[0],
    ).toBe(SUPPRESS_POSITIVE | SUPPRESS_NEGATIVE);
    expect(
      blendCalendars(
        [
          { calendar: cz, volume: 40 },
          { calendar: de, volume: 60 },
        ],
        from,
        from,
      ).flags[0],
    ).toBe(0);
    expect(SUPPRESS_NEGATIVE).toBeGreaterThan(0);
  });

  it('reads category values as codes, names or state codes', () => {
    expect(resolveRegion('country', 'at')).toEqual({ country: 'AT' });
    expect(resolveRegion('country', 'Germany')).toEqual({ country: 'DE' });
    expect(resolveRegion('country', 'Österreich')).toEqual({ country: 'AT' });
    expect(resolveRegion('country', 'Czechia', { codes: { Czechia: 'CZ' } })).toEqual({ country: 'CZ' });
    expect(resolveRegion('country', 'Atlantis')).toBeNull();
    expect(resolveRegion('state', 'DE-BY')).toEqual({ country: 'DE', state: 'BY' });
    expect(resolveRegion('state', 'Bayern', { country: 'DE' })).toEqual({ country: 'DE', state: 'BY' });
    expect(resolveRegion('state', 'BY')).toBeNull();
    expect(isKnownRegion({ country: 'AT', state: '9' })).toBe(true);
    expect(isKnownRegion({ country: 'AT', state: 'XX' })).toBe(false);
  });
});
