import { describe, expect, it } from 'vitest';
import { makeDraft } from '../../../lib/detection/anomaly-columns';
import { buildSpecialCalendar, type Impact } from '../../../lib/calendar/special-calendar';
import { detectSeries, detectShard } from '../../../lib/detection/detect';
import { resolveParams } from '../../../lib/detection/params';
import { previewSeries } from '../../../lib/detection/preview';
import { ValidationError } from '../../../lib/shared/errors';
import { MONDAY, dateOf, flat, series, withDays } from './helpers';

const spikeAt40 = () => withDays(flat(60, 100), { 40: 200 });

describe('merging flagged days', () => {
  it('three consecutive days at 200 make one anomaly of three days, figures per day and change cum in total', () => {
    const values = withDays(flat(60, 100), { 40: 200, 41: 200, 42: 200 });
    const anomalies = detectSeries(series(values), [{ type: 'dod' }]);
    expect(anomalies).toHaveLength(1);
    expect(anomalies[0]).toMatchObject({
      startDate: dateOf(40),
      endDate: dateOf(42),
      duration: 3,
      actualValue: 200,
      predictedValue: 100,
      change: 100,
      changePct: 100,
      changeCum: 300, // the total change over the window: linear in the duration
    });
  });

  it('a rise followed by a drop are two anomalies', () => {
    const values = withDays(flat(60, 100), { 40: 200, 41: 40 });
    const results = detectSeries(series(values), [{ type: 'dod' }]).map((a) => a.result);
    expect(results).toEqual(['Positive', 'Negative']);
  });
});

describe('mode', () => {
  const values = withDays(flat(60, 100), { 30: 200, 45: 50 });
  const results = (mode: string) =>
    detectSeries(series(values), [{ type: 'dod', params: { mode } }]).map((a) => a.result);

  it('both reports rises and falls', () => expect(results('both')).toEqual(['Positive', 'Negative']));
  it('positive reports only rises', () => expect(results('positive')).toEqual(['Positive']));
  it('negative reports only falls', () => expect(results('negative')).toEqual(['Negative']));
});

describe('series guards', () => {
  it('skips a series whose average is below minValue or above maxValue', () => {
    expect(detectSeries(series(spikeAt40()), [{ type: 'dod', params: { minValue: 150 } }])).toEqual([]);
    expect(detectSeries(series(spikeAt40()), [{ type: 'dod', params: { maxValue: 90 } }])).toEqual([]);
    expect(
      detectSeries(series(spikeAt40()), [{ type: 'dod', params: { minValue: 50, maxValue: 150 } }]),
    ).toHaveLength(1);
  });

  it('does not judge days whose expected value is below minVolume', () => {
    expect(detectSeries(series(spikeAt40()), [{ type: 'dod', params: { minVolume: 250 } }])).toEqual([]);
    expect(detectSeries(series(spikeAt40()), [{ type: 'dod', params: { minVolume: 50 } }])).toHaveLength(1);
  });

  it('judges an amount in its events when the value per event is given (materiality and Poisson noise)', () => {
    // Revenue of about 5 bookings a day at 100 each: 500 a day, tripled on day 40.
    const revenue = spikeAt40().map((v) => v * 5);
    const dod = [{ type: 'dod' as const }];
    expect(detectSeries(series(revenue), dod)).toHaveLength(1);
    // 5 bookings a day are below minVolume (10 events): not judged.
    expect(detectSeries(series(revenue, { valuePerEvent: 100 }), dod)).toEqual([]);
    // The same revenue from 50 bookings at 10 each is material.
    expect(detectSeries(series(revenue, { valuePerEvent: 10 }), dod)).toHaveLength(1);
  });

  it('skips value detectors when too many scanned days had no source data', () => {
    const present = new Uint8Array(60).fill(1);
    present.fill(0, 10, 45); // 35 of 60 days missing
    const input = series(spikeAt40(), { present });
    expect(previewSeries(input, { type: 'dod' }).skipped?.reason).toBe('gap-amount');
    expect(previewSeries(input, { type: 'dod', params: { maxMissingPct: 70 } }).skipped).toBeNull();
  });

  it('never judges days without source data (their filled values are no evidence)', () => {
    const values = withDays(flat(90, 1000), { 60: 0, 61: 0 });
    const present = new Uint8Array(90).fill(1);
    present[60] = 0;
    present[61] = 0;
    for (const type of ['dod', 'wow', 'spike', 'dt', 'changepoint', 'cw'] as const)
      expect(detectSeries(series(values, { present }), [{ type }])).toEqual([]);
    expect(detectSeries(series(values, { present }), [{ type: 'gap' }])).toHaveLength(1);
  });
});

