/**
 * The peer or child group behind a preview of a peer or cardinality detector (the explorer, the anomaly
 * chart, the editor's preview), read within a bound (docs/security.md, "Bounded reads"): only the days
 * the chart needs (its window and the detector's look-back before it; every loaded day when it draws
 * them all), and at most PREVIEW_GROUP_CELLS values (members × days × measures). A larger group is not
 * read: the preview draws no expectation and says why (its skip reason).
 */
import { fromEpochDay, toEpochDay } from '../calendar/days';
import { readSeries, rowPresent, rowValues, type SeriesSource } from '../dataset/series-store';
import type { Database } from '../db/database';
import { buildCardinalityBaseline, buildPeerBaseline } from '../detection/baselines';
import type { ResolvedDetector } from '../detection/detect';
import type { Skip } from '../detection/types';
import { peerWeeks } from '../process-job/detectors';
import type { ViewLayout } from '../process-job/layout';
import { materialLevels } from '../process-job/measure-kind';
import { blocksOf, measuresToRead } from '../process-job/ratio';

/** Default of PREVIEW_GROUP_CELLS: 16 MB of values (and 2 MB of presence) per preview. */
export const PREVIEW_GROUP_CELLS = 2_000_000;

/** What a preview's caller hands in besides the database: the service's bound of a group read. */
export interface PreviewReads {
  config?: { reads?: { previewGroupCells?: number } };
}

/** The days a chart draws (yyyy-MM-dd, inclusive; either left out: from the first or to the last loaded day). */
export interface PreviewWindow {
  from?: string;
  to?: string;
}

export interface GroupInput {
  peerChange?: Float64Array;
  cardinality?: Float64Array;
  /** Why the group was not read (too large), for the preview's skip reason. */
  refused?: Skip;
}

/** Days of the group read before the first day drawn: two baseline windows and a child's materiality. */
export function lookBackDays(d: ResolvedDetector): number {
  return 14 * peerWeeks(d) + 56;
}

/** The group's days as epoch days [from, to] within the layout; null when the window misses it. */
function groupDays(layout: ViewLayout, d: ResolvedDetector, w: PreviewWindow): [number, number] | null {
  const first = layout.dayIndex0;
  const last = layout.dayIndex0 + layout.days - 1;
  const from = w.from ? Math.max(first, toEpochDay(w.from) - lookBackDays(d)) : first;
  const to = w.to ? Math.min(last, toEpochDay(w.to)) : last;
  return from <= to ? [from, to] : null;
}

/**
 * The peer change or the children's count over the layout's days (NaN outside the days read), from the
 * group `members` (the series' peers for `peer`, its children for `cardinality`).
 */
export async function readGroupInput(
  c: { db: Database } & PreviewReads,
  source: SeriesSource,
  layout: ViewLayout,
  q: {
    detector: ResolvedDetector;
    members: readonly number[];
    measure: 'value' | 'count' | 'ratio';
    window: PreviewWindow;
    totalLevel: number;
  },
): Promise<GroupInput> {
  const { detector: d, members } = q;
  const kind = d.type === 'peer' ? 'peer' : d.type === 'cardinality' ? 'cardinality' : null;
  if (kind === null || members.length === 0 || (kind === 'peer' && members.length < 3)) return {};
  const span = groupDays(layout, d, q.window);
  if (span === null) return {};
  const [from, to] = span;
  const days = to - from + 1;
  const read = measuresToRead([q.measure]);
  const cells = members.length * days * read.length;
  const max = c.config?.reads?.previewGroupCells ?? PREVIEW_GROUP_CELLS;
  if (cells > max) {
    const fmt = (n: number) => n.toLocaleString('en-US');
    const what = kind === 'peer' ? 'peers' : 'children';
    return {
      refused: {
        reason: 'missing-input',
        message: `${kind}: the series has ${fmt(members.length)} ${what}; over ${fmt(days)} days (${fromEpochDay(from)} to ${fromEpochDay(to)}) that is ${fmt(cells)} values, more than the ${fmt(max)} a chart reads (PREVIEW_GROUP_CELLS), so no expectation is drawn${q.window.from ? '' : ': a shorter window reads fewer days'}`,
      },
    };
  }
  const ids = [...members];
  const blocks = await readSeries(c.db, source, ids, { dayIndex0: from, days }, read, { windowOnly: true });
  const [block] = blocksOf([q.measure], read, blocks);
  const rows = ids.map((_, r) => r);
  const levels = materialLevels(block, rows, [d.params.minVolume], q.totalLevel);
  const part =
    kind === 'peer'
      ? buildPeerBaseline(
          rows.map((r) => rowValues(block, r)),
          { presents: rows.map((r) => rowPresent(block, r)), weeks: peerWeeks(d), minLevels: levels },
        ).change
      : buildCardinalityBaseline(
          rows.map((r) => rowValues(block, r)),
          rows.map((r) => rowPresent(block, r)),
          levels,
        );
  const whole = new Float64Array(layout.days).fill(Number.NaN);
  whole.set(part, from - layout.dayIndex0);
  return kind === 'peer' ? { peerChange: whole } : { cardinality: whole };
}
