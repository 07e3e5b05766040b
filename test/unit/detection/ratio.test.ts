/**
 * The ratio measure in the engine: value ÷ count per day (the average rate, the average basket), judged
 * with a noise that shrinks with the events behind each day. A price cut with steady bookings is a
 * ratio anomaly; more bookings at the usual prices, or a day of two bookings at an odd price, is not.
 */
import { describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { detectSeries, previewSeries, RATIO_TYPES } from '../../../lib/detection';
import type { DetectorType } from '../../../lib/detection/params';
import type { SeriesInput } from '../../../lib/detection/types';

const DAY0 = toEpochDay('2024-01-01');
const DAYS = 400;
const WEEK = [0.9, 0.95, 1, 1, 1.1, 1.25, 0.8];

/** A deterministic generator (a linear congruential one): the same series every run. */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

interface Options {
  events?: number;
  /** Multiplies the bookings on the days in [from, to]. */
  volume?: [number, number, number];
  /** Multiplies the price on the days in [from, to]. */
  price?: [number, number, number];
}

/** Revenue and bookings of a hotel: bookings ~ events × weekday × noise, revenue = bookings × price × noise. */
function hotel(o: Options = {}) {
  const rand = rng(11);
  // About a standard normal: the sum of four uniforms, centred, over its standard deviation (1/√3).
  const gauss = () => (rand() + rand() + rand() + rand() - 2) * Math.sqrt(3);
  const count = new Float64Array(DAYS);
  const value = new Float64Array(DAYS);
  for (let t = 0; t < DAYS; t++) {
    const inWindow = (w?: [number, number, number]) => (w && t >= w[0] && t <= w[1] ? w[2] : 1);
    const mean = (o.events ?? 100) * WEEK[t % 7] * inWindow(o.volume);
    const c = Math.max(0, Math.round(mean + Math.sqrt(mean) * gauss()));
    count[t] = c;
    // A quarter of the bookings are suites at 220, the others rooms at 100 (and each ±5 %): a day's
    // average rate varies with its mix, the more the fewer its bookings.
    const suites = Math.min(c, Math.max(0, Math.round(0.25 * c + Math.sqrt(0.1875 * c) * gauss())));
    value[t] =
      ((c - suites) * 100 + suites * 220) * inWindow(o.price) * (1 + (0.05 / Math.sqrt(c || 1)) * gauss());
  }
  return { count, value };
}

/** The ratio series as the process job derives it: value ÷ count, days without events without data. */
function ratio(h: { count: Float64Array; value: Float64Array }, scale = 1): SeriesInput {
  const values = new Float64Array(DAYS);
  const present = new Uint8Array(DAYS);
  let last = 0;
  for (let t = 0; t < DAYS; t++) {
    if (h.count[t] > 0) {
      last = (h.value[t] * scale) / h.count[t];
      present[t] = 1;
    }
    values[t] = last;
  }
  return {
    seriesId: 'adr',
    dayIndex0: DAY0,
    values,
    present,
    measureKind: 'ratio',
    weights: h.count,
    shareOf: h.value,
  };
}

const JUDGES = [...RATIO_TYPES].filter((t) => t !== 'peer') as DetectorType[];

describe('the ratio measure', () => {
  it('finds a price cut with steady bookings, as a fall of the average rate', () => {
    const found = detectSeries(
      ratio(hotel({ price: [250, 270, 0.75] })),
      JUDGES.map((type) => ({ type })),
    );
    const cut = found.filter((a) => a.startDay - DAY0 <= 270 && a.endDay - DAY0 >= 250);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((a) => a.result === 'Negative')).toBe(true);
    // Figures per booking: about 130 expected, about 98 actual.
    const spike = cut.find((a) => a.type === 'Spike');
    expect(spike?.predictedValue).toBeGreaterThan(120);
    expect(spike?.actualValue).toBeLessThan(105);
    // Nothing else in the year.
    expect(found.filter((a) => a.endDay - DAY0 < 245 || a.startDay - DAY0 > 275)).toEqual([]);
  });

  it('reports nothing for more bookings at the usual prices', () => {
    const h = hotel({ volume: [250, 290, 1.7] });
    expect(
      detectSeries(
        ratio(h),
        JUDGES.map((type) => ({ type })),
      ),
    ).toEqual([]);
    // The same rise is news on the count.
    expect(detectSeries({ seriesId: 'n', dayIndex0: DAY0, values: h.count }, [{ type: 'dod' }]).length).toBe(
      1,
    );
  });

  it('takes a day of two bookings at an odd price for the noise it is', () => {
    const h = hotel();
    // A quiet Sunday: two bookings, both suites (an average rate of 220 against the usual 130).
    h.count[300] = 2;
    h.value[300] = 2 * 220;
    expect(
      detectSeries(
        ratio(h),
        JUDGES.map((type) => ({ type })),
      ),
    ).toEqual([]);
    // Weighed as a full day (every day the same), it would be news.
    const flat = { ...ratio(h), weights: new Float64Array(DAYS).fill(100) };
    expect(
      detectSeries(
        flat,
        JUDGES.map((type) => ({ type })),
      ).length,
    ).toBeGreaterThan(0);
  });

  it('weighs each day by its events in the noise of Spike and DT: a price move on busy days is news', () => {
    // A group fills the hotel for two days (4× the bookings) at a rate 20 % below (Spike) or 30 % above
    // (DT, whose fences are wider) the usual: on 80–120 bookings a day that is several times the noise
    // of an average rate; on the usual 20–30 bookings it is not.
    const cases = [
      { type: 'spike', events: 30, price: 0.8 },
      { type: 'dt', events: 20, price: 1.3 },
    ] as const;
    for (const { type, events, price } of cases) {
      const busy = hotel({ events, price: [300, 301, price], volume: [300, 301, 4] });
      const found = detectSeries(ratio(busy), [{ type }]);
      expect(
        found.some((a) => a.startDay - DAY0 <= 301 && a.endDay - DAY0 >= 300),
        type,
      ).toBe(true);
      expect(
        found.filter((a) => a.endDay - DAY0 < 299 || a.startDay - DAY0 > 302),
        type,
      ).toEqual([]);
      const usual = hotel({ events, price: [300, 301, price] });
      expect(detectSeries(ratio(usual), [{ type }]), type).toEqual([]);
    }
  });

  it('judges the same days whatever the unit of the value', () => {
    const h = hotel({ price: [250, 270, 0.75] });
    const days = (s: SeriesInput) =>
      detectSeries(
        s,
        JUDGES.map((type) => ({ type })),
      ).map((a) => `${a.type} ${a.startDate} ${a.endDate}`);
    expect(days(ratio(h, 1 / 1000))).toEqual(days(ratio(h)));
    expect(days(ratio(h, 1000))).toEqual(days(ratio(h)));
  });

  it('skips a series with fewer than minVolume events a day, and the detectors a ratio is no input for', () => {
    const thin = ratio(hotel({ events: 6 }));
    expect(previewSeries(thin, { type: 'dod' }).skipped?.reason).toBe('few-events');
    expect(previewSeries(thin, { type: 'dod', params: { minVolume: 5 } }).skipped).toBeNull();
    const full = ratio(hotel());
    for (const type of ['gap', 'mix', 'cardinality'] as const)
      expect(
        previewSeries({ ...full, parentValues: full.values, cardinality: full.values }, { type }).skipped
          ?.reason,
      ).toBe('not-for-measure');
  });

  it('gives the share % of the value measure, not of the ratio', () => {
    const h = hotel({ price: [250, 270, 0.75] });
    const total = h.value.map((v) => v * 4);
    const [a] = detectSeries({ ...ratio(h), totalValues: total }, [{ type: 'spike' }]);
    expect(a.sharePct).toBeCloseTo(25, 6);
  });
});
