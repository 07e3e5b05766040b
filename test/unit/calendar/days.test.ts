import { describe, expect, it } from 'vitest';
import {
  daysInMonth,
  epochDayToYyyymmdd,
  fromEpochDay,
  toEpochDay,
  weekday,
  yyyymmddToEpochDay,
} from '../../../lib/calendar/days';

describe('epoch days', () => {
  it('counts 1970-01-01 as day 0 and 2024-01-01 as day 19723', () => {
    expect(toEpochDay('1970-01-01')).toBe(0);
    expect(toEpochDay('2024-01-01')).toBe(19723);
    expect(toEpochDay('2024-01-01')).toBe(Math.floor(Date.UTC(2024, 0, 1) / 86_400_000));
  });

  it('formats epoch days back to yyyy-MM-dd, also before 1970', () => {
    expect(fromEpochDay(19723)).toBe('2024-01-01');
    expect(fromEpochDay(toEpochDay('2024-02-29'))).toBe('2024-02-29');
    expect(fromEpochDay(-1)).toBe('1969-12-31');
  });

  it('reads the source YYYYMMDD integers', () => {
    expect(yyyymmddToEpochDay(20240131)).toBe(toEpochDay('2024-01-31'));
    expect(epochDayToYyyymmdd(toEpochDay('2023-12-05'))).toBe(20231205);
  });

  it('rejects impossible dates', () => {
    expect(() => toEpochDay('2023-02-29')).toThrow(RangeError);
    expect(() => toEpochDay('2024-13-01')).toThrow(RangeError);
    expect(() => toEpochDay('24-01-01')).toThrow(RangeError);
    expect(() => yyyymmddToEpochDay(20230431)).toThrow(RangeError);
  });

  it('numbers weekdays from Monday = 0 to Sunday = 6', () => {
    expect(weekday(toEpochDay('2024-01-01'))).toBe(0); // a Monday
    expect(weekday(toEpochDay('2024-01-07'))).toBe(6); // a Sunday
    expect(weekday(0)).toBe(3); // 1970-01-01 was a Thursday
    expect(weekday(-1)).toBe(2);
  });

  it('knows the length of February in leap and common years', () => {
    expect(daysInMonth(2024, 2)).toBe(29);
    expect(daysInMonth(2023, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(daysInMonth(1900, 2)).toBe(28);
  });
});
