/**
 * The evaluation's cube family (docs/detection-quality.md, "The cube family"): cubes drawn from one
 * generator whose parameters vary by seed (scripts/synthetic/family-shape.ts), so that what the
 * incidents do is judged on data no one tuned for:
 * - a hierarchy of 2–4 categories, perhaps with a parent link, fan-out 3–150, 300–3,000 series;
 * - leaves of 1–1,000 events a day (log-normal weights per category value), gamma-Poisson over-dispersion
 *   and daily shocks shared by the whole cube;
 * - a weekly profile (retail, b2b, leisure, flat; one category's first value flatter), a yearly wave,
 *   a trend, the real public holidays of the cube's country and the Christmas–New Year period (a
 *   response by the cube's kind of business, weaker for one category's first value);
 * - missing days (no source rows at all: an injection of the total), a partial last day (its events
 *   thinned), injections at every level and across categories — spikes, drops, level shifts, gaps —
 *   sized 2–10 times the combination's daily noise, spread over the history, none in the last 30 days
 *   of a quiet cube, and none on a holiday.
 */
import { fromEpochDay, weekday } from '../../lib/calendar/days';
import type { SpecialDatesConfig } from '../../lib/calendar/special-calendar';
import { publicHolidays } from './country-holidays';
import { drawShape, type FamilyLimits, type FamilyShape, type WeekKind } from './family-shape';
import { drawInjections, type FamilyInjection } from './family-injections';
import { makeNormal, makeRng, uniform } from './rng';
import { gammaPoisson } from './family-noise';

export type { FamilyInjection } from './family-injections';

export interface FamilyCube {
  shape: FamilyShape;
  day0: number;
  days: number;
  /** Codes per category (0 = all) of each leaf; a child's parent is filled in. */
  leaves: number[][];
  expectedCount: Float64Array;
  expectedValue: Float64Array;
  /** Gamma shape per leaf. */
  leafShape: Float64Array;
  /** Standard deviation of the cube-wide daily shock (a factor around 1). */
  shock: number;
  injections: FamilyInjection[];
  rowLeaf: Int32Array;
  rowDay: Int32Array;
  rowAmount: Float64Array;
  rowCount: Int32Array;
  rows: number;
  /** The holidays as a user lists them today: the public holidays as special dates, Christmas–New Year as a period. */
  specialDates: SpecialDatesConfig;
  holidays: Set<number>;
}

const WEEK: Record<WeekKind, number[]> = {
  retail: [0.9, 0.95, 1, 1.05, 1.25, 1.5, 0.55],
  b2b: [1.15, 1.15, 1.1, 1.05, 1, 0.3, 0.2],
  leisure: [0.8, 0.8, 0.85, 0.95, 1.15, 1.4, 1.2],
  flat: [1, 1, 1, 1, 1, 1, 1],
};
/** A public holiday's factor and the Christmas–New Year period's, by kind of business. */
const HOLIDAY: Record<WeekKind, { day: number; period: number }> = {
  retail: { day: 0.35, period: 1.1 },
  b2b: { day: 0.25, period: 0.45 },
  leisure: { day: 1.35, period: 1.3 },
  flat: { day: 0.7, period: 0.8 },
};

function holidaySet(shape: FamilyShape): Set<number> {
  const first = Number(fromEpochDay(shape.day0).slice(0, 4));
  const last = Number(fromEpochDay(shape.day0 + shape.days - 1).slice(0, 4));
  const out = new Set<number>();
  for (let y = first; y <= last; y++) for (const d of publicHolidays(shape.country, y)) out.add(d);
  return out;
}

/** 12.24–01.01 */
export function inChristmas(day: number): boolean {
  const md = fromEpochDay(day).slice(5);
  return md >= '12-24' || md <= '01-01';
}

/** The calendar factor of a day for a leaf whose response to holidays is `response` (1 full, 0 none). */
function calendarFactor(shape: FamilyShape, holidays: Set<number>, day: number, response: number): number {
  const h = HOLIDAY[shape.week];
  let f = 1;
  if (inChristmas(day)) f *= h.period;
  if (holidays.has(day)) f *= h.day;
  return f === 1 ? 1 : f ** response;
}

