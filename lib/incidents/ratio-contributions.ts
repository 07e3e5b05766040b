/**
 * What drove the change of a ratio (value per event) over a window, and the root cause of an incident on
 * one (docs/incidents.md, "The causes of a ratio"). A ratio of an aggregate moves when a segment's rate
 * moved (a hotel cut its prices) or when the mix of segments moved (more nights sold by the cheap hotel):
 * every value of a dimension gets its rate and mix effect (lib/incidents/rate-mix.ts), summing to the
 * series' change; the explanation names the segments whose rate moved — the root cause search of
 * lib/incidents/root-cause.ts over the leaves' rate changes at the old mix — or says that the mix moved.
 * Pure: the caller reads the leaves' values and events.
 */
import { type DimensionContributions, dimensionCuboid, surpriseOf } from './contributions';
import { type Codes, codesKey, contains, type Lattice, projectOnto } from './lattice';
import type { LeafDays, WindowSpec } from './leaf-window';
import { type RatioPart, rateMix, ratioTotals, sumParts } from './rate-mix';
import {
  type Cause,
  type Explanation,
  explainChange,
  type LeafChange,
  type RootCauseOptions,
} from './root-cause';

/** A leaf's window totals and the noise of its rate. */
export interface RatioLeaf {
  codes: Codes;
  part: RatioPart;
  /** Variance of one event's value around the leaf's rate (from the weeks before). */
  perEventVariance: number;
  /** Events of the weeks before the window (its rate's own noise). */
  baselineEvents: number;
}

export interface RatioCause extends Cause {
  /** rate: the combination's rate moved; mix: the shares of the segments moved (the broad series' codes). */
  effect?: 'rate' | 'mix';
  rateEffect: number;
  mixEffect: number;
  /** For the mix: the category whose shares moved most in the direction of the change. */
  mixOf?: string;
}

export interface RatioExplanation extends Explanation {
  causes: RatioCause[];
  /** The change split at the leaves: their rate changes at the old mix, and the shift of the mix. */
  rateEffect: number;
  mixEffect: number;
}

export type RatioValue = DimensionContributions['values'][number] & { rateEffect: number; mixEffect: number };

export interface RatioDimension extends Omit<DimensionContributions, 'values'> {
  values: RatioValue[];
  rateEffect: number;
  mixEffect: number;
}

export interface RatioContributions {
  actual: number;
  expected: number;
  change: number;
  changePct: number | null;
  rateEffect: number;
  mixEffect: number;
  dimensions: RatioDimension[];
  explanation: RatioExplanation;
}

/**
 * The mix is named when it explains at least half of the change, or when it is at least a quarter of the
 * change's size while standing MIX_Z noise units out (a season's common drift of the rates may make most
 * of the change, either way); rate causes are listed when together they explain at least a quarter of it.
 */
const MIX_NAMED = 0.5;
const MIX_SIGNIFICANT = 0.25;
const MIX_Z = 4;
const RATE_NAMED = 0.25;

/**
 * The noise of the leaves' mix effect: the shares of the events are multinomial draws (during: of the
 * window's events; before: of the weeks before's), Σ w (r − R)² ÷ N on each side.
 */
function mixSigma(leaves: readonly RatioLeaf[]): number {
  const parts = leaves.map((l) => l.part);
  const dec = rateMix(parts);
  const t = ratioTotals(parts);
  const before = leaves.reduce((s, l) => s + l.baselineEvents, 0);
  let during = 0;
  let base = 0;
  for (const m of dec.parts) {
    during += m.share * (m.rate - t.actual) ** 2;
    base += m.expectedShare * (m.expectedRate - t.expected) ** 2;
  }
  const v = (t.events > 0 ? during / t.events : 0) + (before > 0 ? base / before : 0);
  return Math.sqrt(v);
}

const pct = (change: number, expected: number) =>
  Math.abs(expected) > 1e-9 ? (change / Math.abs(expected)) * 100 : null;

/**
 * The leaves' totals over the window: value and events during it, and as expected from the `weeks` weeks
 * before it, weekday by weekday (the same expectation as the value's and the count's contributions).
 */
export function ratioLeaves(leaves: readonly LeafDays[], w: WindowSpec): RatioLeaf[] {
  const s = w.start - w.from;
  const e = w.end - w.from;
  return leaves.map((leaf) => {
    const x = leaf.values;
    const c = leaf.counts ?? new Float64Array(x.length);
    const part: RatioPart = { value: 0, events: 0, expectedValue: 0, expectedEvents: 0 };
    for (let t = s; t <= e; t++) {
      part.value += x[t] ?? 0;
      part.events += c[t] ?? 0;
      let n = 0;
      let bv = 0;
      let bc = 0;
      for (let k = 1; k <= w.weeks; k++) {
        const u = s + ((t - s) % 7) - 7 * k;
        if (u < 0) break;
        bv += x[u];
        bc += c[u];
        n++;
      }
      if (n > 0) {
        part.expectedValue += bv / n;
        part.expectedEvents += bc / n;
      }
    }
    let bv = 0;
    let bc = 0;
    for (let t = Math.max(0, s - 7 * w.weeks); t < s; t++) {
      bv += x[t];
      bc += c[t];
    }
    const price = bc > 0 ? bv / bc : 0;
    let sq = 0;
    for (let t = Math.max(0, s - 7 * w.weeks); t < s; t++) sq += (x[t] - c[t] * price) ** 2;
    // At least a 5 % spread of one event's value: a few events are noisy.
    const perEventVariance = Math.max(bc > 0 ? sq / bc : 0, (0.05 * price) ** 2);
    return { codes: leaf.codes, part, perEventVariance, baselineEvents: bc };
  });
}

