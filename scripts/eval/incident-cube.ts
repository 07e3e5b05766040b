/**
 * A generated cube as the incident evaluation sees it, whatever generated it: categories with their
 * parent links, leaves as integer codes (0 = all), each leaf's daily value and count, and the
 * injections with the combination they were injected on.
 */
import type { Cube } from '../synthetic/cube';
import { RETAIL_CATEGORIES, type RetailCube } from '../synthetic/retail-cube';

/** Codes per category, 0 = all. */
export type SeriesKey = number[];

export interface CubeInjectionLike {
  kind: string;
  key: SeriesKey;
  start: number;
  end: number;
  factor: number;
}

export interface CubeLike {
  categories: Array<{ name: string; parent?: string }>;
  /** Values of each category by code − 1. */
  values: string[][];
  day0: number;
  days: number;
  leaves: SeriesKey[];
  /** Per leaf and day (leaf l: [l * days, (l + 1) * days)): expected value and count without injections. */
  expectedValue: Float64Array;
  expectedCount: Float64Array;
  injections: CubeInjectionLike[];
  /** The generator's noise variance of leaf l's count on day t (without injections). */
  countVariance(l: number, t: number): number;
  overlaps(a: SeriesKey, b: SeriesKey): boolean;
  /** How much injection k moved series `key` over its days (|Σ injected − Σ expected| / Σ expected). */
  movedShare(k: number, key: SeriesKey, measure: 'value' | 'count'): number;
  /** The level of a combination for the report: the categories it fixes, joined by ×, or "leaf". */
  levelOf(key: SeriesKey): string;
  keyText(key: SeriesKey): string;
}

export function containsKey(outer: SeriesKey, inner: SeriesKey): boolean {
  return outer.every((c, i) => c === 0 || c === inner[i]);
}

export function overlapsKey(a: SeriesKey, b: SeriesKey): boolean {
  return a.every((c, i) => c === 0 || b[i] === 0 || c === b[i]);
}

/** Level names: a child category implies its parent, so "hotel" rather than "district×hotel". */
export function levelName(categories: CubeLike['categories'], key: SeriesKey): string {
  if (key.every((c) => c !== 0)) return 'leaf';
  const fixed = categories.filter((_, i) => key[i] !== 0).map((c) => c.name);
  const implied = new Set(
    categories.filter((c, i) => key[i] !== 0 && c.parent).map((c) => c.parent as string),
  );
  const named = fixed.filter((n) => !implied.has(n));
  return named.length ? named.join('×') : 'total';
}

export function keyTextOf(c: CubeLike, key: SeriesKey): string {
  return key.map((code, i) => (code === 0 ? '*' : c.values[i][code - 1])).join('/');
}

/** movedShare over the leaves' expected values and the injection factor. */
export function movedShareOf(c: CubeLike, k: number, key: SeriesKey, measure: 'value' | 'count'): number {
  const inj = c.injections[k];
  const expected = measure === 'value' ? c.expectedValue : c.expectedCount;
  let before = 0;
  let after = 0;
  c.leaves.forEach((leaf, l) => {
    if (!containsKey(key, leaf)) return;
    const hit = containsKey(inj.key, leaf);
    for (let t = inj.start; t <= inj.end; t++) {
      const e = expected[l * c.days + t];
      before += e;
      after += hit ? e * inj.factor : e;
    }
  });
  return before === 0 ? 0 : Math.abs(after - before) / before;
}

/** The hotel cube of scripts/synthetic/cube.ts as a CubeLike. */
export function hotelCubeLike(cube: Cube, categories: CubeLike['categories']): CubeLike {
  const names = categories.map((c) => c.name) as Array<'district' | 'hotel' | 'room_type' | 'channel'>;
  const values = names.map((n) => [...new Set(cube.leaves.map((l) => l[n]))].sort());
  const code = (i: number, v: string | null) => (v === null ? 0 : values[i].indexOf(v) + 1);
  const leaves = cube.leaves.map((l) => names.map((n, i) => code(i, l[n])));
  const expectedCount = cube.base;
  const expectedValue = new Float64Array(cube.base.length);
  for (let l = 0; l < leaves.length; l++)
    for (let t = 0; t < cube.days; t++)
      expectedValue[l * cube.days + t] = cube.base[l * cube.days + t] * cube.price[l];
  const like: CubeLike = {
    categories,
    values,
    day0: cube.day0,
    days: cube.days,
    leaves,
    expectedValue,
    expectedCount,
    injections: cube.injections.map((inj) => ({
      kind: inj.kind,
      key: names.map((n, i) => code(i, inj.key[n])),
      start: inj.start,
      end: inj.end,
      factor: inj.factor,
    })),
    // Bookings are Poisson.
    countVariance: (l, t) => cube.base[l * cube.days + t],
    overlaps: overlapsKey,
    movedShare: (k, key, measure) => movedShareOf(like, k, key, measure),
    levelOf: (key) => levelName(categories, key),
    keyText: (key) => keyTextOf(like, key),
  };
  return like;
}

/** Each leaf's daily actual value or count from source rows (leaf, day, amount, count). */
export function leafDaily(
  leaves: number,
  days: number,
  rows: {
    n: number;
    leaf: ArrayLike<number>;
    day: ArrayLike<number>;
    amount: ArrayLike<number>;
    count: ArrayLike<number>;
  },
  measure: 'value' | 'count',
): Float64Array {
  const out = new Float64Array(leaves * days);
  for (let r = 0; r < rows.n; r++)
    out[rows.leaf[r] * days + rows.day[r]] += measure === 'value' ? rows.amount[r] : rows.count[r];
  return out;
}

/** The retail cube of scripts/synthetic/retail-cube.ts as a CubeLike. */
export function retailCubeLike(cube: RetailCube): CubeLike {
  const like: CubeLike = {
    categories: RETAIL_CATEGORIES,
    values: cube.values,
    day0: cube.day0,
    days: cube.days,
    leaves: cube.leaves.map((l) => [...l]),
    expectedValue: cube.expectedValue,
    expectedCount: cube.expectedCount,
    injections: cube.injections.map((inj) => ({ ...inj, key: [...inj.key] })),
    // Gamma-Poisson orders (the shared shocks of ±2–4 % left out).
    countVariance: (l, t) => {
      const m = cube.expectedCount[l * cube.days + t];
      return m + (m * m) / cube.shape[l];
    },
    overlaps: overlapsKey,
    movedShare: (k, key, measure) => movedShareOf(like, k, key, measure),
    levelOf: (key) => levelName(RETAIL_CATEGORIES, key),
    keyText: (key) => keyTextOf(like, key),
  };
  return like;
}
