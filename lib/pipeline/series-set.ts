/**
 * The series of a view from its leaves (the distinct category code combinations of its rows): every
 * grouping set of every leaf, a left-out category coded 0 ("all"), each with its parent (the series
 * without the set's `removed` category) and level. The same series as GROUPING SETS over the rows.
 */
import type { GroupingSet } from './grouping';

export interface SeriesSet {
  /** Categories per series. */
  width: number;
  count: number;
  /** Codes of series s at [s × width, (s + 1) × width); 0 = all. */
  codes: Int32Array;
  /** Categories with a code (not all) per series. */
  level: Int32Array;
  /** Index of the parent series, -1 for the total. */
  parent: Int32Array;
  /** Series of leaf l in grouping set g at [g × leaves + l]. */
  leafSeries: Int32Array;
  leaves: number;
  sets: number;
}

/** The series of `leaves` (each a code per category, none 0) under `sets`. */
export function seriesOfLeaves(
  leaves: ReadonlyArray<ArrayLike<number>>,
  sets: readonly GroupingSet[],
): SeriesSet {
  const width = sets.reduce((w, g) => Math.max(w, ...g.members.map((i) => i + 1)), 0);
  const nl = leaves.length;
  const index = new Map<string, number>();
  const codes: number[] = [];
  const setOf: number[] = [];
  const leafSeries = new Int32Array(sets.length * nl);
  const tuple = new Array<number>(width);
  for (let g = 0; g < sets.length; g++) {
    const members = sets[g].members;
    for (let l = 0; l < nl; l++) {
      tuple.fill(0);
      for (const i of members) tuple[i] = leaves[l][i];
      const key = tuple.join(',');
      let s = index.get(key);
      if (s === undefined) {
        s = setOf.length;
        index.set(key, s);
        codes.push(...tuple);
        setOf.push(g);
      }
      leafSeries[g * nl + l] = s;
    }
  }
  const count = setOf.length;
  const level = new Int32Array(count);
  const parent = new Int32Array(count).fill(-1);
  for (let s = 0; s < count; s++) {
    let n = 0;
    for (let i = 0; i < width; i++) if (codes[s * width + i] !== 0) n++;
    level[s] = n;
    const removed = sets[setOf[s]].removed;
    if (removed === null) continue;
    for (let i = 0; i < width; i++) tuple[i] = i === removed ? 0 : codes[s * width + i];
    parent[s] = index.get(tuple.join(',')) ?? -1;
  }
  return {
    width,
    count,
    codes: Int32Array.from(codes),
    level,
    parent,
    leafSeries,
    leaves: nl,
    sets: sets.length,
  };
}

/**
 * The series key of cat_map: the category values as a JSON array, null for all (as PostgreSQL's
 * to_json writes text: the same escapes as JSON.stringify).
 */
export function seriesKey(values: ReadonlyArray<string | null>): string {
  return `[${values.map((v) => (v === null ? 'null' : JSON.stringify(v))).join(',')}]`;
}

/**
 * Series ids: a series of `existing` (key → id) keeps its id; the others get the ids after `maxId`, by
 * level, then key.
 */
export function assignIds(
  keys: readonly string[],
  level: ArrayLike<number>,
  existing: ReadonlyMap<string, number>,
  maxId: number,
): Int32Array {
  const ids = new Int32Array(keys.length);
  const fresh: number[] = [];
  for (let s = 0; s < keys.length; s++) {
    const id = existing.get(keys[s]);
    if (id === undefined) fresh.push(s);
    else ids[s] = id;
  }
  fresh.sort((a, b) => level[a] - level[b] || (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  for (let i = 0; i < fresh.length; i++) ids[fresh[i]] = maxId + 1 + i;
  return ids;
}