/** The leaves' expected rates scaled together so that the expected ratio is `expected` (an anomaly's). */
export function scaledToRatio(leaves: RatioLeaf[], expected: number | undefined): RatioLeaf[] {
  if (expected === undefined || !Number.isFinite(expected)) return leaves;
  const t = ratioTotals(leaves.map((l) => l.part));
  if (!(t.expected > 0)) return leaves;
  const k = expected / t.expected;
  return leaves.map((l) => ({ ...l, part: { ...l.part, expectedValue: l.part.expectedValue * k } }));
}

/** The leaves summed by their combination on `cuboid` (with what `series` fixes). */
function groupOn(series: Codes, cuboid: readonly number[], leaves: readonly RatioLeaf[]) {
  const byKey = new Map<string, { codes: Int32Array; parts: RatioPart[] }>();
  for (const l of leaves) {
    const codes = projectOnto(l.codes, series, cuboid);
    const key = codesKey(codes);
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = { codes, parts: [] }));
    g.parts.push(l.part);
  }
  return [...byKey.values()].map((g) => ({ codes: g.codes, part: sumParts(g.parts) }));
}

/**
 * Each leaf's rate change at the old mix as a change of value: the value its expected events would bring
 * at its rate during the window, against their value at its rate before. The root cause search then finds
 * the combinations whose rate moved (their change ÷ the expected events is their rate effect).
 */
function rateChanges(leaves: readonly RatioLeaf[]): LeafChange[] {
  return leaves.map((l) => {
    const p = l.part;
    const n0 = p.expectedEvents;
    if (!(n0 > 0)) return { codes: l.codes, actual: 0, expected: 0, variance: 0 };
    const r1 = p.events > 0 ? p.value / p.events : p.expectedValue / n0;
    const noise = 1 / Math.max(p.events, 1) + 1 / Math.max(l.baselineEvents, 1);
    return {
      codes: l.codes,
      actual: n0 * r1,
      expected: p.expectedValue,
      variance: n0 * n0 * l.perEventVariance * noise,
    };
  });
}

/** A combination's figures as a ratio cause. */
function ratioCause(
  codes: Int32Array,
  part: RatioPart,
  totals: { expected: number; change: number; expectedEvents: number; events: number },
  z: number,
): RatioCause {
  const [m] = rateMix([part]).parts;
  const w0 = totals.expectedEvents > 0 ? part.expectedEvents / totals.expectedEvents : 0;
  const w1 = totals.events > 0 ? part.events / totals.events : 0;
  const rateEffect = w0 * (m.rate - m.expectedRate);
  const change = m.rate - m.expectedRate;
  return {
    codes,
    actual: m.rate,
    expected: m.expectedRate,
    change,
    changePct: pct(change, m.expectedRate),
    explainsPct: totals.change !== 0 ? (rateEffect / totals.change) * 100 : 0,
    z,
    broad: false,
    effect: 'rate',
    rateEffect,
    mixEffect: (w1 - w0) * (m.rate - totals.expected),
  };
}

/**
 * The root cause of a ratio's change: the segments whose rate moved (named as the root cause search names
 * a value's causes, over the leaves' rate changes at the old mix) and, when the shift of the mix explains
 * at least half of the change, the mix (of the category whose shares moved most that way). Neither: broad.
 */
