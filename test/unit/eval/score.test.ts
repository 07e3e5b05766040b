import { describe, expect, it } from 'vitest';
import { nthWeekday, usHolidayWindows } from '../../../scripts/eval/datasets';
import {
  collapseFound,
  falseBefore,
  foundAsOne,
  overlongPeriods,
  robustZBaseline,
  scoreSpans,
  scoringFrame,
  unionSpans,
  wowBaseline,
} from '../../../scripts/eval/score';
import { daysFromCivil, fromEpochDay } from '../../../lib/calendar/days';

const ones = (n: number) => new Uint8Array(n).fill(1);

describe('scoringFrame', () => {
  it('skips the warm-up and days the source lacks, but keeps labelled missing days', () => {
    const present = ones(20);
    present[12] = 0; // missing in the source, not labelled
    present[15] = 0; // missing, inside a label (an injected gap)
    const f = scoringFrame(100, present, [{ start: 115, end: 115 }], 10);
    expect(f.scoredDays).toBe(9); // days 10..19 except 12
    expect(f.scored[9]).toBe(0);
    expect(f.scored[12]).toBe(0);
    expect(f.scored[15]).toBe(1);
  });
});

describe('scoreSpans', () => {
  // 20 days from day 0, warm-up 0: labels on days 5..6 and 12.
  const frame = scoringFrame(0, ones(20), [], 0);
  const labels = [
    { start: 5, end: 6 },
    { start: 12, end: 12 },
  ];

  it('counts days, windows hit and false anomalies', () => {
    const s = scoreSpans(
      frame,
      [
        { start: 6, end: 8 },
        { start: 15, end: 15 },
      ],
      labels,
    );
    expect(s.flaggedDays).toBe(4);
    expect(s.truePositiveDays).toBe(1);
    expect(s.labelDays).toBe(3);
    expect(s.precision).toBeCloseTo(0.25);
    expect(s.recall).toBeCloseTo(1 / 3);
    expect(s.f1).toBeCloseTo((2 * 0.25 * (1 / 3)) / (0.25 + 1 / 3));
    expect(s.windowsHit).toBe(1);
    expect(s.windows).toBe(2);
    expect(s.anomalies).toBe(2);
    expect(s.falseAnomalies).toBe(1);
    expect(s.falsePer100Days).toBeCloseTo(5);
  });

  it('has no precision without flagged days and ignores anomalies in the warm-up', () => {
    const warm = scoringFrame(0, ones(20), [], 10);
    const s = scoreSpans(warm, [{ start: 2, end: 3 }], labels);
    expect(s.precision).toBeNull();
    expect(s.anomalies).toBe(0);
    expect(s.windows).toBe(1); // the window on day 5..6 lies in the warm-up
    expect(s.recall).toBe(0);
  });
});

describe('unionSpans', () => {
  it('merges overlapping anomalies of the same result only', () => {
    const u = unionSpans([
      [
        { start: 1, end: 3, result: 'Positive' },
        { start: 10, end: 10, result: 'Negative' },
      ],
      [
        { start: 3, end: 5, result: 'Positive' },
        { start: 4, end: 4, result: 'Negative' },
        { start: 6, end: 6, result: 'Positive' },
      ],
    ]);
    expect(u.map((s) => [s.start, s.end, s.result])).toEqual([
      [1, 5, 'Positive'],
      [4, 4, 'Negative'],
      [6, 6, 'Positive'],
      [10, 10, 'Negative'],
    ]);
  });
});