describe('special dates', () => {
  const calendarFor = (day: number, impact: Impact) =>
    buildSpecialCalendar({ specialDates: [{ date: dateOf(day), impact }] }, MONDAY, MONDAY + 59);
  const run = (values: Float64Array, impact: Impact, useSpecialDates = true) =>
    detectSeries(series(values), [{ type: 'dod', params: { useSpecialDates } }], {
      calendar: calendarFor(40, impact),
    });

  it('impact both suppresses a rise and a fall on the day', () => {
    expect(run(spikeAt40(), 'both')).toEqual([]);
    expect(run(withDays(flat(60, 100), { 40: 50 }), 'both')).toEqual([]);
  });

  it('impact positive suppresses a rise but not a fall', () => {
    expect(run(spikeAt40(), 'positive')).toEqual([]);
    expect(run(withDays(flat(60, 100), { 40: 50 }), 'positive')).toHaveLength(1);
  });

  it('impact negative suppresses a fall but not a rise', () => {
    expect(run(withDays(flat(60, 100), { 40: 50 }), 'negative')).toEqual([]);
    expect(run(spikeAt40(), 'negative')).toHaveLength(1);
  });

  it('is ignored unless the detector has useSpecialDates', () => {
    expect(run(spikeAt40(), 'both', false)).toHaveLength(1);
  });

  it('suppresses a whole merged anomaly that overlaps the special day', () => {
    const values = withDays(flat(60, 100), { 39: 200, 40: 200, 41: 200 });
    expect(run(values, 'both')).toEqual([]);
  });

  it('keeps special days out of baselines: a week after a busy special day is compared with normal', () => {
    // Day 40 is 18 % up (below the threshold, so not flagged); day 47 is back to 94.
    const values = withDays(flat(60, 10_000), { 40: 11_800, 47: 9_400 });
    const wow = (useSpecialDates: boolean) =>
      previewSeries(
        series(values),
        { type: 'wow', params: { percentualChange: 20, useSpecialDates } },
        {
          calendar: calendarFor(40, 'positive'),
        },
      );
    expect(wow(false).expected[47]).toBe(11_800);
    expect(wow(false).anomalies.map((a) => a.startDate)).toEqual([dateOf(47)]);
    expect(wow(true).expected[47]).toBe(10_000);
    expect(wow(true).anomalies).toEqual([]);
  });
});

describe('analysed window', () => {
  it('ignoreLastNDays leaves the newest days out', () => {
    const values = withDays(flat(60, 100), { 59: 200 });
    expect(detectSeries(series(values), [{ type: 'dod' }])).toHaveLength(1);
    expect(detectSeries(series(values), [{ type: 'dod' }], { ignoreLastNDays: 1 })).toEqual([]);
  });

  it('scanInLastNDays reports only recent anomalies; 0 means the whole history', () => {
    const values = withDays(flat(60, 100), { 30: 200, 55: 200 });
    expect(detectSeries(series(values), [{ type: 'dod' }], { scanInLastNDays: 0 })).toHaveLength(2);
    const recent = detectSeries(series(values), [{ type: 'dod' }], { scanInLastNDays: 10 });
    expect(recent.map((a) => a.startDate)).toEqual([dateOf(55)]);
  });

  it('scanInLastNDays counts after ignoreLastNDays', () => {
    const values = withDays(flat(60, 100), { 50: 200 });
    expect(
      detectSeries(series(values), [{ type: 'dod' }], { scanInLastNDays: 5, ignoreLastNDays: 5 }),
    ).toHaveLength(1);
    expect(detectSeries(series(values), [{ type: 'dod' }], { scanInLastNDays: 5 })).toEqual([]);
  });
});

describe('anomaly fields', () => {
  it('recurrence counts earlier anomalies of the same type in the series, also before the scanned days', () => {
    const values = withDays(flat(80, 100), { 30: 200, 45: 200, 60: 20 });
    const all = detectSeries(series(values), [{ type: 'dod' }, { type: 'wow' }]);
    expect(all.filter((a) => a.type === 'DOD').map((a) => a.recurrence)).toEqual([0, 1, 2]);
    const recent = detectSeries(series(values), [{ type: 'dod' }], { scanInLastNDays: 25 });
    expect(recent.map((a) => a.recurrence)).toEqual([2]);
    const withHistory = detectSeries(series(values), [{ type: 'dod' }], { history: () => 5 });
    expect(withHistory.map((a) => a.recurrence)).toEqual([5, 6, 7]);
  });

  it('sharePct is the series’ share of the view total over the window', () => {
    const input = series(withDays(flat(60, 100), { 40: 200, 41: 200 }), { totalValues: flat(60, 1000) });
    const [a] = detectSeries(input, [{ type: 'dod' }]);
    expect(a.sharePct).toBe(20); // 400 of 2000
  });

  it('sharePct is null without a total and changePct is null when nothing was expected', () => {
    const values = flat(60, 0);
    values[40] = 5;
    // Nothing expected is not material: the day is not judged, whatever minVolume.
    expect(detectSeries(series(values), [{ type: 'wow' }])).toEqual([]);
    expect(detectSeries(series(values), [{ type: 'wow', params: { minVolume: 0 } }])).toEqual([]);
    const a = makeDraft('s1', 'Gap', MONDAY, 1, 5, 0, null, 0, true);
    expect(a).toMatchObject({ predictedValue: 0, changePct: null, sharePct: null, change: 5 });
  });
});

