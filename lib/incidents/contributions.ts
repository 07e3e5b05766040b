/**
 * What drove a change of one series over a window (docs/incidents.md, "Contributions"): for every
 * category the series leaves at "all", its values ranked by their contribution (actual − expected),
 * their share of the series before (expected) and during (actual) the window, and how surprising the
 * shift of shares is (Adtributor's Jensen–Shannon surprise); and the best explaining set across
 * dimensions, which is the root cause of lib/incidents/root-cause.ts over the same leaves, so that the
 * answer agrees with the root causes incidents name. Pure: the caller reads the leaves and computes
 * their changes (lib/incidents/leaf-window.ts).
 */
import type { Codes, Lattice } from './lattice';
import {
  elementsOn,
  type Explanation,
  explainChange,
  type LeafChange,
  ROOT_CAUSE_DEFAULTS,
  type RootCauseOptions,
} from './root-cause';

export interface ContributionValue {
  /** The combination: the series' codes plus the dimension's (and its unfixed parents'). */
  codes: Int32Array;
  actual: number;
  expected: number;
  change: number;
  /** Percent points of its own expected value; null when nothing was expected. */
  changePct: number | null;
  /** Share of the series' change this value's change is, in percent points (sums to 100 over a dimension). */
  explainsPct: number;
  /** Its share of the series' expected and actual totals, in percent points. */
  shareBefore: number;
  shareDuring: number;
  /** Its term of the Jensen–Shannon divergence between the shares before and during (bits). */
  surprise: number;
}

export interface DimensionContributions {
  /** Index of the category in the view's definition. */
  category: number;
  /** Sum of its values' surprise: how much the shares of this dimension shifted (0 – 1 bit). */
  surprise: number;
  /** Number of values with data under the series. */
  count: number;
  /** The values, the strongest contributors in the direction of the change first, at most `limit`. */
  values: ContributionValue[];
}

export interface Contributions {
  actual: number;
  expected: number;
  change: number;
  changePct: number | null;
  /** The dimensions, the most surprising shift of shares first. */
  dimensions: DimensionContributions[];
  /** The best explaining set across dimensions (lib/incidents/root-cause.ts). */
  explanation: Explanation;
}

export interface ContributionOptions {
  /** Values listed per dimension. */
  limit: number;
  rootCause: RootCauseOptions;
}

export const CONTRIBUTION_DEFAULTS: ContributionOptions = { limit: 10, rootCause: ROOT_CAUSE_DEFAULTS };

const pct = (change: number, expected: number) =>
  Math.abs(expected) > 1e-9 ? (change / Math.abs(expected)) * 100 : null;

/** x·log2(2x / (x + y)), 0 when x is 0. */
const jsTerm = (x: number, y: number) => (x > 0 ? x * Math.log2((2 * x) / (x + y)) : 0);

/**
 * Adtributor's surprise of one value whose share moved from p to q: its term of the Jensen–Shannon
 * divergence, ½ (p log2 (2p / (p + q)) + q log2 (2q / (p + q))). Summed over a dimension it lies
 * between 0 (the shares did not move) and 1 bit (no value kept any of its share).
 */
export function surpriseOf(p: number, q: number): number {
  return 0.5 * (jsTerm(p, q) + jsTerm(q, p));
}

/**
 * The dimension of category k below `series`: k and its parents that the series leaves at "all"
 * (a hotel is listed with its district, as the cube holds no hotel without it).
 */
export function dimensionCuboid(lattice: Lattice, series: Codes, k: number): number[] {
  const set = [k];
  for (let p = lattice.parents[k]; p >= 0 && series[p] === 0; p = lattice.parents[p]) set.push(p);
  return set.sort((a, b) => a - b);
}

/** The contributions to the change of `series` from its leaves' changes over the window. */
export function contributions(
  lattice: Lattice,
  series: Codes,
  leaves: readonly LeafChange[],
  opts: ContributionOptions = CONTRIBUTION_DEFAULTS,
): Contributions {
  const explanation = explainChange(lattice, series, leaves, opts.rootCause);
  const { actual, expected, change } = explanation;
  const sign =
    opts.rootCause.direction !== undefined ? Math.sign(opts.rootCause.direction) : Math.sign(change);
  // Shares of amounts that can be negative (refunds) are taken over the positive parts.
  const pos = (x: number) => (x > 0 ? x : 0);
  const dimensions: DimensionContributions[] = [];
  for (let k = 0; k < lattice.categories.length; k++) {
    if (series[k] !== 0) continue;
    const elements = elementsOn(series, dimensionCuboid(lattice, series, k), leaves);
    const before = elements.reduce((s, e) => s + pos(e.expected), 0);
    const during = elements.reduce((s, e) => s + pos(e.actual), 0);
    const values: ContributionValue[] = elements.map((e) => {
      const p = before > 0 ? pos(e.expected) / before : 0;
      const q = during > 0 ? pos(e.actual) / during : 0;
      const c = e.actual - e.expected;
      return {
        codes: e.codes,
        actual: e.actual,
        expected: e.expected,
        change: c,
        changePct: pct(c, e.expected),
        explainsPct: change !== 0 ? (c / change) * 100 : 0,
        shareBefore: p * 100,
        shareDuring: q * 100,
        surprise: surpriseOf(p, q),
      };
    });
    const strength = (v: ContributionValue) => (sign !== 0 ? sign * v.change : Math.abs(v.change));
    values.sort((a, b) => strength(b) - strength(a) || b.surprise - a.surprise);
    dimensions.push({
      category: k,
      surprise: values.reduce((s, v) => s + v.surprise, 0),
      count: values.length,
      values: values.slice(0, opts.limit),
    });
  }
  dimensions.sort((a, b) => b.surprise - a.surprise || a.category - b.category);
  return { actual, expected, change, changePct: pct(change, expected), dimensions, explanation };
}
