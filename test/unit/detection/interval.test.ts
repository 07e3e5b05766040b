/** An interval measure (arbitrary zero) is judged in its own noise units, never in percent. */
import { describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { detectSeries } from '../../../lib/detection';
import { resolveDetectors, seriesWindow, skipReason } from '../../../lib/detection/detect';
import { crossesZero, isIntervalMeasure } from '../../../lib/process-job/scale';
import { officeTemperature } from '../../../scripts/synthetic/office-temperature';

const office = officeTemperature();
const input = (measureKind?: 'interval') => ({
  seriesId: 1,
  dayIndex0: toEpochDay(office.start),
  values: Float64Array.from(office.values),
  ...(measureKind ? { measureKind } : {}),
});
const found = (anomalies: Array<{ startDay: number; endDay: number }>) =>
  office.faults.filter((f) =>
    anomalies.some((a) => a.startDay - input().dayIndex0 <= f.to && a.endDay - input().dayIndex0 >= f.from),
  ).length;

describe('an office temperature with two cooling failures', () => {
  it('finds both as a robust z-score in °C, the change in units and no percent', () => {
    const anomalies = detectSeries(input('interval'), [{ type: 'spike' }]);
    expect(found(anomalies)).toBe(2);
    // Few days besides: the weekly pattern and the seasons are expected.
    expect(anomalies.length).toBeLessThanOrEqual(4);
    for (const a of anomalies) expect(a.changePct).toBeNull();
    const first = anomalies.find((a) => a.startDay - input().dayIndex0 === office.faults[0].from);
    expect(first?.change).toBeGreaterThan(2.5);
    expect(first?.result).toBe('Positive');
  });

  it('judged in percent it finds neither (+15 % on 23 °C is below every percent threshold)', () => {
    const anomalies = detectSeries(input(), [{ type: 'spike' }, { type: 'dod' }, { type: 'dt' }]);
    expect(found(anomalies)).toBe(0);
  });

  it('is the same in °F: the verdict does not depend on where the zero is', () => {
    const f = { ...input('interval'), values: Float64Array.from(office.values, (c) => c * 1.8 + 32) };
    const c = detectSeries(input('interval'), [{ type: 'spike' }]).map((a) => a.startDay);
    expect(detectSeries(f, [{ type: 'spike' }]).map((a) => a.startDay)).toEqual(c);
  });

  it('percent detectors skip an interval measure', () => {
    expect(detectSeries(input('interval'), [{ type: 'dod' }])).toEqual([]);
    const [dod] = resolveDetectors([{ type: 'dod' }]);
    const i = input('interval');
    expect(skipReason(i, dod, seriesWindow(i, {}))?.reason).toBe('not-for-measure');
  });

  it('a measure is interval when set so, or unset and its total crosses zero', () => {
    expect(crossesZero(Float64Array.from([3, -1, 2]))).toBe(true);
    expect(crossesZero(Float64Array.from([3, 0, 2]))).toBe(false);
    expect(isIntervalMeasure(undefined, 'value', Float64Array.from([-2, 5]))).toBe(true);
    expect(isIntervalMeasure('ratio', 'value', Float64Array.from([-2, 5]))).toBe(false);
    expect(isIntervalMeasure('interval', 'count', Float64Array.from([2, 5]))).toBe(true);
    expect(isIntervalMeasure(undefined, 'ratio', Float64Array.from([-2, 5]))).toBe(false);
  });
});
