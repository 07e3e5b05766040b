/**
 * What a series' numbers are, and so how they are judged (docs/detectors.md, "Units"): counts of
 * events have a Poisson noise and a natural materiality (a few events a day are nothing); an amount
 * in an unknown unit (revenue in € or k€, an average, a log, a rate) has neither, so its noise comes
 * from its own residuals only and its materiality is relative, never a number in its own unit.
 */

/**
 * - `events`: counts (the count measure), or amounts judged in their events (the value measure when the
 *   view's count varies: `valuePerEvent` is Σ value / Σ count): Poisson floors and minVolume in events.
 * - `amount`: the value measure of a view whose count is constant: no Poisson floor; materiality a
 *   share of the view's total (or minVolume, when set, in the value's own unit).
 * - `ratio`: value ÷ count per day (an average per event: the average rate, the average basket). No
 *   Poisson floor; each day's noise shrinks with the events behind it (SeriesInput.weights: a day of
 *   few bookings is a noisy average), and the series is judged only when it has minVolume events a day
 *   on average (ratioMinEvents). Days without events have no ratio: they are days without data.
 * - `interval`: a measure whose zero is arbitrary (a temperature, a score, a balance): judged in its own
 *   noise units by spike's robust z-score (detectors/interval.ts), no percent, no volume.
 */
export type MeasureKind = 'events' | 'amount' | 'ratio' | 'interval';

/** Materiality of counts when minVolume is not set: this many events a day. */
export const DEFAULT_MIN_EVENTS = 10;

/**
 * Materiality of an amount when minVolume is not set: a day whose expected value lies below this share
 * of the view total's mean daily value (over the series' analysed days) is not judged. A thousandth:
 * a store among a few hundred is judged, a product line that sells a thousandth of the business is
 * not; the same whatever the unit (×1,000 or ÷1,000 moves the total and the level alike).
 */
export const AMOUNT_MATERIAL_SHARE = 0.001;

/**
 * The least expected value per day (in the series' units) at which a day is judged and an anomaly
 * reported. `minVolume` as set on the detector (undefined: the default of the kind); `perEvent` the
 * value per event of `events`; `totalLevel` the view total's mean daily value, read only for amounts
 * without minVolume.
 */
export function materialLevel(
  kind: MeasureKind,
  minVolume: number | undefined,
  perEvent: number,
  totalLevel: () => number,
): number {
  // A ratio is judged by the events behind it (ratioMinEvents, and the noise of each day), not by its level.
  if (kind === 'ratio' || kind === 'interval') return 0;
  if (kind === 'events') return (minVolume ?? DEFAULT_MIN_EVENTS) * perEvent;
  if (minVolume !== undefined) return minVolume;
  const level = totalLevel();
  return level > 0 && Number.isFinite(level) ? AMOUNT_MATERIAL_SHARE * level : 0;
}

/** Events a day a ratio series needs on average (over its scanned days with data) to be judged at all. */
export function ratioMinEvents(minVolume: number | undefined): number {
  return minVolume ?? DEFAULT_MIN_EVENTS;
}
