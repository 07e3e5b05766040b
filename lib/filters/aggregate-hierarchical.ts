/** Hierarchical aggregation: groups of anomalies sharing values on their most stable dimensions. */
import { ownValue } from '../shared/own';

interface Categorised {
  categories: Record<string, string | null>;
}

/**
 * Dimensions ordered from most to least stable over the given anomalies: fewer distinct concrete values first,
 * then the dimension with a value on more anomalies, then by name. Dimensions never concrete are left out.
 */
export function dimensionsByStability(anomalies: readonly Categorised[]): string[] {
  const values = new Map<string, Set<string>>();
  const coverage = new Map<string, number>();
  for (const a of anomalies) {
    for (const name in a.categories) {
      const v = a.categories[name];
      if (v === null || v === undefined) continue;
      let set = values.get(name);
      if (!set) {
        set = new Set();
        values.set(name, set);
      }
      set.add(v);
      coverage.set(name, (coverage.get(name) ?? 0) + 1);
    }
  }
  return [...values.keys()].sort(
    (x, y) =>
      values.get(x)!.size - values.get(y)!.size ||
      coverage.get(y)! - coverage.get(x)! ||
      (x < y ? -1 : x > y ? 1 : 0),
  );
}

/**
 * Splits anomalies (of one data view and result) into groups, as lists of indices into `anomalies`.
 * Each anomaly's key is its values on the first `minCommon` stable dimensions where it has a value;
 * anomalies with the same key form a group, so every group shares at least `minCommon` dimensions.
 * An anomaly with fewer concrete dimensions than `minCommon` stays alone. Raising `minCommon` only
 * splits groups further (each key extends the shorter one), never merges them.
 */
export function hierarchicalGroups(
  anomalies: readonly Categorised[],
  minCommonCategories: number,
): number[][] {
  const minCommon = Math.max(1, Math.floor(minCommonCategories));
  const dims = dimensionsByStability(anomalies);
  const groups = new Map<string, number[]>();
  for (let i = 0; i < anomalies.length; i++) {
    const cats = anomalies[i].categories;
    const key: string[] = [];
    for (const d of dims) {
      const v = ownValue(cats, d);
      if (v === null || v === undefined) continue;
      key.push(d, v);
      if (key.length === 2 * minCommon) break;
    }
    const k = key.length === 2 * minCommon ? JSON.stringify(key) : `#${i}`;
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  }
  return [...groups.values()];
}