export function explainRatio(
  lattice: Lattice,
  series: Codes,
  leaves: readonly RatioLeaf[],
  opts: RootCauseOptions,
  dimensions?: readonly RatioDimension[],
): RatioExplanation {
  const parts = leaves.map((l) => l.part);
  const dec = rateMix(parts);
  const t = { ...ratioTotals(parts), change: dec.totals.change };
  const rateEffect = dec.parts.reduce((s, p) => s + p.rateEffect, 0);
  const mixEffect = dec.parts.reduce((s, p) => s + p.mixEffect, 0);
  const sign = opts.direction !== undefined ? Math.sign(opts.direction) : Math.sign(t.change);
  const head = {
    actual: t.actual,
    expected: t.expected,
    change: t.change,
    changePct: pct(t.change, t.expected),
  };
  const whole = Int32Array.from(series);
  const causes: RatioCause[] = [];
  const rate = explainChange(lattice, series, rateChanges(leaves), { ...opts, direction: sign || undefined });
  if (!rate.broad) {
    for (const c of rate.causes) {
      const within = leaves.filter((l) => contains(c.codes, l.codes)).map((l) => l.part);
      causes.push(ratioCause(c.codes, sumParts(within), t, c.z));
    }
  }
  const named = causes.reduce((s, c) => s + c.rateEffect, 0);
  const size = Math.abs(t.change);
  if (sign * named < RATE_NAMED * size) causes.length = 0;
  // The mix is named when it made most of the change, or when it stands out of its noise and is a
  // material part of the change (also against it: a season may lift the rates while the mix fell).
  const mixStands =
    sign * mixEffect >= MIX_NAMED * size ||
    (Math.abs(mixEffect) >= MIX_SIGNIFICANT * size && Math.abs(mixEffect) >= MIX_Z * mixSigma(leaves));
  if (sign !== 0 && mixStands) {
    const dims = dimensions ?? ratioDimensions(lattice, series, leaves, sign);
    const most = [...dims].sort((a, b) => sign * (b.mixEffect - a.mixEffect))[0];
    causes.push({
      codes: whole,
      actual: t.expected + mixEffect,
      expected: t.expected,
      change: mixEffect,
      changePct: pct(mixEffect, t.expected),
      explainsPct: t.change !== 0 ? (mixEffect / t.change) * 100 : 0,
      z: 0,
      broad: false,
      effect: 'mix',
      rateEffect: 0,
      mixEffect,
      ...(most ? { mixOf: lattice.categories[most.category] } : {}),
    });
  }
  causes.sort((a, b) => sign * (b.rateEffect + b.mixEffect) - sign * (a.rateEffect + a.mixEffect));
  if (causes.length === 0)
    return {
      ...head,
      causes: [{ codes: whole, ...head, explainsPct: 100, z: 0, broad: true, rateEffect, mixEffect }],
      cuboid: null,
      broad: true,
      rateEffect,
      mixEffect,
    };
  return { ...head, causes, cuboid: rate.broad ? null : rate.cuboid, broad: false, rateEffect, mixEffect };
}

/** Every category `series` leaves at "all", its values with their rate and mix effects. */
export function ratioDimensions(
  lattice: Lattice,
  series: Codes,
  leaves: readonly RatioLeaf[],
  sign: number,
  limit = Number.POSITIVE_INFINITY,
): RatioDimension[] {
  const out: RatioDimension[] = [];
  for (let k = 0; k < lattice.categories.length; k++) {
    if (series[k] !== 0) continue;
    const groups = groupOn(series, dimensionCuboid(lattice, series, k), leaves);
    const dec = rateMix(groups.map((g) => g.part));
    const change = dec.totals.change;
    const values: RatioValue[] = groups.map((g, i) => {
      const m = dec.parts[i];
      const c = m.rate - m.expectedRate;
      return {
        codes: g.codes,
        actual: m.rate,
        expected: m.expectedRate,
        change: c,
        changePct: pct(c, m.expectedRate),
        explainsPct: change !== 0 ? ((m.rateEffect + m.mixEffect) / change) * 100 : 0,
        shareBefore: m.expectedShare * 100,
        shareDuring: m.share * 100,
        surprise: surpriseOf(m.expectedShare, m.share),
        rateEffect: m.rateEffect,
        mixEffect: m.mixEffect,
      };
    });
    const strength = (v: RatioValue) =>
      sign !== 0 ? sign * (v.rateEffect + v.mixEffect) : Math.abs(v.rateEffect + v.mixEffect);
    values.sort((a, b) => strength(b) - strength(a) || b.surprise - a.surprise);
    out.push({
      category: k,
      surprise: values.reduce((s, v) => s + v.surprise, 0),
      count: values.length,
      values: values.slice(0, limit),
      rateEffect: dec.parts.reduce((s, p) => s + p.rateEffect, 0),
      mixEffect: dec.parts.reduce((s, p) => s + p.mixEffect, 0),
    });
  }
  return out.sort((a, b) => b.surprise - a.surprise || a.category - b.category);
}

/** The contributions to the change of a ratio series from its leaves (see the module comment). */
export function ratioContributions(
  lattice: Lattice,
  series: Codes,
  leaves: readonly RatioLeaf[],
  opts: { limit: number; rootCause: RootCauseOptions },
): RatioContributions {
  const t = ratioTotals(leaves.map((l) => l.part));
  const sign =
    opts.rootCause.direction !== undefined ? Math.sign(opts.rootCause.direction) : Math.sign(t.change);
  const all = ratioDimensions(lattice, series, leaves, sign);
  const explanation = explainRatio(lattice, series, leaves, opts.rootCause, all);
  return {
    actual: t.actual,
    expected: t.expected,
    change: t.change,
    changePct: pct(t.change, t.expected),
    rateEffect: explanation.rateEffect,
    mixEffect: explanation.mixEffect,
    dimensions: all.map((d) => ({ ...d, values: d.values.slice(0, opts.limit) })),
    explanation,
  };
}
