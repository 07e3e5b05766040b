/**
 * Significance indexes of the spec, recalculated after each detection. Within a peer group (data
 * view, measure, type, result) duration, |change %| and share % are divided by the group's maximum
 * absolute value, giving norm_duration, norm_change, norm_share in 0..1; then
 *   SIN = 2·norm_share + norm_change + 1.5·norm_duration
 *   SIM = norm_change·norm_share·norm_duration / (1 + ln(recurrence + 1)).
 * A group maximum of 0 gives 0. A null change % (nothing was expected) is an unbounded change and
 * counts as the group's maximum (norm 1); a null share % counts as 0.
 */

export interface SignificanceInput {
  dataViewId: number | string;
  /** The measure (value or count column); omit when a data view has one. */
  measure?: string;
  type: string;
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

/** SIN and SIM for each anomaly, in input order. */
export function computeSignificance(items: readonly SignificanceInput[]): Significance[] {
  const groups = new Map<string, { duration: number; change: number; share: number }>();
  const keys: string[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const a = items[i];
    const key = `${a.dataViewId}\u0000${a.measure ?? ''}\u0000${a.type}\u0000${a.result}`;
    keys[i] = key;
    let g = groups.get(key);
    if (!g) {
      g = { duration: 0, change: 0, share: 0 };
      groups.set(key, g);
    }
    g.duration = Math.max(g.duration, Math.abs(a.duration));
    if (a.changePct !== null) g.change = Math.max(g.change, Math.abs(a.changePct));
    if (a.sharePct !== null) g.share = Math.max(g.share, Math.abs(a.sharePct));
  }
  return items.map((a, i) => {
    const g = groups.get(keys[i]) as { duration: number; change: number; share: number };
    const normDuration = g.duration > 0 ? Math.abs(a.duration) / g.duration : 0;
    const normChange = a.changePct === null ? 1 : g.change > 0 ? Math.abs(a.changePct) / g.change : 0;
    const normShare = a.sharePct !== null && g.share > 0 ? Math.abs(a.sharePct) / g.share : 0;
    const sin = 2 * normShare + normChange + 1.5 * normDuration;
    const sim = (normChange * normShare * normDuration) / (1 + Math.log(Math.max(0, a.recurrence) + 1));
    return { sin, sim };
  });
}