describe('event checks', () => {
  const window = { start: 100, end: 149 }; // 50 days

  it('finds a long event as one anomaly with start within 1 day and duration within 20 %', () => {
    expect(foundAsOne([{ start: 101, end: 155 }], window).pass).toBe(true);
    expect(foundAsOne([{ start: 102, end: 150 }], window).pass).toBe(false); // start 2 days late
    expect(foundAsOne([{ start: 100, end: 110 }], window).pass).toBe(false); // 11 of 50 days
    expect(
      foundAsOne(
        [
          { start: 100, end: 110 },
          { start: 111, end: 149 },
        ],
        window,
      ).pass,
    ).toBe(false);
    expect(foundAsOne([{ start: 99, end: 160 }], window).pass).toBe(false); // 62 days > 60
  });

  it('wants exactly one negative anomaly starting within 7 days of a collapse', () => {
    expect(collapseFound([{ start: 93, end: 120, result: 'Negative' }], 100).pass).toBe(true);
    expect(collapseFound([{ start: 92, end: 120, result: 'Negative' }], 100).pass).toBe(false);
    expect(collapseFound([{ start: 100, end: 120, result: 'Positive' }], 100).pass).toBe(false);
    const two = collapseFound(
      [
        { start: 99, end: 99, result: 'Negative' },
        { start: 103, end: 140, result: 'Negative' },
      ],
      100,
    );
    expect(two.pass).toBe(false);
    expect(two.negativeStarts).toBe(2);
  });

  it('lets a period detector count by the period that holds the collapse day', () => {
    const march = { start: 80, end: 110, result: 'Negative' as const };
    expect(collapseFound([march], 100).pass).toBe(false);
    expect(collapseFound([march], 100, 7, true).pass).toBe(true);
  });

  it('finds period anomalies longer than their period', () => {
    const r = overlongPeriods([
      { start: 0, end: 30, type: 'MOM' },
      { start: 31, end: 91, type: 'MOM' },
      { start: 0, end: 6, type: 'CW' },
      { start: 0, end: 200, type: 'ChangePoint' },
    ]);
    expect(r).toEqual({ MOM: [1, 61], CW: [0, 7] });
  });

  it('counts false anomalies before a day per 100 scored days', () => {
    const frame = scoringFrame(0, ones(300), [], 0);
    const r = falseBefore(
      frame,
      [
        { start: 10, end: 11 },
        { start: 250, end: 251 },
      ],
      [],
      200,
    );
    expect(r).toEqual({ falseAnomalies: 1, days: 200, per100: 0.5 });
  });
});

describe('baselines', () => {
  it('robust z flags a spike against the same weekdays only when at least 4 are present', () => {
    const n = 70;
    const values = new Float64Array(n);
    for (let t = 0; t < n; t++) values[t] = 100 + (t % 7) * 10 + (t % 3); // weekly shape, small noise
    values[63] = 400;
    const present = ones(n);
    const spans = robustZBaseline(0, values, present);
    expect(spans.map((s) => [s.start, s.result])).toEqual([[63, 'Positive']]);
    const few = ones(n);
    for (const k of [1, 2, 3, 4, 5]) few[63 - 7 * k] = 0;
    expect(robustZBaseline(0, values, few).some((s) => s.start === 63)).toBe(false);
  });

  it('WOW ±15 % flags changes against the day a week earlier and merges consecutive days', () => {
    const values = new Float64Array(21).fill(100);
    values[15] = 120;
    values[16] = 130;
    values[18] = 110;
    const spans = wowBaseline(0, values, ones(21));
    expect(spans.map((s) => [s.start, s.end, s.result])).toEqual([[15, 16, 'Positive']]);
  });
});

describe('US holiday labels', () => {
  it('places the moving holidays', () => {
    expect(fromEpochDay(nthWeekday(1988, 11, 3, 4))).toBe('1988-11-24'); // Thanksgiving
    expect(fromEpochDay(nthWeekday(1988, 9, 0, 1))).toBe('1988-09-05'); // Labor Day
    expect(fromEpochDay(nthWeekday(1988, 5, 0, -1))).toBe('1988-05-30'); // Memorial Day
    const y1970 = usHolidayWindows(1970);
    expect(y1970.find((w) => w.name?.includes('Memorial'))?.start).toBe(daysFromCivil(1970, 5, 30));
    const thanks = usHolidayWindows(1975).find((w) => w.name?.includes('Thanksgiving'));
    expect(thanks && [fromEpochDay(thanks.start), fromEpochDay(thanks.end)]).toEqual([
      '1975-11-27',
      '1975-11-28',
    ]);
  });
});
