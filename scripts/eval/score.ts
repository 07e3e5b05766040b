/**
 * Scoring of anomalies against labelled windows by day (pure; see /work/shared/eval-data/README.md
 * and docs/detection-quality.md):
 * - every day from an anomaly's start to its end is flagged; a labelled window is hit when any of
 *   its days is flagged;
 * - precision, recall and F1 by day over the scored days: the days the source has (present, or
 *   inside a labelled window, so that an injected gap counts) after the warm-up (first 8 weeks);
 * - false anomalies per 100 days: anomalies touching no labelled window (and touching a scored
 *   day), per 100 scored days;
 * - the union of several detectors: the days flagged by any of them; its anomalies are the events
 *   a filter with event merging shows: anomalies of the same result whose windows overlap
 *   (transitively) count once, whatever detectors flagged them.
 * Days are epoch days (integers); anomalies and windows are inclusive [start, end].
 */

export type Sign = 'Positive' | 'Negative';

export interface Span {
  start: number;
  end: number;
  result?: Sign;
  type?: string;
}

export interface LabelWindow {
  start: number;
  end: number;
  name?: string;
}

/** The days being scored: day0 + i for i with scored[i] = 1. */
export interface Frame {
  day0: number;
  days: number;
  scored: Uint8Array;
  scoredDays: number;
}

export const WARMUP_DAYS = 56;

/**
 * Scored days of a series: from the first present day + warm-up to the last present day, present
 * or inside a labelled window.
 */
export function scoringFrame(
  day0: number,
  present: ArrayLike<number>,
  windows: readonly LabelWindow[],
  warmupDays = WARMUP_DAYS,
): Frame {
  const n = present.length;
  const scored = new Uint8Array(n);
  let first = 0;
  while (first < n && !present[first]) first++;
  let last = n - 1;
  while (last >= 0 && !present[last]) last--;
  const inLabel = new Uint8Array(n);
  for (const w of windows) {
    for (let d = Math.max(w.start, day0); d <= Math.min(w.end, day0 + n - 1); d++) inLabel[d - day0] = 1;
  }
  let count = 0;
  for (let i = first + warmupDays; i <= last; i++) {
    if (present[i] || inLabel[i]) {
      scored[i] = 1;
      count++;
    }
  }
  return { day0, days: n, scored, scoredDays: count };
}

/** Flags of the days covered by the anomalies, aligned with the frame. */
export function flagDays(frame: Frame, spans: readonly Span[]): Uint8Array {
  const flags = new Uint8Array(frame.days);
  for (const s of spans) {
    const a = Math.max(0, s.start - frame.day0);
    const b = Math.min(frame.days - 1, s.end - frame.day0);
    for (let i = a; i <= b; i++) flags[i] = 1;
  }
  return flags;
}

/** Runs of consecutive flagged days (the union's anomalies). */
export function runsOf(frame: Frame, flags: Uint8Array): Span[] {
  const out: Span[] = [];
  let i = 0;
  while (i < frame.days) {
    if (!flags[i]) {
      i++;
      continue;
    }
    const a = i;
    while (i < frame.days && flags[i]) i++;
    out.push({ start: frame.day0 + a, end: frame.day0 + i - 1 });
  }
  return out;
}

/**
 * The union of several detectors' anomalies as events: anomalies of the same result whose windows
 * overlap (transitively) form one event spanning all of them. Its flagged days are the days any
 * detector flagged.
 */
