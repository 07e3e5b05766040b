/**
 * Injections of a family cube (scripts/synthetic/family-cube.ts): missing days of the whole cube first,
 * then spikes, drops, level shifts and gaps on combinations of every cuboid (a set of categories, a child
 * with its parent), the leaves' cuboid a third of them. Each is sized 2–10 times its combination's daily
 * noise (level shifts 2–6), lies after the first 8 weeks, off holidays (±2 days; a level shift only
 * starts and ends off them, and never spans Christmas), at least 3 weeks from
 * any other injection on the same leaves, and ends before the last 30 days in a quiet cube.
 */
import type { FamilyShape } from './family-shape';
import { randInt, uniform } from './rng';

export interface FamilyInjection {
  kind: 'spike' | 'drop' | 'level-shift' | 'gap' | 'missing';
  /** Codes per category, 0 = all. */
  key: number[];
  start: number;
  end: number;
  factor: number;
  /** Its size in units of the combination's daily noise (0 for gaps and missing days). */
  z: number;
}

export interface InjectionInput {
  shape: FamilyShape;
  leaves: number[][];
  expectedCount: Float64Array;
  leafShape: Float64Array;
  shock: number;
  isHoliday(t: number): boolean;
  isChristmas(t: number): boolean;
}

export const inKey = (key: number[], leaf: number[]) => key.every((c, i) => c === 0 || c === leaf[i]);

/** Sets of categories closed under parents (a child with its parent), the total left out. */
function cuboids(shape: FamilyShape): number[][] {
  const n = shape.categories.length;
  const out: number[][] = [];
  for (let mask = 1; mask < 1 << n; mask++) {
    const set = shape.categories.map((_, i) => i).filter((i) => mask & (1 << i));
    const closed = set.every((i) => {
      const p = shape.categories[i].parent;
      return !p || set.includes(shape.categories.findIndex((c) => c.name === p));
    });
    if (closed) out.push(set);
  }
  return out;
}

interface Combo {
  key: number[];
  leaves: number[];
  mean: number;
  /** Daily noise over the mean (relative standard deviation). */
  rel: number;
}

function combosOf(input: InjectionInput, cuboid: number[], leafMean: Float64Array): Combo[] {
  const byKey = new Map<string, Combo>();
  input.leaves.forEach((leaf, l) => {
    const key = leaf.map((c, i) => (cuboid.includes(i) ? c : 0));
    const k = key.join(',');
    const combo = byKey.get(k) ?? { key, leaves: [], mean: 0, rel: 0 };
    combo.leaves.push(l);
    combo.mean += leafMean[l];
    byKey.set(k, combo);
  });
  for (const c of byKey.values()) {
    let variance = (input.shock * c.mean) ** 2;
    for (const l of c.leaves) variance += leafMean[l] + leafMean[l] ** 2 / input.leafShape[l];
    c.rel = Math.sqrt(variance) / Math.max(c.mean, 1e-9);
  }
  return [...byKey.values()].filter((c) => c.mean >= 2);
}

function sizeOf(rand: () => number, kind: FamilyInjection['kind'], rel: number): [number, number] {
  if (kind === 'gap') return [0, 0];
  const z = kind === 'level-shift' ? uniform(rand, 2, 6) : uniform(rand, 2, 10);
  const d = z * rel;
  if (kind === 'spike') return [Math.min(8, 1 + d), z];
  if (kind === 'drop') return [Math.max(0.05, 1 - d), z];
  return rand() < 0.5 ? [Math.max(0.3, 1 - d), z] : [Math.min(3, 1 + d), z];
}

function leafMeans(input: InjectionInput): Float64Array {
  const { days } = input.shape;
  const out = new Float64Array(input.leaves.length);
  for (let l = 0; l < out.length; l++) {
    let s = 0;
    for (let t = 0; t < days; t++) s += input.expectedCount[l * days + t];
    out[l] = s / days;
  }
  return out;
}

function missingDays(rand: () => number, input: InjectionInput): FamilyInjection[] {
  const { days, quiet } = input.shape;
  const out: FamilyInjection[] = [];
  const total = input.shape.categories.map(() => 0);
  for (let i = 0; i < input.shape.missingDays; i++) {
    const t = randInt(rand, 56, days - (quiet ? 31 : 2));
    if (input.isHoliday(t) || out.some((m) => Math.abs(m.start - t) < 30)) continue;
    out.push({ kind: 'missing', key: total, start: t, end: t, factor: 0, z: 0 });
  }
  return out;
}

export function drawInjections(rand: () => number, input: InjectionInput): FamilyInjection[] {
  const { days, quiet } = input.shape;
  const means = leafMeans(input);
  const all = cuboids(input.shape);
  const leafCuboid = all[all.length - 1];
  const pools = new Map(all.map((c) => [c, combosOf(input, c, means)]));
  const injections = missingDays(rand, input);
  const busy: Array<Array<[number, number]>> = input.leaves.map(() => []);
  const nearMissing = (a: number, b: number) => injections.some((m) => a - 3 <= m.end && m.start <= b + 3);
  for (let n = 0; n < input.shape.injections; n++) {
    for (let attempt = 0; attempt < 300; attempt++) {
      const cuboid = rand() < 0.33 ? leafCuboid : all[randInt(rand, 0, all.length - 2)];
      const pool = pools.get(cuboid) ?? [];
      if (pool.length === 0) continue;
      const combo = pool[randInt(rand, 0, pool.length - 1)];
      const roll = rand();
      const kind = roll < 0.25 ? 'spike' : roll < 0.5 ? 'drop' : roll < 0.8 ? 'level-shift' : 'gap';
      const len = kind === 'level-shift' ? randInt(rand, 14, 56) : randInt(rand, 1, kind === 'gap' ? 4 : 3);
      const last = days - (quiet ? 31 : 2) - len;
      if (last < 56) continue;
      const start = randInt(rand, 56, last);
      const end = start + len - 1;
      // A level shift may run over a holiday (not Christmas), but neither starts nor ends near one.
      let holiday = false;
      for (let t = start - 2; t <= end + 2 && !holiday; t++)
        holiday = (t <= start + 2 || t >= end - 2 || kind !== 'level-shift') && input.isHoliday(t);
      for (let t = start; t <= end && !holiday; t++) holiday = input.isChristmas(t);
      if (holiday || nearMissing(start, end)) continue;
      if (combo.leaves.some((l) => busy[l].some(([a, b]) => start <= b + 21 && a <= end + 21))) continue;
      for (const l of combo.leaves) busy[l].push([start, end]);
      const [factor, z] = sizeOf(rand, kind, combo.rel);
      injections.push({ kind, key: combo.key, start, end, factor, z });
      break;
    }
  }
  return injections;
}
