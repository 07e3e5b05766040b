/**
 * The difference between the anomalies a view holds and those a changed definition would publish. Pure:
 * the same rules as publishing (lib/process-job/anomaly-publish.ts) applied to records in memory — a count
 * record that echoes a value record is left out, and with scanInLastNDays the older records of detectors
 * still defined are kept — then both sides matched by series, measure, type and start day.
 */
import type { ReplayChange, ReplayDiff, ReplayRecord, ReplayTypeCount } from './types';

/** Rows of each list an answer carries; the counts are always whole. */
export const ROW_LIMIT = 500;

/**
 * Leaves out the count records whose days overlap a value record of the same series and result: the same
 * event seen twice (anomaly-publish.ts STAGED_ROWS does this in SQL).
 */
export function foldCountEchoes(records: readonly ReplayRecord[]): ReplayRecord[] {
  const values = new Map<number, ReplayRecord[]>();
  for (const r of records) {
    if (r.measure !== 'value') continue;
    const list = values.get(r.seriesId);
    if (list) list.push(r);
    else values.set(r.seriesId, [r]);
  }
  return records.filter(
    (r) =>
      r.measure !== 'count' ||
      !(values.get(r.seriesId) ?? []).some(
        (v) => v.result === r.result && v.startDate <= r.endDate && r.startDate <= v.endDate,
      ),
  );
}

/**
 * The stored records a publish would keep: with a replace day (scanInLastNDays), those ending before it whose
 * detector (index and type) the definition still has; without one, none.
 */
export function keptRecords(
  stored: readonly ReplayRecord[],
  replaceFrom: string | null,
  detectors: ReadonlyArray<{ index: number; code: string }>,
): ReplayRecord[] {
  if (replaceFrom === null || detectors.length === 0) return [];
  const defined = new Set(detectors.map((d) => `${d.index}|${d.code}`));
  return stored.filter((r) => r.endDate < replaceFrom && defined.has(`${r.detectorIndex}|${r.type}`));
}

const keyOf = (r: ReplayRecord) => `${r.seriesId}|${r.measure}|${r.type}|${r.startDate}`;

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Numbers in order, null first. */
const numeric = (a: number | null, b: number | null) =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : a > b ? 1 : 0;

/**
 * A total order of records (every field a reader sees, the stored incident last). The stored records are
 * read in no order and the replayed ones in shard order: sorted by it first, the difference and the
 * incidents do not depend on the order either side arrived in.
 */
export function byRecord(a: ReplayRecord, b: ReplayRecord): number {
  return (
    a.seriesId - b.seriesId ||
    text(a.measure, b.measure) ||
    text(a.type, b.type) ||
    text(a.startDate, b.startDate) ||
    text(a.endDate, b.endDate) ||
    text(a.result, b.result) ||
    a.detectorIndex - b.detectorIndex ||
    numeric(a.actualValue, b.actualValue) ||
    numeric(a.predictedValue, b.predictedValue) ||
    numeric(a.changePct, b.changePct) ||
    numeric(a.changeCum, b.changeCum) ||
    a.duration - b.duration ||
    numeric(a.incidentId, b.incidentId)
  );
}

/** The records in the order of byRecord (a copy). */
export const inOrder = (records: readonly ReplayRecord[]): ReplayRecord[] => [...records].sort(byRecord);

/** Two numbers equal but for float noise; null only equals null. */
function same(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Whether a matched record differs in what a reader sees: its days, sign, values or change %. */
export function recordChanged(before: ReplayRecord, after: ReplayRecord): boolean {
  return (
    before.endDate !== after.endDate ||
    before.result !== after.result ||
    !same(before.actualValue, after.actualValue) ||
    !same(before.predictedValue, after.predictedValue) ||
    !same(before.changePct, after.changePct)
  );
}

const newestFirst = (a: ReplayRecord, b: ReplayRecord) => text(b.startDate, a.startDate) || byRecord(a, b);

/**
 * The stored record a replayed one is matched with among those of its key (a detector may report two
 * records of one series and day, in both directions): one it equals when there is one, else the first.
 */
function takeMatch(list: ReplayRecord[] | undefined, r: ReplayRecord): ReplayRecord | undefined {
  if (!list || list.length === 0) return undefined;
  const same = list.findIndex((m) => !recordChanged(m, r));
  return list.splice(same < 0 ? 0 : same, 1)[0];
}

/** Matches `before` (stored) and `after` (replayed) and counts the difference, overall and by type and measure. */
export function diffRecords(
  stored: readonly ReplayRecord[],
  replayed: readonly ReplayRecord[],
  rowLimit = ROW_LIMIT,
): ReplayDiff {
  const before = inOrder(stored);
  const after = inOrder(replayed);
  const waiting = new Map<string, ReplayRecord[]>();
  for (const r of before) {
    const list = waiting.get(keyOf(r));
    if (list) list.push(r);
    else waiting.set(keyOf(r), [r]);
  }
  const added: ReplayRecord[] = [];
  const changed: ReplayChange[] = [];
  let unchanged = 0;
  for (const r of after) {
    const match = takeMatch(waiting.get(keyOf(r)), r);
    if (!match) added.push(r);
    else if (recordChanged(match, r)) changed.push({ before: match, after: r });
    else unchanged++;
  }
  const removed = [...waiting.values()].flat();

  const byType = new Map<string, ReplayTypeCount>();
  const count = (r: ReplayRecord) => {
    const k = `${r.type}|${r.measure}`;
    let c = byType.get(k);
    if (!c) {
      c = { type: r.type, measure: r.measure, before: 0, after: 0, added: 0, removed: 0, changed: 0 };
      byType.set(k, c);
    }
    return c;
  };
  for (const r of before) count(r).before++;
  for (const r of after) count(r).after++;
  for (const r of added) count(r).added++;
  for (const r of removed) count(r).removed++;
  for (const c of changed) count(c.after).changed++;

  added.sort(newestFirst);
  removed.sort(newestFirst);
  changed.sort((a, b) => newestFirst(a.after, b.after));
  return {
    counts: {
      before: before.length,
      after: after.length,
      added: added.length,
      removed: removed.length,
      changed: changed.length,
      unchanged,
    },
    byType: [...byType.values()].sort((a, b) => text(a.measure, b.measure) || text(a.type, b.type)),
    added: added.slice(0, rowLimit),
    removed: removed.slice(0, rowLimit),
    changed: changed.slice(0, rowLimit),
    rowLimit,
    truncated: added.length > rowLimit || removed.length > rowLimit || changed.length > rowLimit,
  };
}
