/**
 * Which category combinations are series: every set of categories that holds the parent of each of
 * its members (a left-out category means "all"). Without parents that is every subset; a chain
 * country → region → city gives only the prefixes of the chain.
 */
import { ValidationError } from '../shared/errors';

export interface CategoryNode {
  name: string;
  parent?: string;
}

export interface GroupingSet {
  /** Indices of the categories grouped by (definition order). */
  members: number[];
  /** PostgreSQL GROUPING(k1, …, kn) of this set: bit n-1-i is set when category i is left out. */
  mask: number;
  /** The category removed to reach the parent series: the last member that is no member's parent; null for the total. */
  removed: number | null;
}

/** PostgreSQL allows at most 4096 grouping sets in one query. */
export const MAX_GROUPING_SETS = 4096;

/** The grouping sets of the categories: by size (the total first), then in definition order. */
export function groupingSets(categories: CategoryNode[]): GroupingSet[] {
  const n = categories.length;
  const index = new Map(categories.map((c, i) => [c.name.toLowerCase(), i]));
  const parent = categories.map((c) => (c.parent ? (index.get(c.parent.toLowerCase()) ?? -1) : -1));
  if (n > 20) throw ValidationError.field('categories', `at most 20 categories can be built, got ${n}`);
  const out: GroupingSet[] = [];
  for (let subset = 0; subset < 1 << n; subset++) {
    const has = (i: number) => (subset & (1 << i)) !== 0;
    let closed = true;
    for (let i = 0; i < n && closed; i++) if (has(i) && parent[i] >= 0 && !has(parent[i])) closed = false;
    if (!closed) continue;
    const members = categories.map((_, i) => i).filter(has);
    let mask = 0;
    for (let i = 0; i < n; i++) if (!has(i)) mask |= 1 << (n - 1 - i);
    const leaves = members.filter((i) => !members.some((j) => parent[j] === i));
    out.push({ members, mask, removed: leaves.length ? leaves[leaves.length - 1] : null });
    if (out.length > MAX_GROUPING_SETS) {
      throw ValidationError.field(
        'categories',
        `the categories form more than ${MAX_GROUPING_SETS} combinations; link some with parents`,
      );
    }
  }
  const byMembers = (a: GroupingSet, b: GroupingSet) => {
    for (let i = 0; i < a.members.length; i++)
      if (a.members[i] !== b.members[i]) return a.members[i] - b.members[i];
    return 0;
  };
  return out.sort((a, b) => a.members.length - b.members.length || byMembers(a, b));
}
