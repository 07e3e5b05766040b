/**
 * The category lattice of a view: every series is a combination of category codes, 0 meaning "all".
 * A series is an ancestor of another when it fixes a subset of the other's categories to the same
 * values (the other's categories with some set to "all"). Leaves fix every category. A cuboid is a
 * set of categories that a group of series fixes; with parent links (city → region) a cuboid that
 * fixes a child also fixes its parent, as the cube holds no other combinations.
 */

export interface Lattice {
  /** Category names in definition order. */
  categories: readonly string[];
  /** Index of each category's parent category, or -1. */
  parents: readonly number[];
}

/** Codes of one series, one per category (0 = all). */
export type Codes = ArrayLike<number>;

/** True when `a` fixes a subset of what `b` fixes, to the same values, and a ≠ b. */
export function isAncestor(a: Codes, b: Codes): boolean {
  let strict = false;
  for (let k = 0; k < a.length; k++) {
    if (a[k] === 0) {
      if (b[k] !== 0) strict = true;
    } else if (a[k] !== b[k]) return false;
  }
  return strict;
}

/** True when `a` is `b` or one of its ancestors. */
export function contains(a: Codes, b: Codes): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== 0 && a[k] !== b[k]) return false;
  return true;
}

/** Number of fixed categories (0 for the grand total). */
export function levelOf(codes: Codes): number {
  let n = 0;
  for (let k = 0; k < codes.length; k++) if (codes[k] !== 0) n++;
  return n;
}

export function isLeaf(codes: Codes): boolean {
  return levelOf(codes) === codes.length;
}

/** Text key of codes (for maps). */
export function codesKey(codes: Codes): string {
  return Array.prototype.join.call(codes, ',');
}

/**
 * The cuboids below a series: non-empty sets of its free categories (those it leaves at "all"), each
 * closed under parent links, as category index lists in definition order, fewest categories first.
 */
export function cuboidsBelow(lattice: Lattice, broad: Codes): number[][] {
  const free: number[] = [];
  for (let k = 0; k < lattice.categories.length; k++) if (broad[k] === 0) free.push(k);
  const out: number[][] = [];
  const total = 1 << free.length;
  for (let mask = 1; mask < total; mask++) {
    const set = free.filter((_, i) => (mask & (1 << i)) !== 0);
    const closed = set.every((k) => {
      const p = lattice.parents[k];
      return p < 0 || broad[p] !== 0 || set.includes(p);
    });
    if (closed) out.push(set);
  }
  return out.sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
}

/** The codes of `leaf` kept on `cuboid` and on what `broad` fixes, the rest 0. */
export function projectOnto(leaf: Codes, broad: Codes, cuboid: readonly number[]): Int32Array {
  const out = new Int32Array(leaf.length);
  for (let k = 0; k < leaf.length; k++) if (broad[k] !== 0) out[k] = broad[k];
  for (const k of cuboid) out[k] = leaf[k];
  return out;
}
