/**
 * Gap filling (`analysis.fillGapMethod`), applied as series are read: a day without source rows between
 * a series' first day with data and the view's last day gets zero (`zero`), the last known value
 * (`previous`), or the straight line between the known days around it (`linear`; after the series'
 * last day with data, the last known value). Days before a series' first day with data stay empty.
 * Filled days stay not present: detectors know them as filled.
 */

export type GapFill = 'zero' | 'linear' | 'previous';

/** A known day outside the row: its offset (negative before the row, ≥ the row's length after) and values. */
export interface KnownDay {
  t: number;
  value: number;
  cnt: number;
}

/**
 * Fills row `[base, base + span)` of `values` (and `cnts`) in place on the days not `present` up to
 * offset `end` (exclusive; the view's last day + 1, or the row's length), given the last known day
 * before the row and the first known day after it (undefined: none).
 */
export function fillRow(
  method: GapFill,
  values: Float64Array,
  cnts: Float64Array | null,
  present: Uint8Array,
  base: number,
  span: number,
  end: number,
  before?: KnownDay,
  after?: KnownDay,
): void {
  const stop = Math.min(span, end);
  let prev: KnownDay | undefined = before;
  let t = 0;
  while (t < stop) {
    if (present[base + t] === 1) {
      prev = { t, value: values[base + t], cnt: cnts ? cnts[base + t] : 0 };
      t++;
      continue;
    }
    // A gap [t, g): the next known day is at g (inside the row) or `after` (beyond it).
    let g = t;
    while (g < span && present[base + g] === 0) g++;
    if (prev === undefined) {
      t = g; // before the series' first day with data
      continue;
    }
    const next: KnownDay | undefined =
      g < span ? { t: g, value: values[base + g], cnt: cnts ? cnts[base + g] : 0 } : after;
    const to = Math.min(g, stop);
    for (let i = t; i < to; i++) {
      let v = 0;
      let c = 0;
      if (method === 'previous' || (method === 'linear' && next === undefined)) {
        v = prev.value;
        c = prev.cnt;
      } else if (method === 'linear' && next !== undefined) {
        // In the order the SQL build computed it (the same doubles): (b - a) * steps / span.
        const d = next.t - prev.t;
        v = prev.value + ((next.value - prev.value) * (i - prev.t)) / d;
        c = prev.cnt + ((next.cnt - prev.cnt) * (i - prev.t)) / d;
      }
      values[base + i] = v;
      if (cnts) cnts[base + i] = c;
    }
    t = g;
  }
}