/** Leaf weights: a log-normal weight per value of every leaf category, the product scaled to the median. */
function leafLevels(shape: FamilyShape, leaves: number[][], normal: () => number) {
  const weights = shape.categories.map((c) => c.values.map(() => Math.exp(0.9 * normal())));
  const raw = leaves.map((leaf) =>
    shape.leafDims.reduce((p, i) => p * weights[i][leaf[i] - 1], Math.exp(0.3 * normal())),
  );
  const sorted = [...raw].sort((a, b) => a - b);
  const scale = shape.medianLeaf / sorted[Math.floor(sorted.length / 2)];
  return raw.map((w) => Math.min(1000, Math.max(1, w * scale)));
}

function enumerateLeaves(shape: FamilyShape): number[][] {
  let out: number[][] = [shape.categories.map(() => 0)];
  for (const i of shape.leafDims) {
    const c = shape.categories[i];
    const parent = c.parent ? shape.categories.findIndex((p) => p.name === c.parent) : -1;
    const next: number[][] = [];
    for (const key of out)
      c.values.forEach((_, v) => {
        const k = [...key];
        k[i] = v + 1;
        if (parent >= 0) k[parent] = (c.parentOf as number[])[v] + 1;
        next.push(k);
      });
    out = next;
  }
  return out;
}

function expectations(shape: FamilyShape, leaves: number[][], holidays: Set<number>, rand: () => number) {
  const normal = makeNormal(rand);
  const { days, day0 } = shape;
  const level = leafLevels(shape, leaves, normal);
  const expectedCount = new Float64Array(leaves.length * days);
  const expectedValue = new Float64Array(leaves.length * days);
  const leafShape = new Float64Array(leaves.length);
  const week = WEEK[shape.week].map((w) => w * uniform(rand, 0.95, 1.05));
  // The last leaf category's first value is flatter through the week and answers holidays less (online).
  const soft = shape.leafDims[shape.leafDims.length - 1];
  leaves.forEach((leaf, l) => {
    const flat = leaf[soft] === 1;
    const trend = shape.trend + uniform(rand, -0.1, 0.1);
    const price = Math.exp(uniform(rand, Math.log(8), Math.log(200)));
    leafShape[l] = shape.shape * uniform(rand, 0.5, 2);
    for (let t = 0; t < days; t++) {
      const day = day0 + t;
      const wk = flat ? 0.5 + 0.5 * week[weekday(day)] : week[weekday(day)];
      const season =
        1 + shape.seasonAmplitude * Math.cos((2 * Math.PI * (t + day0 - shape.seasonPeak)) / 365.25);
      const cal = calendarFactor(shape, holidays, day, flat ? 0.4 : 1);
      const mu = level[l] * wk * season * cal * (1 + (trend * t) / 365);
      expectedCount[l * days + t] = Math.max(0.05, mu);
      expectedValue[l * days + t] = expectedCount[l * days + t] * price;
    }
  });
  return { expectedCount, expectedValue, leafShape };
}

/** The cube with this seed (its place `index` in the family decides whether it is quiet and when it ends). */
export function generateFamilyCube(seed: number, index: number, limits?: FamilyLimits): FamilyCube {
  const rand = makeRng(seed);
  const shape = drawShape(rand, seed, index, limits);
  const holidays = holidaySet(shape);
  const leaves = enumerateLeaves(shape);
  const { expectedCount, expectedValue, leafShape } = expectations(shape, leaves, holidays, rand);
  const shock = uniform(rand, 0, 0.03);
  const isHoliday = (t: number) => holidays.has(shape.day0 + t) || inChristmas(shape.day0 + t);
  const isChristmas = (t: number) => inChristmas(shape.day0 + t);
  const injections = drawInjections(rand, {
    shape,
    leaves,
    expectedCount,
    leafShape,
    shock,
    isHoliday,
    isChristmas,
  });
  const rows = gammaPoisson(rand, {
    shape,
    leaves,
    expectedCount,
    expectedValue,
    leafShape,
    shock,
    injections,
  });
  const years = [...new Set([...holidays].map((d) => fromEpochDay(d)))].sort();
  return {
    shape,
    day0: shape.day0,
    days: shape.days,
    leaves,
    expectedCount,
    expectedValue,
    leafShape,
    shock,
    injections,
    ...rows,
    holidays,
    specialDates: {
      specialDates: years.map((date) => ({ date, impact: 'both' as const })),
      specialPeriods: [{ start: '12.24', end: '01.01', impact: 'both' }],
    },
  };
}
