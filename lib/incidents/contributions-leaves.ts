/**
 * The leaves of GET /dataviews/{id}/contributions, read in bounded batches (docs/security.md, "Bounded
 * reads"): at most `batchCells` values (leaves × days × measures) are in memory at a time, each batch
 * turned into its leaves' changes before the next is read; a request whose leaves × days pass `maxCells`
 * is refused before anything is read (413 naming the parameter to change). A leaf's change depends on its
 * own days only, so the batches answer what one read would; the scaling to an anomaly's expected total
 * is applied over all leaves afterwards (scaleExpected).
 */
import { readSeries, type SeriesBlock, type SeriesMeasure, type SeriesSource } from '../dataset/series-store';
import type { Database } from '../db/database';
import { TooLargeError } from '../shared/errors';
import { historyDays, type LeafDays, leafChanges, type WindowSpec } from './leaf-window';
import type { LeafChange } from './root-cause';

/** Defaults of CONTRIBUTIONS_BATCH_CELLS and CONTRIBUTIONS_MAX_CELLS (lib/config/config.ts). */
export const CONTRIBUTION_READS = { batchCells: 2_000_000, maxCells: 50_000_000 };

export interface LeafRead {
  /** Series ids of the leaves, and their codes (same order). */
  ids: readonly number[];
  codes: readonly Int32Array[];
  measures: readonly SeriesMeasure[];
  /** Leaf k of a batch from the batch's blocks (one per measure, in `measures` order). */
  toLeaf: (blocks: SeriesBlock[], k: number, codes: Int32Array) => LeafDays;
}

/**
 * 413 when `leaves` leaves over the window and its baseline read more than `maxCells` values, naming what
 * to change: the series (categories) when even one day with one week of baseline is too much, else the
 * window (to) or the weeks.
 */
export function assertLeafBudget(
  leaves: number,
  window: { days: number; weeks: number },
  measures: number,
  maxCells: number,
): void {
  const readDays = window.days + historyDays(window.weeks);
  const cells = leaves * readDays * measures;
  if (cells <= maxCells) return;
  const perLeaf = Math.floor(maxCells / Math.max(1, leaves * measures));
  const fmt = (n: number) => n.toLocaleString('en-US');
  const what = `${fmt(leaves)} leaves × ${fmt(readDays)} days (the window and ${window.weeks} weeks of baseline twice over)${measures > 1 ? ` × ${measures} measures` : ''} = ${fmt(cells)} values, more than the ${fmt(maxCells)} one request reads`;
  let path: string;
  let hint: string;
  if (perLeaf < 1 + historyDays(1)) {
    path = 'categories';
    hint = 'ask about a narrower series (categories), whose leaves are fewer';
  } else if (perLeaf - historyDays(window.weeks) >= 1) {
    path = 'to';
    hint = `shorten the window to at most ${fmt(perLeaf - historyDays(window.weeks))} days (from, to), or ask about a narrower series (categories)`;
  } else {
    path = 'weeks';
    hint = `use at most ${Math.floor((perLeaf - window.days) / historyDays(1))} weeks of baseline, a shorter window (from, to) or a narrower series (categories)`;
  }
  throw new TooLargeError(`The contributions would read ${what}: ${hint}.`, [
    { path, message: `${what}; ${hint}` },
  ]);
}

/**
 * The leaves' changes over `spec`, read `batchCells` values at a time (expectations not yet scaled);
 * `changesOf` turns a batch's leaves into what is kept of them (a ratio's: ratio-contributions.ts ratioLeaves).
 */
export async function batchedLeafChanges<T = LeafChange>(
  db: Database,
  source: SeriesSource,
  read: LeafRead,
  spec: Omit<WindowSpec, 'expectedTotal'>,
  batchCells: number,
  changesOf: (leaves: LeafDays[], spec: WindowSpec) => T[] = leafChanges as unknown as (
    leaves: LeafDays[],
    spec: WindowSpec,
  ) => T[],
): Promise<T[]> {
  const days = spec.end - spec.from + 1;
  const size = Math.max(1, Math.floor(batchCells / (days * read.measures.length)));
  const out: T[] = [];
  for (let b = 0; b < read.ids.length; b += size) {
    const ids = read.ids.slice(b, b + size);
    const blocks = await readSeries(db, source, ids, { dayIndex0: spec.from, days }, read.measures, {
      windowOnly: true,
    });
    const leaves = ids.map((_, k) => read.toLeaf(blocks, k, read.codes[b + k]));
    for (const change of changesOf(leaves, spec)) out.push(change);
  }
  return out;
}
