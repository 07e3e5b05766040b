/**
 * Significance indexes of the spec, recalculated after each detection. Within a peer group (data
 * view, measure, result: the spec's "same data view, same anomaly variable, same result"; the type
 * is not part of it) duration, |change %| and share % are divided by the group's maximum absolute
 * value, giving norm_duration, norm_change, norm_share in 0..1; then
 *   SIN = 2·norm_share + norm_change + 1.5·norm_duration
 *   SIM = norm_change·norm_share·norm_duration / (1 + ln(recurrence + 1)).
 * A group maximum of 0 gives 0. A null change % (undefined: nothing was expected) contributes 0,
 * never the maximum; a null share % counts as 0. The publish of a run computes the same set-based
 * (lib/process-job/anomaly-publish.ts).
 */

export interface SignificanceInput {
  dataViewId: number | string;
  /** The measure (`value` or `count`); omitted counts as `value`. */
  measure?: string;
  /** Not part of the peer group; kept so that callers can pass anomaly records as they are. */
  type?: string;
  result: string;
  duration: number;
  changePct: number | null;
  sharePct: number | null;
  recurrence: number;
}

export interface Significance {
  sin: number;
  sim: number;
}

const finite = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** The peer group of an anomaly: data view, measure and result. */
export function peerGroupKey(a: Pick<SignificanceInput, 'dataViewId' | 'measure' | 'result'>): string {
  return `${a.dataViewId}\u0000${a.measure ?? 'value'}\u0000${a.result}`;
}

/** SIN and SIM for each anomaly, in input order. */
export function computeSignificance(items: readonly SignificanceInput[]): Significance[] {
  const groups = new Map<string, { duration: number; change: number; share: number }>();
  const keys: string[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const a = items[i];
    const key = peerGroupKey(a);
    keys[i] = key;
    let g = groups.get(key);
    if (!g) {
      g = { duration: 0, change: 0, share: 0 };
      groups.set(key, g);
    }
    g.duration = Math.max(g.duration, Math.abs(a.duration));
    if (finite(a.changePct)) g.change = Math.max(g.change, Math.abs(a.changePct));
    if (finite(a.sharePct)) g.share = Math.max(g.share, Math.abs(a.sharePct));
  }
  return items.map((a, i) => {
    const g = groups.get(keys[i]) as { duration: number; change: number; share: number };
    const normDuration = g.duration > 0 ? Math.abs(a.duration) / g.duration : 0;
    const normChange = finite(a.changePct) && g.change > 0 ? Math.abs(a.changePct) / g.change : 0;
    const normShare = finite(a.sharePct) && g.share > 0 ? Math.abs(a.sharePct) / g.share : 0;
    const sin = 2 * normShare + normChange + 1.5 * normDuration;
    const sim = (normChange * normShare * normDuration) / (1 + Math.log(Math.max(0, a.recurrence) + 1));
    return { sin, sim };
  });
}
