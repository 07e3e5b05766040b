/**
 * The drawn parameters of one cube of the evaluation family (scripts/synthetic/family-cube.ts): its
 * hierarchy (2–4 categories, at most one parent link, fan-out 3–150), volume and over-dispersion, weekly
 * and yearly profile, country, holiday response, trend, dates, partial last day and whether its last
 * 30 days are quiet. Everything follows from the seed.
 */
import { toEpochDay } from '../../lib/calendar/days';
import { COUNTRIES, type Country } from './country-holidays';
import { randInt, uniform } from './rng';

export interface FamilyCategory {
  name: string;
  parent?: string;
  values: string[];
  /** For a child category: the parent's value index of each of its values. */
  parentOf?: number[];
}

export type WeekKind = 'retail' | 'b2b' | 'leisure' | 'flat';

export interface FamilyShape {
  seed: number;
  categories: FamilyCategory[];
  /** Categories whose values make the leaves (a parent is implied by its child). */
  leafDims: number[];
  series: number;
  leaves: number;
  days: number;
  day0: number;
  country: Country;
  week: WeekKind;
  /** Median expected events a day of a leaf; leaves spread around it from 1 to 1,000. */
  medianLeaf: number;
  /** Gamma shape of the leaves' daily counts (smaller: more over-dispersed). */
  shape: number;
  seasonAmplitude: number;
  /** Day of the year of the season's peak. */
  seasonPeak: number;
  trend: number;
  /** Share of the last day's events present (1: the day is complete). */
  lastDayShare: number;
  /** No injection in the last 30 days. */
  quiet: boolean;
  injections: number;
  missingDays: number;
}

const POOLS: Array<{ parent?: [string, string]; name: string; prefix: string }> = [
  { parent: ['region', 'R'], name: 'store', prefix: 'S' },
  { parent: ['country', 'C'], name: 'city', prefix: 'T' },
  { parent: ['category', 'K'], name: 'product', prefix: 'P' },
];
const FLAT = [
  ['channel', 'ch'],
  ['segment', 'seg'],
  ['device', 'dev'],
  ['tier', 'tier'],
];

const pad = (p: string, i: number, n: number) => `${p}${String(i + 1).padStart(String(n).length, '0')}`;

function childGroup(rand: () => number, k: number, maxChildren: number): FamilyCategory[] {
  const pool = POOLS[k % POOLS.length];
  const parents = randInt(rand, 3, 10);
  const children = randInt(rand, Math.max(parents * 2, 10), Math.max(parents * 2, maxChildren));
  const [pname, pprefix] = pool.parent as [string, string];
  const parentOf = Array.from({ length: children }, (_, i) =>
    i < parents ? i : randInt(rand, 0, parents - 1),
  );
  return [
    { name: pname, values: Array.from({ length: parents }, (_, i) => pad(pprefix, i, parents)) },
    {
      name: pool.name,
      parent: pname,
      values: Array.from({ length: children }, (_, i) => pad(pool.prefix, i, children)),
      parentOf,
    },
  ];
}

function flatDim(k: number, fan: number): FamilyCategory {
  const [name, prefix] = FLAT[k % FLAT.length];
  return { name, values: Array.from({ length: fan }, (_, i) => pad(prefix, i, fan)) };
}

/** Draws a hierarchy until its series count lies within [minSeries, maxSeries]. */
function drawHierarchy(rand: () => number, minSeries: number, maxSeries: number) {
  for (;;) {
    const linked = rand() < 0.6;
    const dims = randInt(rand, 2, 4);
    const cats: FamilyCategory[] = [];
    const start = randInt(rand, 0, 5);
    if (linked) cats.push(...childGroup(rand, start, 150));
    let k = start;
    while (cats.length < dims) {
      // One flat category may fan out widely when there is no parent link.
      const wide = !linked && k === start && rand() < 0.5;
      cats.push(flatDim(k++, wide ? randInt(rand, 20, 150) : randInt(rand, 3, 8)));
    }
    const leafDims = cats.map((_, i) => i).filter((i) => !cats.some((c) => c.parent === cats[i].name));
    let series = 1;
    let leaves = 1;
    for (const i of leafDims) {
      const c = cats[i];
      const parent = c.parent ? cats.find((p) => p.name === c.parent) : undefined;
      series *= 1 + c.values.length + (parent?.values.length ?? 0);
      leaves *= c.values.length;
    }
    if (series >= minSeries && series <= maxSeries) return { categories: cats, leafDims, series, leaves };
  }
}

export interface FamilyLimits {
  minSeries: number;
  maxSeries: number;
  /** Series × days at most. */
  maxSeriesDays: number;
}

export const FAMILY_LIMITS: FamilyLimits = { minSeries: 300, maxSeries: 1450, maxSeriesDays: 800_000 };

/** The cube of the family with this seed; `index` (its place in the family) decides quiet and the end date's season. */
export function drawShape(
  rand: () => number,
  seed: number,
  index: number,
  limits = FAMILY_LIMITS,
): FamilyShape {
  const h = drawHierarchy(rand, limits.minSeries, limits.maxSeries);
  const maxDays = Math.min(1000, Math.floor(limits.maxSeriesDays / h.series));
  const days = randInt(rand, Math.min(548, maxDays), Math.max(548, maxDays));
  // Every fourth cube ends just after New Year (its last week holds the holidays), the others anywhere.
  const end =
    index % 4 === 1
      ? toEpochDay('2026-01-02') + randInt(rand, 0, 6)
      : toEpochDay('2025-02-01') + randInt(rand, 0, 300);
  const weeks: WeekKind[] = ['retail', 'b2b', 'leisure', 'flat'];
  return {
    seed,
    ...h,
    days,
    day0: end - days + 1,
    country: COUNTRIES[index % COUNTRIES.length],
    week: weeks[randInt(rand, 0, 3)],
    medianLeaf: Math.exp(uniform(rand, Math.log(2), Math.log(40))),
    shape: Math.exp(uniform(rand, Math.log(2), Math.log(60))),
    seasonAmplitude: uniform(rand, 0, 0.35),
    seasonPeak: randInt(rand, 0, 364),
    trend: uniform(rand, -0.1, 0.3),
    lastDayShare: rand() < 0.35 ? 1 : uniform(rand, 0.3, 0.9),
    quiet: index % 3 === 0,
    injections: randInt(rand, 30, 50),
    missingDays: randInt(rand, 0, 2),
  };
}