export function unionSpans(lists: readonly (readonly Span[])[]): Span[] {
  const out: Span[] = [];
  for (const sign of ['Positive', 'Negative', undefined] as const) {
    const same = lists
      .flat()
      .filter((s) => s.result === sign)
      .sort((a, b) => a.start - b.start || a.end - b.end);
    let cur: Span | null = null;
    for (const s of same) {
      if (cur !== null && s.start <= cur.end) {
        if (s.end > cur.end) cur.end = s.end;
        continue;
      }
      cur = { start: s.start, end: s.end, result: sign, type: 'union' };
      out.push(cur);
    }
  }
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

export interface Score {
  windows: number;
  windowsHit: number;
  flaggedDays: number;
  truePositiveDays: number;
  labelDays: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  anomalies: number;
  falseAnomalies: number;
  falsePer100Days: number;
  scoredDays: number;
}

function overlaps(a: Span | LabelWindow, b: Span | LabelWindow): boolean {
  return a.start <= b.end && b.start <= a.end;
}

/** True when the span touches at least one scored day. */
export function touchesScored(frame: Frame, s: Span): boolean {
  const a = Math.max(0, s.start - frame.day0);
  const b = Math.min(frame.days - 1, s.end - frame.day0);
  for (let i = a; i <= b; i++) if (frame.scored[i]) return true;
  return false;
}

/** Scores one list of anomalies (one detector, or the union's runs) against the labels. */
export function scoreSpans(frame: Frame, spans: readonly Span[], windows: readonly LabelWindow[]): Score {
  const flags = flagDays(frame, spans);
  const label = flagDays(frame, windows);
  let flagged = 0;
  let tp = 0;
  let labelDays = 0;
  for (let i = 0; i < frame.days; i++) {
    if (!frame.scored[i]) continue;
    if (flags[i]) flagged++;
    if (label[i]) labelDays++;
    if (flags[i] && label[i]) tp++;
  }
  const counted = windows.filter((w) => touchesScored(frame, w));
  let hit = 0;
  for (const w of counted) {
    let any = false;
    for (let d = Math.max(w.start, frame.day0); d <= Math.min(w.end, frame.day0 + frame.days - 1); d++) {
      if (flags[d - frame.day0]) {
        any = true;
        break;
      }
    }
    if (any) hit++;
  }
  const scoredSpans = spans.filter((s) => touchesScored(frame, s));
  const falseAnomalies = scoredSpans.filter((s) => !windows.some((w) => overlaps(s, w))).length;
  const precision = flagged === 0 ? null : tp / flagged;
  const recall = labelDays === 0 ? null : tp / labelDays;
  const f1 =
    precision === null || recall === null || precision + recall === 0
      ? precision === null || recall === null
        ? null
        : 0
      : (2 * precision * recall) / (precision + recall);
  return {
    windows: counted.length,
    windowsHit: hit,
    flaggedDays: flagged,
    truePositiveDays: tp,
    labelDays,
    precision,
    recall,
    f1,
    anomalies: scoredSpans.length,
    falseAnomalies,
    falsePer100Days: frame.scoredDays === 0 ? 0 : (falseAnomalies / frame.scoredDays) * 100,
    scoredDays: frame.scoredDays,
  };
}

/** False anomalies per 100 days restricted to the scored days before `beforeDay` (pedestrians before 2020). */
export function falseBefore(
  frame: Frame,
  spans: readonly Span[],
  windows: readonly LabelWindow[],
  beforeDay: number,
): { falseAnomalies: number; days: number; per100: number } {
  let days = 0;
  for (let i = 0; i < frame.days && frame.day0 + i < beforeDay; i++) if (frame.scored[i]) days++;
  const falseAnomalies = spans.filter(
    (s) => s.start < beforeDay && touchesScored(frame, s) && !windows.some((w) => overlaps(s, w)),
  ).length;
  return { falseAnomalies, days, per100: days === 0 ? 0 : (falseAnomalies / days) * 100 };
}

/**
 * A long labelled event found as one anomaly: some anomaly starts within `startTol` days of the
 * window's start and its duration is within `durTol` (relative) of the window's.
 */
export function foundAsOne(
  spans: readonly Span[],
  window: LabelWindow,
  startTol = 1,
  durTol = 0.2,
): { pass: boolean; best: Span | null } {
  const want = window.end - window.start + 1;
  let best: Span | null = null;
  let bestErr = Number.POSITIVE_INFINITY;
  for (const s of spans) {
    if (!overlaps(s, window)) continue;
    const dur = s.end - s.start + 1;
    const err = Math.abs(s.start - window.start) + Math.abs(dur - want);
    if (err < bestErr) {
      bestErr = err;
      best = s;
    }
  }
  if (best === null) return { pass: false, best };
  const dur = best.end - best.start + 1;
  const pass = Math.abs(best.start - window.start) <= startTol && Math.abs(dur - want) <= durTol * want;
  if (pass) return { pass, best };
  // Another span may pass while not being the closest by the combined error.
  for (const s of spans) {
    const d = s.end - s.start + 1;
    if (Math.abs(s.start - window.start) <= startTol && Math.abs(d - want) <= durTol * want)
      return { pass: true, best: s };
  }
  return { pass: false, best };
}

/**
 * A collapse found as one negative anomaly: exactly one negative anomaly starts within `tol`
 * days of `day` (positive anomalies around it do not count either way). With `periodic` (a period
 * detector, which reports whole calendar periods) a negative anomaly whose period contains the
 * day counts as well.
 */
export function collapseFound(
  spans: readonly Span[],
  day: number,
  tol = 7,
  periodic = false,
): { pass: boolean; negativeStarts: number; first: Span | null } {
  const near = spans.filter(
    (s) =>
      s.result === 'Negative' &&
      (Math.abs(s.start - day) <= tol || (periodic && s.start <= day && day <= s.end)),
  );
  return { pass: near.length === 1, negativeStarts: near.length, first: near[0] ?? null };
}

/** The longest a period detector's anomaly may be: its period (MOM and MPY a month, QOQ a quarter, CW a week). */
export const PERIOD_DAYS: Record<string, number> = { MOM: 31, MPY: 31, QOQ: 92, CW: 7 };

/** Period anomalies longer than their period, per type: [count, longest]. */
export function overlongPeriods(spans: readonly Span[]): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const s of spans) {
    const max = s.type === undefined ? undefined : PERIOD_DAYS[s.type];
    if (max === undefined) continue;
    const d = s.end - s.start + 1;
    const cur = out[s.type as string] ?? [0, 0];
    if (d > max) cur[0]++;
    cur[1] = Math.max(cur[1], d);
    out[s.type as string] = cur;
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Merges consecutive flagged days of the same sign into anomalies. */
function spansFromSigns(day0: number, sign: Int8Array, type: string): Span[] {
  const out: Span[] = [];
  let i = 0;
  while (i < sign.length) {
    if (sign[i] === 0) {
      i++;
      continue;
    }
    const a = i;
    const sg = sign[i];
    while (i < sign.length && sign[i] === sg) i++;
    out.push({ start: day0 + a, end: day0 + i - 1, result: sg > 0 ? 'Positive' : 'Negative', type });
  }
  return out;
}

/**
 * Baseline 1: robust z against the trailing 8 same weekdays (at least `minRefs` present), MAD
 * scale (1.4826 × MAD); flagged when |z| > threshold. Values are the service's (missing days are 0),
 * references are present days only. A zero scale flags any difference from the median.
 */
export function robustZBaseline(
  day0: number,
  values: ArrayLike<number>,
  present: ArrayLike<number>,
  threshold = 3.5,
  weeks = 8,
  minRefs = 4,
): Span[] {
  const n = values.length;
  const sign = new Int8Array(n);
  const refs: number[] = [];
  for (let t = 0; t < n; t++) {
    refs.length = 0;
    for (let k = 1; k <= weeks; k++) {
      const j = t - 7 * k;
      if (j >= 0 && present[j]) refs.push(values[j]);
    }
    if (refs.length < minRefs) continue;
    const m = median(refs);
    const mad = median(refs.map((r) => Math.abs(r - m)));
    const scale = 1.4826 * mad;
    const d = values[t] - m;
    const z =
      scale > 0 ? d / scale : d === 0 ? 0 : d > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    if (Math.abs(z) > threshold) sign[t] = z > 0 ? 1 : -1;
  }
  return spansFromSigns(day0, sign, 'robust-z');
}

/** Baseline 2: week-over-week change beyond ±pct (the day a week earlier present and > 0). */
export function wowBaseline(
  day0: number,
  values: ArrayLike<number>,
  present: ArrayLike<number>,
  pct = 0.15,
): Span[] {
  const n = values.length;
  const sign = new Int8Array(n);
  for (let t = 7; t < n; t++) {
    const prev = values[t - 7];
    if (!present[t - 7] || prev <= 0) continue;
    const c = values[t] / prev - 1;
    if (Math.abs(c) > pct) sign[t] = c > 0 ? 1 : -1;
  }
  return spansFromSigns(day0, sign, 'wow-15%');
}
