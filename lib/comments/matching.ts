/** Which comments belong to which anomalies (spec, Comment, matching rules 1-4). */
import { ownValue } from '../shared/own';

/** The fields of a comment that matching reads. */
export interface MatchableComment {
  dataViewId: number;
  /** yyyy-MM-dd, inclusive */
  dateFrom: string;
  /** yyyy-MM-dd, inclusive */
  dateTo: string;
  /** A null or missing value is a wildcard. */
  categories?: Record<string, string | null> | null;
}

/** The fields of an anomaly that matching reads. A missing or null category is the "all" value. */
export interface MatchableAnomaly {
  dataViewId: number;
  startDate: string;
  endDate: string;
  categories: Record<string, string | null>;
}

/** True when the comment applies to the anomaly: same data view, overlapping dates, every constraint equal. */
export function commentMatches(comment: MatchableComment, anomaly: MatchableAnomaly): boolean {
  if (comment.dataViewId !== anomaly.dataViewId) return false;
  // yyyy-MM-dd strings order like the dates they name.
  if (comment.dateFrom > anomaly.endDate || comment.dateTo < anomaly.startDate) return false;
  return categoriesMatch(comment.categories, anomaly.categories);
}

function categoriesMatch(
  constraints: Record<string, string | null> | null | undefined,
  values: Record<string, string | null>,
): boolean {
  if (!constraints) return true;
  for (const name in constraints) {
    const wanted = constraints[name];
    if (wanted === null || wanted === undefined) continue;
    // The "all" value of an anomaly (missing/null) never equals a concrete value.
    if (ownValue(values, name) !== wanted) return false;
  }
  return true;
}

interface DataViewIndex<C> {
  /** Sorted by dateFrom, so only a prefix can start before an anomaly ends. */
  comments: C[];
  dateFroms: string[];
}

/**
 * Returns copies of the anomalies with `comments` set to the matching comments (ordered by dateFrom, then input order).
 * Comments are indexed by data view and sorted by start, so each anomaly scans only comments that begin before it ends.
 */
export function attachComments<A extends MatchableAnomaly, C extends MatchableComment>(
  anomalies: readonly A[],
  comments: readonly C[],
): Array<A & { comments: C[] }> {
  const index = new Map<number, DataViewIndex<C>>();
  for (const c of comments) {
    let entry = index.get(c.dataViewId);
    if (!entry) {
      entry = { comments: [], dateFroms: [] };
      index.set(c.dataViewId, entry);
    }
    entry.comments.push(c);
  }
  for (const entry of index.values()) {
    // Stable sort keeps input order among equal starts.
    entry.comments.sort((a, b) => (a.dateFrom < b.dateFrom ? -1 : a.dateFrom > b.dateFrom ? 1 : 0));
    entry.dateFroms = entry.comments.map((c) => c.dateFrom);
  }

  return anomalies.map((anomaly) => {
    const entry = index.get(anomaly.dataViewId);
    const matched: C[] = [];
    if (entry) {
      const end = upperBound(entry.dateFroms, anomaly.endDate);
      for (let i = 0; i < end; i++) {
        const c = entry.comments[i];
        if (c.dateTo >= anomaly.startDate && categoriesMatch(c.categories, anomaly.categories))
          matched.push(c);
      }
    }
    return { ...anomaly, comments: matched };
  });
}

/** Number of sorted entries that are ≤ value. */
function upperBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
