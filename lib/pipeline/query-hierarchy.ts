/**
 * The parent links a sample supports and the number of series the cube would have, for drafting a data
 * view from a query. Pure. A category is another's child when the other has fewer values and either each
 * of its values goes with exactly one value of the other (city → region), or its values nest in the
 * other's with some names recurring under several (a region South in Germany and in Austria): a category
 * below it tells them apart (each city lies in one region and one country) and the two are not crossed
 * (their pairs are fewer than their values together). Its parent is the nearest such category: the one
 * with the most values.
 */
import { type CategoryNode, groupingSets } from './grouping';

const key = (v: unknown) => (v === null || v === undefined ? '\u0000' : String(v));

/** Each category with the parent the rows support (none when no category qualifies), parents first. */
export function suggestParents(rows: Record<string, unknown>[], categories: string[]): CategoryNode[] {
  const distinct = new Map(categories.map((c) => [c, new Set(rows.map((r) => key(r[c]))).size]));
  const known = new Map<string, boolean>();
  /** c → p holds when no value of c meets two values of p (each pair read once). */
  const determines = (c: string, p: string) => {
    const k = `${c}\u0001${p}`;
    if (!known.has(k)) known.set(k, readDetermines(c, p));
    return known.get(k)!;
  };
  const readDetermines = (c: string, p: string) => {
    const seen = new Map<string, string>();
    for (const r of rows) {
      const cv = key(r[c]);
      const pv = key(r[p]);
      const before = seen.get(cv);
      if (before === undefined) seen.set(cv, pv);
      else if (before !== pv) return false;
    }
    return true;
  };
  const pairs = (c: string, p: string) => new Set(rows.map((r) => `${key(r[p])}\u0001${key(r[c])}`)).size;
  /** c's values nest in p's though some names recur: a category below c determines both, and c is not crossed with p. */
  const nests = (c: string, p: string) =>
    pairs(c, p) < distinct.get(c)! + distinct.get(p)! - 1 &&
    categories.some((d) => d !== c && d !== p && determines(d, c) && determines(d, p));
  const parentOf = new Map<string, string>();
  for (const c of categories) {
    let best: string | undefined;
    for (const p of categories) {
      if (p === c || distinct.get(p)! >= distinct.get(c)! || distinct.get(p)! < 2) continue;
      if (!determines(c, p) && !nests(c, p)) continue;
      if (best === undefined || distinct.get(p)! > distinct.get(best)!) best = p;
    }
    if (best) parentOf.set(c, best);
  }
  // Parents before their children, otherwise in the query's order.
  const out: CategoryNode[] = [];
  const placed = new Set<string>();
  const place = (c: string) => {
    if (placed.has(c)) return;
    const p = parentOf.get(c);
    if (p) place(p);
    placed.add(c);
    out.push(p ? { name: c, parent: p } : { name: c });
  };
  for (const c of categories) place(c);
  return out;
}

/** Work the count may take (grouping sets × rows) before it gives up. */
const MAX_WORK = 5_000_000;

/**
 * The series the cube would have over these rows: for each grouping set (./grouping.ts, a left-out
 * category meaning "all"), its distinct combinations. Null when that is too much to count here.
 */
export function countSeries(rows: Record<string, unknown>[], categories: CategoryNode[]): number | null {
  let sets: ReturnType<typeof groupingSets>;
  try {
    sets = groupingSets(categories);
  } catch {
    return null;
  }
  if (sets.length * Math.max(rows.length, 1) > MAX_WORK) return null;
  let total = 0;
  for (const set of sets) {
    const names = set.members.map((i) => categories[i].name);
    const seen = new Set<string>();
    for (const r of rows) seen.add(names.map((n) => key(r[n])).join('\u0001'));
    total += names.length === 0 ? 1 : seen.size;
  }
  return total;
}
