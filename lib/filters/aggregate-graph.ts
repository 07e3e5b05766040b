/** Graph aggregation: anomalies linked by overlapping dates and weighted category overlap, grouped as components. */
import { UnionFind } from './union-find';
import { ownValue } from '../shared/own';

interface Linkable {
  id: number;
  startDate: string;
  endDate: string;
  categories: Record<string, string | null>;
}

/** One anomaly's weighted concrete categories, dims ascending, plus its date span. */
interface Profile {
  dims: Int32Array;
  values: Int32Array;
  weight: number;
  start: number;
  end: number;
}

function dateNumber(date: string): number {
  return Number(date.slice(0, 4)) * 10_000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/**
 * Weighted overlap of two category combinations: the weight of dimensions where both have the same concrete
 * value, over the weight of dimensions where either has a concrete value. Two combinations without any
 * weighted concrete value (both totals) overlap fully.
 */
export function categoryOverlap(
  a: Record<string, string | null>,
  b: Record<string, string | null>,
  weights: Record<string, number> = {},
): number {
  let shared = 0;
  let union = 0;
  const w = (d: string) => ownValue(weights, d) ?? 1;
  for (const d in a) {
    const va = a[d];
    if (va === null || va === undefined) continue;
    union += w(d);
    if (ownValue(b, d) === va) shared += w(d);
  }
  for (const d in b) {
    const vb = b[d];
    if (vb === null || vb === undefined) continue;
    const av = ownValue(a, d);
    if (av === null || av === undefined) union += w(d);
  }
  return union === 0 ? 1 : shared / union;
}

function profileOverlap(a: Profile, b: Profile, dimWeight: Float64Array): number {
  let shared = 0;
  let union = 0;
  let i = 0;
  let j = 0;
  while (i < a.dims.length || j < b.dims.length) {
    const da = i < a.dims.length ? a.dims[i] : Number.MAX_SAFE_INTEGER;
    const db = j < b.dims.length ? b.dims[j] : Number.MAX_SAFE_INTEGER;
    if (da === db) {
      union += dimWeight[da];
      if (a.values[i] === b.values[j]) shared += dimWeight[da];
      i++;
      j++;
    } else if (da < db) {
      union += dimWeight[da];
      i++;
    } else {
      union += dimWeight[db];
      j++;
    }
  }
  return union === 0 ? 1 : shared / union;
}

/**
 * Splits anomalies (of one data view and result) into connected components, as lists of indices.
 * Two anomalies are linked when their date windows overlap and categoryOverlap ≥ threshold.
 * Candidates come from an inverted index over the rarest values of each anomaly (prefix filtering):
 * a pair reaching the threshold must share one of them, so most pairs are never compared.
 */
export function graphGroups(
  anomalies: readonly Linkable[],
  threshold: number,
  weights: Record<string, number> = {},
): number[][] {
  const n = anomalies.length;
  const uf = new UnionFind(n);
  const dimIds = new Map<string, number>();
  const dimWeightList: number[] = [];
  const tokenIds = new Map<string, number>();
  const tokenCount: number[] = [];
  const tokenDim: number[] = [];
  const profiles: Profile[] = new Array(n);

  for (let i = 0; i < n; i++) {
    const a = anomalies[i];
    const pairs: Array<[number, number]> = [];
    let weight = 0;
    for (const name in a.categories) {
      const v = a.categories[name];
      const w = ownValue(weights, name) ?? 1;
      if (v === null || v === undefined || !(w > 0)) continue;
      let d = dimIds.get(name);
      if (d === undefined) {
        d = dimWeightList.length;
        dimIds.set(name, d);
        dimWeightList.push(w);
      }
      const key = `${d}\u0000${v}`;
      let t = tokenIds.get(key);
      if (t === undefined) {
        t = tokenCount.length;
        tokenIds.set(key, t);
        tokenCount.push(0);
        tokenDim.push(d);
      }
      tokenCount[t]++;
      pairs.push([d, t]);
      weight += w;
    }
    pairs.sort((x, y) => x[0] - y[0]);
    profiles[i] = {
      dims: Int32Array.from(pairs, (p) => p[0]),
      values: Int32Array.from(pairs, (p) => p[1]),
      weight,
      start: dateNumber(a.startDate),
      end: dateNumber(a.endDate),
    };
  }
  const dimWeight = Float64Array.from(dimWeightList);

  // Sweep by start date: everything still "active" (ending on or after this start) overlaps in dates.
  const byStart = Array.from({ length: n }, (_, i) => i).sort(
    (x, y) => profiles[x].start - profiles[y].start || profiles[x].end - profiles[y].end || x - y,
  );

  if (threshold <= 0) {
    // Every date overlap links: components are runs of overlapping intervals.
    let maxEnd = Number.NEGATIVE_INFINITY;
    let prev = -1;
    for (const i of byStart) {
      if (prev >= 0 && profiles[i].start <= maxEnd) uf.union(prev, i);
      maxEnd = Math.max(maxEnd, profiles[i].end);
      prev = i;
    }
    return uf.groups();
  }

  // Rare values first: prefixes then hold few, selective tokens.
  const rank = (t: number) => tokenCount[t] * tokenCount.length + t;
  const postings: number[][] = Array.from({ length: tokenCount.length }, () => []);
  const totals: number[] = []; // anomalies with no weighted concrete value
  const seenBy = new Int32Array(n).fill(-1);

  const ends = Int32Array.from(profiles, (p) => p.end);

  const visit = (list: number[], i: number, p: Profile, fixedOverlap: number | null): void => {
    let root = uf.find(i);
    let keep = 0;
    for (let k = 0; k < list.length; k++) {
      const j = list[k];
      if (ends[j] < p.start) continue; // ended before this start, and later starts are later still
      list[keep++] = j;
      if (seenBy[j] === i) continue;
      seenBy[j] = i;
      if (uf.find(j) === root) continue;
      const overlap = fixedOverlap ?? profileOverlap(p, profiles[j], dimWeight);
      if (overlap >= threshold) {
        uf.union(i, j);
        root = uf.find(i);
      }
    }
    list.length = keep;
  };

  for (const i of byStart) {
    const p = profiles[i];
    if (p.values.length === 0) {
      if (threshold <= 1) visit(totals, i, p, 1);
      totals.push(i);
      continue;
    }
    const tokens = Array.from(p.values).sort((x, y) => rank(x) - rank(y));
    // Shortest prefix whose remainder weighs less than threshold × weight (with slack for rounding).
    let suffix = p.weight;
    const bar = threshold * p.weight * (1 - 1e-9);
    let prefixLength = 0;
    while (prefixLength < tokens.length && suffix >= bar) {
      suffix -= dimWeight[tokenDim[tokens[prefixLength]]];
      prefixLength++;
    }
    for (let k = 0; k < prefixLength; k++) visit(postings[tokens[k]], i, p, null);
    for (let k = 0; k < prefixLength; k++) postings[tokens[k]].push(i);
  }
  return uf.groups();
}
