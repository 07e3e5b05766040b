/** Ordering and Top N of anomalies and aggregates (docs/filters.md, "Ordering"). */
import type { AggregateRecord, AnomalyRecord, SortBy } from './types';

/** The fields ranking reads; anomalies and aggregates both have them. */
export interface Rankable {
  startDate: string;
  duration: number;
  actualValue: number | null;
  predictedValue: number | null;
  change: number | null;
  changePct: number | null;
  changeCum: number | null;
  sharePct: number | null;
  sin: number | null;
  sim: number | null;
  /** On an incident row: its standing, which Sort by SIN orders it by (standing.ts). */
  incident?: { standing?: number | null };
}

function num(v: number | null | undefined): number {
  // Unknown measures rank after every known one.
  return v === null || v === undefined || Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v;
}

function magnitude(v: number | null | undefined): number {
  return v === null || v === undefined || Number.isNaN(v) ? Number.NEGATIVE_INFINITY : Math.abs(v);
}

/** yyyy-MM-dd as the number yyyyMMdd, which orders the same way. */
function dateNumber(date: string): number {
  return Number(date.slice(0, 4)) * 10_000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/** The value a record is ordered by (descending) for a Sort by choice; change keys rank by magnitude. */
export function sortKey(r: Rankable, sortBy: SortBy): number {
  switch (sortBy) {
    case 'Duration':
      return num(r.duration);
    case 'Date':
      return dateNumber(r.startDate);
    case 'SIN':
      // An incident row stands by its SIN weighed by its evidence; a record by its SIN.
      return num(r.incident?.standing === undefined ? r.sin : r.incident.standing);
    case 'SIM':
      return num(r.sim);
    case 'Anomaly Value':
      return num(r.actualValue);
    case 'Predicted Value':
      return num(r.predictedValue);
    case 'Change':
      return magnitude(r.change);
    case 'Change %':
      return magnitude(r.changePct);
    case 'Change Cum':
      return magnitude(r.changeCum);
    case 'Category Share %':
      return num(r.sharePct);
    default:
      throw new RangeError(`Unknown sortBy: ${String(sortBy)}`);
  }
}

/** Sorts by key desc, then SIN desc, then `tie`; returns a new array. */
function order<T extends Rankable>(records: readonly T[], sortBy: SortBy, tie: (a: T, b: T) => number): T[] {
  const n = records.length;
  const keys = new Float64Array(n);
  const sins = new Float64Array(n);
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = sortKey(records[i], sortBy);
    sins[i] = num(records[i].sin);
    idx[i] = i;
  }
  idx.sort((a, b) => {
    if (keys[a] !== keys[b]) return keys[b] > keys[a] ? 1 : -1;
    if (sins[a] !== sins[b]) return sins[b] > sins[a] ? 1 : -1;
    return tie(records[a], records[b]);
  });
  const out = new Array<T>(n);
  for (let i = 0; i < n; i++) out[i] = records[idx[i]];
  return out;
}

/**
 * Keeps the first `limit` of an ordered list; with splitByType the first `limit` of each type,
 * as blocks per type, the type holding the best record first.
 */
function cut<T>(ordered: T[], limit: number, splitByType: boolean, typeOf: (r: T) => string): T[] {
  if (!splitByType) return ordered.slice(0, Math.max(0, limit));
  const blocks = new Map<string, T[]>();
  for (const r of ordered) {
    const type = typeOf(r);
    let block = blocks.get(type);
    if (!block) {
      block = [];
      blocks.set(type, block);
    }
    if (block.length < limit) block.push(r);
  }
  return [...blocks.values()].flat();
}

/** Anomalies ordered descending by sortBy (ties: SIN desc, then id asc) and cut to the Top N. */
export function rankAnomalies(
  records: readonly AnomalyRecord[],
  sortBy: SortBy,
  limit: number,
  splitByType = false,
): AnomalyRecord[] {
  const ordered = order(records, sortBy, (a, b) => a.id - b.id);
  return cut(ordered, limit, splitByType, (r) => r.type);
}

/** Aggregates ordered like anomalies (ties: SIN desc, then more members, then id) and cut to the Top N. */
export function rankAggregates(
  records: readonly AggregateRecord[],
  sortBy: SortBy,
  limit: number,
  splitByType = false,
): AggregateRecord[] {
  const ordered = order(records, sortBy, (a, b) => b.n - a.n || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return cut(ordered, limit, splitByType, (r) => r.types.join(';'));
}
