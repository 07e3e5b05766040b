import { describe, expect, it } from 'vitest';
import { fromEpochDay } from '../../../lib/calendar/days';
import { publicHolidays } from '../../../scripts/synthetic/country-holidays';
import { generateFamilyCube, inChristmas } from '../../../scripts/synthetic/family-cube';
import { FAMILY_LIMITS } from '../../../scripts/synthetic/family-shape';

const dates = (days: number[]) => days.map(fromEpochDay);

describe('the public holidays of the cube family', () => {
  it('has the fixed and moving feasts of each country', () => {
    expect(dates(publicHolidays('AT', 2025))).toEqual(
      expect.arrayContaining([
        '2025-01-06',
        '2025-04-21',
        '2025-05-29',
        '2025-06-09',
        '2025-06-19',
        '2025-10-26',
        '2025-12-08',
      ]),
    );
    expect(dates(publicHolidays('DE', 2025))).toEqual(
      expect.arrayContaining(['2025-04-18', '2025-04-21', '2025-10-03']),
    );
    expect(dates(publicHolidays('US', 2025))).toEqual(
      expect.arrayContaining(['2025-01-20', '2025-05-26', '2025-06-19', '2025-09-01', '2025-11-27']),
    );
    expect(dates(publicHolidays('GB', 2025))).toEqual(
      expect.arrayContaining(['2025-04-18', '2025-05-05', '2025-05-26', '2025-08-25', '2025-12-26']),
    );
    expect(dates(publicHolidays('CZ', 2024))).toContain('2024-11-17');
    expect(dates(publicHolidays('FR', 2024))).toEqual(expect.arrayContaining(['2024-05-09', '2024-07-14']));
  });
});

describe('a family cube', () => {
  const cube = generateFamilyCube(1003, 3);

  it('is the same for the same seed', () => {
    const again = generateFamilyCube(1003, 3);
    expect(again.rows).toBe(cube.rows);
    expect(again.injections).toEqual(cube.injections);
  });

  it('stays within the family limits and lists its holidays as special dates', () => {
    expect(cube.shape.series).toBeGreaterThanOrEqual(FAMILY_LIMITS.minSeries);
    expect(cube.shape.series).toBeLessThanOrEqual(FAMILY_LIMITS.maxSeries);
    expect(cube.days).toBeGreaterThanOrEqual(548);
    expect(cube.specialDates.specialDates?.length).toBe(cube.holidays.size);
  });

  it('injects 2–10 noise units off holidays, none in the last 30 days of a quiet cube', () => {
    expect(cube.shape.quiet).toBe(true);
    for (const inj of cube.injections) {
      expect(inj.end).toBeLessThan(cube.days - 30);
      if (inj.kind !== 'gap' && inj.kind !== 'missing') {
        expect(inj.z).toBeGreaterThanOrEqual(2);
        expect(inj.z).toBeLessThanOrEqual(10);
      }
      for (const t of [inj.start, inj.end]) {
        expect(cube.holidays.has(cube.day0 + t)).toBe(false);
        expect(inChristmas(cube.day0 + t)).toBe(false);
      }
    }
  });
});
