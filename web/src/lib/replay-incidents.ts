/**
 * The rows and counts of a replay's incidents (web/src/components/replay-incidents.tsx): added, removed,
 * changed, and the stored incidents a change splits or merges, each as it was and as it becomes.
 */
import type * as Api from './api-types.gen';

type ReplayIncident = Api.ReplayIncident;

type ReplayIncidents = Api.ReplayResult['incidents'];

type Change = 'added' | 'removed' | 'changed' | 'split' | 'merged' | 'regrouped';

export type IncidentRow = {
  change: Change;
  /** For a split or merge: the stored incident as it was, or the replayed one it becomes. */
  side?: 'was' | 'now';
  incident: ReplayIncident;
  joined?: number;
  left?: number;
};

export const TONE: Record<Change, string> = {
  added: 'green',
  removed: 'red',
  changed: 'amber',
  split: 'blue',
  merged: 'blue',
  regrouped: 'blue',
};

export function rowsOf(diff: ReplayIncidents): IncidentRow[] {
  return [
    ...diff.added.map((x) => ({ change: 'added' as const, incident: x })),
    ...diff.removed.map((x) => ({ change: 'removed' as const, incident: x })),
    ...diff.changed.map((x) => ({
      change: 'changed' as const,
      incident: x.after,
      joined: x.joined,
      left: x.left,
    })),
    ...(diff.regrouped ?? []).flatMap((g) => [
      ...g.before.map((x) => ({ change: g.kind, side: 'was' as const, incident: x })),
      ...g.after.map((x) => ({ change: g.kind, side: 'now' as const, incident: x })),
    ]),
  ];
}

/** The split, merged and regrouped counts (none from a replay stored before they were told apart). */
export function countsText(c: ReplayIncidents['counts']): string {
  const regrouped = c.regrouped ? `, ${c.regrouped} regrouped` : '';
  return c.split === undefined ? '' : `, ${c.split} split, ${c.merged} merged${regrouped}`;
}
