/**
 * The rate/mix decomposition of a ratio's change (docs/incidents.md, "The causes of a ratio"). A ratio of
 * sums R = Σ value ÷ Σ events is the segments' rates r_i = v_i ÷ n_i weighted by their shares of the events
 * w_i = n_i ÷ N: R = Σ w_i r_i. Its change from before (0) to during (1) splits exactly into
 *
 *   rate effect of i = w_i⁰ (r_i¹ − r_i⁰)          the segment's rate change at the old mix,
 *   mix effect of i  = (w_i¹ − w_i⁰) (r_i¹ − R⁰)    the shift of its share, valued at its rate against the
 *                                                   old average (more events of a dear segment raise R),
 *
 * with Σ_i (rate + mix) = R¹ − R⁰ (Σ (w¹ − w⁰) = 0, so R⁰ only centres each mix term). A segment without
 * events before has no rate change (w⁰ = 0) and takes its rate during; one without events during keeps its
 * rate before. Pure.
 */

/** A segment's totals: value and events during the window and as expected (before). */
export interface RatioPart {
  value: number;
  events: number;
  expectedValue: number;
  expectedEvents: number;
}

export interface RateMix {
  /** Rate during and before (per event); a segment without events on one side takes the other's. */
  rate: number;
  expectedRate: number;
  /** Share of the events during and before (0 – 1). */
  share: number;
  expectedShare: number;
  rateEffect: number;
  mixEffect: number;
}

export interface RatioTotals {
  /** Σ value ÷ Σ events during and before; 0 without events. */
  actual: number;
  expected: number;
  change: number;
}

const div = (a: number, b: number) => (b !== 0 ? a / b : 0);

/** The ratio of the parts summed, during and before. */
export function ratioTotals(
  parts: readonly RatioPart[],
): RatioTotals & { events: number; expectedEvents: number } {
  let v1 = 0;
  let n1 = 0;
  let v0 = 0;
  let n0 = 0;
  for (const p of parts) {
    v1 += p.value;
    n1 += p.events;
    v0 += p.expectedValue;
    n0 += p.expectedEvents;
  }
  const actual = div(v1, n1);
  const expected = div(v0, n0);
  return { actual, expected, change: actual - expected, events: n1, expectedEvents: n0 };
}

/** Each part's rate and mix effect on the change of the ratio of all parts (they sum to its change). */
export function rateMix(parts: readonly RatioPart[]): { totals: RatioTotals; parts: RateMix[] } {
  const t = ratioTotals(parts);
  const out = parts.map((p) => {
    const r1 = p.events > 0 ? p.value / p.events : div(p.expectedValue, p.expectedEvents);
    const r0 = p.expectedEvents > 0 ? p.expectedValue / p.expectedEvents : r1;
    const w1 = div(p.events, t.events);
    const w0 = div(p.expectedEvents, t.expectedEvents);
    return {
      rate: r1,
      expectedRate: r0,
      share: w1,
      expectedShare: w0,
      rateEffect: w0 * (r1 - r0),
      mixEffect: (w1 - w0) * (r1 - t.expected),
    };
  });
  return { totals: { actual: t.actual, expected: t.expected, change: t.change }, parts: out };
}

/** Parts summed into one (a combination of segments). */
export function sumParts(parts: readonly RatioPart[]): RatioPart {
  const s: RatioPart = { value: 0, events: 0, expectedValue: 0, expectedEvents: 0 };
  for (const p of parts) {
    s.value += p.value;
    s.events += p.events;
    s.expectedValue += p.expectedValue;
    s.expectedEvents += p.expectedEvents;
  }
  return s;
}
