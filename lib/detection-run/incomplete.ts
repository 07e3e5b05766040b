/**
 * Incomplete trailing days. Data is loaded daily and the newest day's rows are often not all in yet:
 * analysed as they are, they read as a drop of up to −100 % on every series. Before detection, a run
 * compares the view total (the root series) on each of its newest days with the median of the same
 * weekday over the previous weeks; a trailing day far below it (less than `ratio` of it) is left out
 * of the analysis, as are the newer days after it. At most `maxDays` days, newest first, and only a
 * run of them at the end: the first complete day stops the search. A real collapse on the newest day
 * is therefore reported one load later, once a newer day follows it.
 */

export interface IncompleteOptions {
  /** A trailing day whose total is below ratio × expected is incomplete. */
  ratio: number;
  /** How many trailing days may be left out at most. */
  maxDays: number;
  /** Same weekdays looked back for the expectation (at least 2 must exist). */
  weeks: number;
}

export const INCOMPLETE_DEFAULTS: IncompleteOptions = { ratio: 0.5, maxDays: 3, weeks: 4 };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * How many of the days before `end` (exclusive; the days after it are already ignored) are
 * incomplete, 0..maxDays. `total` is the view total per day.
 */
export function incompleteTrailingDays(
  total: ArrayLike<number>,
  end: number,
  opts: IncompleteOptions = INCOMPLETE_DEFAULTS,
): number {
  let n = 0;
  for (let k = 0; k < opts.maxDays; k++) {
    const t = end - 1 - k;
    if (t < 0) break;
    const refs: number[] = [];
    for (let w = 1; w <= opts.weeks; w++) {
      const r = t - 7 * w;
      if (r < 0) break;
      if (Number.isFinite(total[r])) refs.push(total[r]);
    }
    if (refs.length < 2) break;
    const expected = median(refs);
    const actual = total[t];
    if (!(expected > 0) || !(actual < opts.ratio * expected)) break;
    n = k + 1;
  }
  return n;
}
