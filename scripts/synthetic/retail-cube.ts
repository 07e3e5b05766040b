/**
 * A second cube for the incident evaluation, generated unlike the hotel cube (scripts/synthetic/cube.ts)
 * so that a method tuned to one generator shows it on the other (docs/detection-quality.md, "Incidents"):
 * a retail chain's daily orders (count) and sales (value) per region → store × department × channel.
 *
 * What differs from the hotel cube:
 * - noise: orders are over-dispersed (gamma-Poisson, a shape of 3–12 per leaf: a variance up to several
 *   times the mean), and every region shares a daily factor (weather, local events: ±4 %), the whole chain
 *   another (±2 %): noise correlated across leaves;
 * - shape: a weekend-heavy week (Saturday ×1.5, Sunday ×0.55 in stores, flatter online), Black Friday
 *   (×1.8, electronics ×2.6) and a December ramp each year, a January lull, summer for toys; online grows
 *   through the two years; department mixes differ between large and small stores;
 * - injections at every level of the lattice, including whole departments and channels across all stores
 *   and combinations across dimensions (region × channel, department × channel, store × department):
 *   spikes, drops, level shifts and gaps (no rows: a store closed, a channel down).
 */
import { daysFromCivil, fromEpochDay, toEpochDay, weekday } from '../../lib/calendar/days';
import type { SpecialDatesConfig } from '../../lib/calendar/special-calendar';
import { makeNormal, makeRng, randInt, uniform } from './rng';

export interface RetailOptions {
  seed: number;
  regions: number;
  stores: number;
  departments: number;
  channels: number;
  days: number;
  start: string;
  injections: number;
  /** Least expected orders a day of a combination that gets an injection. */
  minInjectionVolume: number;
}

/** ≈ 2,400 series × 2 years: 5 regions, 80 stores, 6 departments, 3 channels, 200 injections. */
export const RETAIL_CUBE: RetailOptions = {
  seed: 23,
  regions: 5,
  stores: 80,
  departments: 6,
  channels: 3,
  days: 731,
  start: '2023-01-01',
  injections: 200,
  minInjectionVolume: 12,
};

export const RETAIL_CATEGORIES = [
  { name: 'region' },
  { name: 'store', parent: 'region' },
  { name: 'department' },
  { name: 'channel' },
];

const DEPARTMENTS = ['grocery', 'fresh', 'home', 'electronics', 'apparel', 'toys'];
const CHANNELS = ['in_store', 'online', 'click_collect'];
const REGIONS = ['north', 'south', 'east', 'west', 'central', 'coast', 'alps'];

/** Codes per category (region, store, department, channel), 0 = all. */
export type RetailKey = [number, number, number, number];

export interface RetailInjection {
  kind: 'spike' | 'drop' | 'level-shift' | 'gap';
  key: RetailKey;
  start: number;
  end: number;
  factor: number;
}

export interface RetailCube {
  options: RetailOptions;
  day0: number;
  days: number;
  /** Category values by code − 1. */
  values: string[][];
  /** Leaf codes. */
  leaves: RetailKey[];
  expectedCount: Float64Array;
  expectedValue: Float64Array;
  rowLeaf: Int32Array;
  rowDay: Int32Array;
  rowAmount: Float64Array;
  rowCount: Int32Array;
  rows: number;
  injections: RetailInjection[];
  specialDates: SpecialDatesConfig;
  seriesCount: number;
  /** Each leaf's gamma shape: its daily orders vary as mean + mean² / shape (before the shared shocks). */
  shape: Float64Array;
}

const inKey = (key: RetailKey, leaf: RetailKey) => key.every((c, i) => c === 0 || c === leaf[i]);

/** Gamma(shape, 1) by Marsaglia–Tsang (shape ≥ 1). */
export function gamma(rand: () => number, normal: () => number, shape: number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x = 0;
    let v = 0;
    do {
      x = normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rand();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

export function poisson(rand: () => number, normal: () => number, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 40) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * normal()));
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rand();
  } while (p > l);
  return k - 1;
}

/** The day of Black Friday (the Friday after the fourth Thursday of November) of a year, as an epoch day. */
function blackFriday(year: number): number {
  const nov1 = daysFromCivil(year, 11, 1);
  const toThursday = (3 - weekday(nov1) + 7) % 7; // weekday: Monday = 0, Thursday = 3
  return nov1 + toThursday + 21 + 1;
}

function calendarFactor(day: number, dept: string): number {
  const iso = fromEpochDay(day);
  const year = Number(iso.slice(0, 4));
  const md = iso.slice(5);
  const bf = blackFriday(year);
  let f = 1;
  if (day >= bf && day <= bf + 3) f *= dept === 'electronics' ? 2.6 : 1.8;
  if (md >= '12-01' && md <= '12-23') f *= 1 + 0.3 * ((Number(md.slice(3)) - 1) / 22);
  if (md >= '12-24' && md <= '12-26') f *= 0.35;
  if (md >= '01-02' && md <= '01-20') f *= 0.85;
  if (dept === 'toys' && md >= '06-15' && md <= '08-31') f *= 1.25;
  return f;
}

