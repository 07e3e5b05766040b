/**
 * Incomplete trailing days. Data is loaded daily and the newest day's rows are often not all in yet:
 * analysed as they are, they read as a drop of up to −100 % on every series. Before detection, a run
 * compares each of its newest days with the median of the same weekday over the previous weeks (the
 * view's special days left out: a Christmas or a holiday among them made a day still being filled look
 * normal): the view total (the root series), and the number of series with data that day. A trailing day
 * whose total is far below its expectation (less than `ratio` of it), or on which clearly fewer series have
 * data (less than `presentRatio` of the usual number), is left out of the analysis, as are the newer
 * days after it. At most `maxDays` days, newest first, and only a
 * run of them at the end: the first complete day stops the search. A real collapse on the newest day
 * is therefore reported one load later, once a newer day follows it.
 */

export interface IncompleteOptions {
  /** A trailing day whose total is below ratio × expected is incomplete. */
  ratio: number;
  /** A trailing day with data on fewer than presentRatio × the usual number of series is incomplete. */
  presentRatio: number;
  /** How many trailing days may be left out at most. */
  maxDays: number;
  /** Same weekdays looked back for the expectation (at least 2 must exist). */
  weeks: number;
}

export const INCOMPLETE_DEFAULTS: IncompleteOptions = {
  ratio: 0.5,
  presentRatio: 0.9,
  maxDays: 3,
  weeks: 6,
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The median of xs[t - 7w] for w = 1..weeks (at least 2 of them; special days left out), or null. */
function sameWeekday(
  xs: ArrayLike<number>,
  t: number,
  weeks: number,
  special?: (t: number) => boolean,
): number | null {
  const refs: number[] = [];
  for (let w = 1; w <= weeks; w++) {
    const r = t - 7 * w;
    if (r < 0) break;
    if (Number.isFinite(xs[r]) && !special?.(r)) refs.push(xs[r]);
  }
  return refs.length < 2 ? null : median(refs);
}

/**
 * How many of the days before `end` (exclusive; the days after it are already ignored) are
 * incomplete, 0..maxDays. `total` is the view total per day; `present`, when given, the number of
 * series with data per day (same days).
 */
export function incompleteTrailingDays(
  total: ArrayLike<number>,
  end: number,
  opts: IncompleteOptions = INCOMPLETE_DEFAULTS,
  present?: ArrayLike<number>,
  special?: (t: number) => boolean,
): number {
  let n = 0;
  for (let k = 0; k < opts.maxDays; k++) {
    const t = end - 1 - k;
    if (t < 0) break;
    const expected = sameWeekday(total, t, opts.weeks, special);
    const low = expected !== null && expected > 0 && total[t] < opts.ratio * expected;
    const usual = present === undefined ? null : sameWeekday(present, t, opts.weeks, special);
    const few = usual !== null && usual > 0 && (present as ArrayLike<number>)[t] < opts.presentRatio * usual;
    if (!low && !few) break;
    n = k + 1;
  }
  return n;
}
