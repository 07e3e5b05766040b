import { describe, expect, it } from 'vitest';
import { toEpochDay } from '../../../lib/calendar/days';
import { type Dataset, seriesFromRows } from '../../../scripts/eval/datasets';
import { DERIVATIONS, deriveDataset } from '../../../scripts/eval/derived-series';
import { evaluateMeasures } from '../../../scripts/eval/measures';
import {
  christmasDip,
  generateRatioCube,
  movedShare,
  RATIO_CUBE,
  summer,
} from '../../../scripts/eval/ratio-cube';
import { detectRatioCube, recurringWindow, runRatioCube } from '../../../scripts/eval/ratio-eval';

/** 400 days of a weekly series around 5,000 from day 1000, with a 30-day halving labelled on days 1200..1229. */
function dataset(): Dataset {
  const rows: [number, number][] = [];
  for (let d = 1000; d < 1400; d++) {
    if (d === 1100) continue; // a day the source lacks
    const level = 5000 * (1 + 0.1 * Math.sin(d)) * [1, 1.1, 1.2, 1.1, 1, 0.7, 0.6][d % 7];
    rows.push([d, d >= 1200 && d < 1230 ? level / 2 : level]);
  }
  return {
    series: seriesFromRows('page_views', 'views', rows),
    labels: [{ start: 1200, end: 1229, name: 'level_shift' }],
    labelKinds: ['level_shift'],
    kind: 'page_views',
  };
}

describe('copies that are not counts', () => {
  it('keep the days with data and the labels, and change the values as named', () => {
    const ds = dataset();
    const byName = Object.fromEntries(DERIVATIONS.map((d) => [d.name, deriveDataset(ds, d)]));
    const k = byName.thousands.series;
    expect(k.values[5]).toBeCloseTo(ds.series.values[5] / 1000, 12);
    expect(byName['units ×1000'].series.values[5]).toBeCloseTo(ds.series.values[5] * 1000, 6);
    expect(byName.log10.series.values[5]).toBeCloseTo(Math.log10(1 + ds.series.values[5]), 12);
    expect(k.present).toBe(ds.series.present);
    expect(k.values[100]).toBe(0); // the missing day stays a day without data
    expect(byName.average.labels).toBe(ds.labels);
    // An average of about 8 a visitor, a rate of about 5 %; the divisor's noise is seeded.
    const mean = (xs: Float64Array) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(byName.average.series.values)).toBeGreaterThan(5);
    expect(mean(byName.average.series.values)).toBeLessThan(12);
    expect(mean(byName['rate %'].series.values)).toBeGreaterThan(3);
    expect(mean(byName['rate %'].series.values)).toBeLessThan(7);
    expect(deriveDataset(ds, DERIVATIONS[0]).series.values).toEqual(byName.average.series.values);
  });

  it('are scored like the original: the halving hit by each copy, the scaled copies flag the same days', () => {
    const m = evaluateMeasures(dataset());
    expect(m.originalWindows).toEqual(['level_shift']);
    expect(m.copies.map((c) => c.derivation.name)).toEqual(DERIVATIONS.map((d) => d.name));
    for (const c of m.copies.filter((x) => x.derivation.scaled)) expect(c.daysDiffering).toBe(0);
    const same = m.checks.filter((c) => c.check.name.startsWith('the same injected windows'));
    expect(same).toHaveLength(DERIVATIONS.length);
    for (const c of m.copies) expect(c.windows).toEqual(['level_shift']);
    expect(same.every((c) => c.check.pass)).toBe(true);
  });
});

describe('ratio cube', () => {
  const tiny = { ...RATIO_CUBE, hotels: 3, days: 800, perKind: 3 };

  it('is deterministic, sums its leaves at every level, and injects price and volume apart', () => {
    const a = generateRatioCube(tiny);
    const b = generateRatioCube(tiny);
    expect(a.value).toEqual(b.value);
    expect(a.injections).toEqual(b.injections);
    expect(a.keys).toHaveLength(4 * 4);
    const t = 300;
    let leaves = 0;
    a.keys.forEach(([h, c], s) => {
      if (h > 0 && c > 0) leaves += a.count[s * a.days + t];
    });
    expect(a.count[t]).toBe(leaves); // the total (series 0) is the sum of the leaves
    const price = a.injections.find((x) => x.kind === 'price');
    const volume = a.injections.find((x) => x.kind === 'volume');
    if (!price || !volume) throw new Error('no injections');
    expect(movedShare(a, price, price.key, 'count')).toBe(0);
    expect(movedShare(a, price, price.key, 'ratio')).toBeGreaterThan(0.15);
    expect(movedShare(a, volume, volume.key, 'ratio')).toBeCloseTo(0, 9);
    expect(movedShare(a, volume, volume.key, 'count')).toBeGreaterThan(0.3);
  });

  it('knows its recurring windows', () => {
    expect(christmasDip(toEpochDay('2024-12-25'))).toBe(true);
    expect(christmasDip(toEpochDay('2024-12-28'))).toBe(false);
    expect(summer(toEpochDay('2024-07-31'))).toBeCloseTo(1);
    expect(summer(toEpochDay('2024-03-01'))).toBe(0);
    expect(recurringWindow(toEpochDay('2024-12-28'), toEpochDay('2024-12-30'))).toBe('Christmas dip');
    expect(recurringWindow(toEpochDay('2024-07-01'), toEpochDay('2024-07-31'))).toBe('summer season');
    expect(recurringWindow(toEpochDay('2024-03-01'), toEpochDay('2024-03-31'))).toBeNull();
  });

  it('finds price changes as ratio anomalies through the ratio path, and scores them', () => {
    const cube = generateRatioCube(tiny);
    const records = detectRatioCube(cube);
    expect(new Set(records.map((r) => r.measure))).toEqual(new Set(['value', 'count', 'ratio']));
    // The ratio is never judged by gap (its presence is the value's).
    expect(records.some((r) => r.measure === 'ratio' && r.type === 'Gap')).toBe(false);
    expect(records.every((r) => Number.isFinite(r.sin))).toBe(true);
    const r = runRatioCube(tiny);
    const price = r.kinds.find((k) => k.kind === 'price');
    expect(price?.injections).toBe(3);
    expect(price?.ratio).toBeGreaterThan(0);
    expect(r.top).toHaveLength(20);
    expect(r.checks).toHaveLength(3);
    expect(r.top[0].record.sin).toBeGreaterThanOrEqual(r.top[19].record.sin);
  });
});