export function generateRetailCube(o: RetailOptions): RetailCube {
  const rand = makeRng(o.seed);
  const normal = makeNormal(rand);
  const day0 = toEpochDay(o.start);
  const days = o.days;
  const regions = REGIONS.slice(0, o.regions);
  const departments = DEPARTMENTS.slice(0, o.departments);
  const channels = CHANNELS.slice(0, o.channels);
  const storeRegion: number[] = [];
  const storeSize: number[] = [];
  const stores: string[] = [];
  for (let s = 0; s < o.stores; s++) {
    storeRegion.push(randInt(rand, 0, regions.length - 1));
    storeSize.push(Math.exp(uniform(rand, Math.log(20), Math.log(400)))); // orders a day
    stores.push(`S${String(s + 1).padStart(3, '0')}`);
  }
  const values = [regions, stores, departments, channels];
  const leaves: RetailKey[] = [];
  const leafStore: number[] = [];
  for (let s = 0; s < o.stores; s++)
    for (let d = 0; d < departments.length; d++)
      for (let c = 0; c < channels.length; c++) {
        leaves.push([storeRegion[s] + 1, s + 1, d + 1, c + 1]);
        leafStore.push(s);
      }
  const n = leaves.length;
  const expectedCount = new Float64Array(n * days);
  const basket = new Float64Array(n);
  const shape = new Float64Array(n);
  const weekStore = [0.9, 0.95, 1.0, 1.05, 1.25, 1.5, 0.55]; // Monday first
  const weekOnline = [1.05, 1.0, 0.95, 0.95, 0.9, 0.95, 1.1];
  const deptBase = [0.35, 0.25, 0.12, 0.08, 0.12, 0.08];
  const deptPrice = [28, 22, 45, 180, 60, 35];
  leaves.forEach((leaf, l) => {
    const s = leafStore[l];
    const d = leaf[2] - 1;
    const c = leaf[3] - 1;
    const big = storeSize[s] > 120;
    // Large stores sell more electronics and apparel; small ones are mostly grocery and fresh.
    const mix = big ? [0.28, 0.2, 0.14, 0.13, 0.16, 0.09] : deptBase;
    const chan = [0.78, 0.14, 0.08][c] ?? 1 / channels.length;
    const level = storeSize[s] * mix[d] * chan * uniform(rand, 0.8, 1.2);
    basket[l] = deptPrice[d] * uniform(rand, 0.85, 1.2) * (c === 1 ? 1.1 : 1);
    shape[l] = uniform(rand, 3, 12);
    const growth = c === 0 ? uniform(rand, -0.05, 0.05) : uniform(rand, 0.1, 0.35); // per year
    for (let t = 0; t < days; t++) {
      const day = day0 + t;
      const wk = c === 0 ? weekStore[weekday(day)] : weekOnline[weekday(day)];
      expectedCount[l * days + t] =
        level * wk * calendarFactor(day, departments[d]) * (1 + (growth * t) / 365);
    }
  });
  const expectedValue = new Float64Array(n * days);
  for (let l = 0; l < n; l++)
    for (let t = 0; t < days; t++) expectedValue[l * days + t] = expectedCount[l * days + t] * basket[l];

  // Injections: combinations of every level with enough volume, kept apart from one another.
  const candidates: RetailKey[] = [];
  const push = (k: RetailKey) => candidates.push(k);
  for (let r = 1; r <= regions.length; r++) push([r, 0, 0, 0]);
  for (let d = 1; d <= departments.length; d++) push([0, 0, d, 0]);
  for (let c = 2; c <= channels.length; c++) push([0, 0, 0, c]);
  for (let r = 1; r <= regions.length; r++) for (let c = 2; c <= channels.length; c++) push([r, 0, 0, c]);
  for (let d = 1; d <= departments.length; d++) for (let c = 1; c <= channels.length; c++) push([0, 0, d, c]);
  for (let s = 0; s < o.stores; s++) {
    const r = storeRegion[s] + 1;
    push([r, s + 1, 0, 0]);
    for (let d = 1; d <= departments.length; d++) push([r, s + 1, d, 0]);
    for (let c = 1; c <= channels.length; c++) push([r, s + 1, 0, c]);
  }
  for (const leaf of leaves) push([...leaf] as RetailKey);
  const mid = Math.floor(days / 2);
  const volume = (k: RetailKey) => {
    let v = 0;
    leaves.forEach((leaf, l) => {
      if (inKey(k, leaf)) v += expectedCount[l * days + mid];
    });
    return v;
  };
  const material = candidates.filter((k) => volume(k) >= o.minInjectionVolume);
  // Broad levels first, each with its quota, so that the leaves' injections do not crowd them out.
  const byLevel = new Map<string, RetailKey[]>();
  for (const k of material) {
    const level = k.map((c) => (c === 0 ? 0 : 1)).join('');
    byLevel.set(level, [...(byLevel.get(level) ?? []), k]);
  }
  const QUOTA: Array<[string, number]> = [
    ['0001', 0.03], // channel
    ['0010', 0.04], // department
    ['1000', 0.04], // region
    ['1001', 0.05], // region × channel
    ['0011', 0.06], // department × channel
    ['1100', 0.15], // store
    ['1110', 0.15], // store × department
    ['1101', 0.13], // store × channel
    ['1111', 0.35], // leaf
  ];
  const plan: string[] = [];
  for (const [level, share] of QUOTA)
    for (let i = 0; i < Math.round(share * o.injections); i++) plan.push(level);
  const busy: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  const quiet = (start: number, end: number) => {
    for (let t = start - 3; t <= end + 3; t++) {
      const md = fromEpochDay(day0 + t).slice(5);
      if ((md >= '11-20' && md <= '12-31') || md <= '01-20') return false;
    }
    return true;
  };
  const injections: RetailInjection[] = [];
  const factor = new Float64Array(n * days).fill(1);
  for (const level of plan) {
    const pool = byLevel.get(level) ?? [];
    for (let attempt = 0; attempt < 400 && pool.length > 0; attempt++) {
      const key = pool[randInt(rand, 0, pool.length - 1)];
      const roll = rand();
      const kind = roll < 0.25 ? 'spike' : roll < 0.5 ? 'drop' : roll < 0.8 ? 'level-shift' : 'gap';
      const len =
        kind === 'level-shift'
          ? randInt(rand, 14, 56)
          : kind === 'gap'
            ? randInt(rand, 1, 4)
            : randInt(rand, 1, 4);
      const start = randInt(rand, 63, days - 10 - len);
      const end = start + len - 1;
      if (!quiet(start, end)) continue;
      const hit: number[] = [];
      leaves.forEach((leaf, l) => {
        if (inKey(key, leaf)) hit.push(l);
      });
      if (hit.some((l) => busy[l].some(([a, b]) => start <= b + 21 && a <= end + 21))) continue;
      for (const l of hit) busy[l].push([start, end]);
      const f =
        kind === 'spike'
          ? uniform(rand, 1.6, 2.5)
          : kind === 'drop'
            ? uniform(rand, 0.25, 0.55)
            : kind === 'gap'
              ? 0
              : rand() < 0.5
                ? uniform(rand, 0.55, 0.7)
                : uniform(rand, 1.35, 1.7);
      injections.push({ kind, key, start, end, factor: f });
      for (const l of hit) for (let t = start; t <= end; t++) factor[l * days + t] *= f;
      break;
    }
  }

  // Daily shocks shared by a region and by the chain.
  const regionShock = new Float64Array(regions.length * days);
  const chainShock = new Float64Array(days);
  for (let t = 0; t < days; t++) {
    chainShock[t] = Math.exp(0.02 * normal());
    for (let r = 0; r < regions.length; r++) regionShock[r * days + t] = Math.exp(0.04 * normal());
  }
  const cap = n * days;
  const rowLeaf = new Int32Array(cap);
  const rowDay = new Int32Array(cap);
  const rowAmount = new Float64Array(cap);
  const rowCount = new Int32Array(cap);
  let rows = 0;
  for (let l = 0; l < n; l++) {
    const r = leaves[l][0] - 1;
    for (let t = 0; t < days; t++) {
      const i = l * days + t;
      if (factor[i] === 0) continue;
      const mean = expectedCount[i] * factor[i] * chainShock[t] * regionShock[r * days + t];
      const k = poisson(rand, normal, (mean * gamma(rand, normal, shape[l])) / shape[l]);
      if (k === 0) continue;
      rowLeaf[rows] = l;
      rowDay[rows] = t;
      rowCount[rows] = k;
      rowAmount[rows] = Math.round(k * basket[l] * Math.exp(0.15 * normal() - 0.011) * 100) / 100;
      rows++;
    }
  }
  const regionsUsed = Math.max(1, new Set(storeRegion).size);
  return {
    options: o,
    day0,
    days,
    values,
    leaves,
    expectedCount,
    expectedValue,
    rowLeaf,
    rowDay,
    rowAmount,
    rowCount,
    rows,
    injections,
    shape,
    specialDates: {
      specialPeriods: [
        { start: '11.20', end: '12.31', impact: 'both' },
        { start: '01.01', end: '01.20', impact: 'both' },
      ],
    },
    seriesCount: (1 + regionsUsed + o.stores) * (1 + departments.length) * (1 + channels.length),
  };
}