describe('shards', () => {
  it('detectShard finds exactly what detectSeries finds row by row', () => {
    const rows = [spikeAt40(), withDays(flat(60, 100), { 50: 20 }), flat(60, 100)];
    const values = new Float64Array(180);
    rows.forEach((r, i) => {
      values.set(r, i * 60);
    });
    const detectors = [{ type: 'dod' as const }, { type: 'spike' as const }];
    const fromShard = detectShard(
      { dayIndex0: MONDAY, days: 60, seriesIds: ['a', 'b', 'c'], values },
      detectors,
    ).toDrafts();
    const fromSeries = rows.flatMap((r, i) =>
      detectSeries({ seriesId: ['a', 'b', 'c'][i], dayIndex0: MONDAY, values: r }, detectors),
    );
    expect(fromShard).toEqual(fromSeries);
    expect(fromShard.map((a) => a.seriesId)).toEqual(['a', 'a', 'b', 'b']);
  });
});

describe('preview', () => {
  it('returns values, expected values and flagged days', () => {
    const p = previewSeries(series(spikeAt40()), { type: 'dod' });
    expect(p.skipped).toBeNull();
    expect(p.expected[40]).toBe(100);
    expect(Number.isNaN(p.expected[0])).toBe(true);
    expect(p.flags[40]).toBe(1);
    expect(Array.from(p.flags).filter((f) => f !== 0)).toHaveLength(1);
    expect(p.anomalies).toHaveLength(1);
    expect([p.analysedFrom, p.analysedTo]).toEqual([dateOf(0), dateOf(59)]);
  });

  it('explains a skip for the gap amount', () => {
    const present = new Uint8Array(60).fill(1);
    present.fill(0, 0, 20);
    present.fill(0, 30, 55);
    const p = previewSeries(series(spikeAt40(), { present }), { type: 'dod' });
    expect(p.skipped?.reason).toBe('gap-amount');
    expect(p.skipped?.message).toContain('62.5%');
    expect(p.anomalies).toEqual([]);
  });

  it('explains a skip for an average outside minValue / maxValue', () => {
    expect(
      previewSeries(series(spikeAt40()), { type: 'dod', params: { minValue: 500 } }).skipped?.reason,
    ).toBe('average-below-min');
    expect(
      previewSeries(series(spikeAt40()), { type: 'dod', params: { maxValue: 50 } }).skipped?.reason,
    ).toBe('average-above-max');
  });

  it('explains a skip for a missing baseline input and for too little history', () => {
    expect(previewSeries(series(spikeAt40()), { type: 'mix' }).skipped?.reason).toBe('missing-input');
    expect(previewSeries(series(flat(30, 1)), { type: 'mpy' }).skipped?.reason).toBe('too-short');
  });
});

describe('params', () => {
  it('fills documented defaults', () => {
    expect(resolveParams('dod')).toMatchObject({
      percentualChange: 30,
      mode: 'both',
      useSpecialDates: true,
      threshold: 4,
    });
    // minVolume is unset: 10 events, or for an amount a share of the view's total (materiality.ts).
    expect(resolveParams('dod').minVolume).toBeUndefined();
    expect(resolveParams('gap')).toMatchObject({ longerThan: 0 });
    expect(resolveParams('spike')).toMatchObject({ threshold: 4, window: 28 });
    expect(resolveParams('changepoint')).toMatchObject({ minSegment: 14 });
    expect(resolveParams('dt')).toMatchObject({ sensitivity: 3, window: 56 });
  });

  it('rejects a wrong type with the field path', () => {
    try {
      detectSeries(series(flat(10, 1)), [{ type: 'dod', params: { percentualChange: 'lots' } }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors).toEqual([
        { path: 'detectors[0].params.percentualChange', message: 'must be a finite number' },
      ]);
    }
  });

  it('rejects an unknown detector type', () => {
    expect(() => detectSeries(series(flat(10, 1)), [{ type: 'nope' as never }])).toThrow(ValidationError);
  });
});
