/**
 * Root cause of a change of one series: the smallest set of category combinations below it whose
 * changes explain the change, each as general as the data allows (docs/incidents.md, "Root cause").
 *
 * The leaves under the broad series carry their actual and expected totals over the window and the
 * noise variance of their difference. Candidate explanations are compared as models of the leaves'
 * actual values (the ripple effect of HotSpot and Squeeze: a combination that moved moves each of its
 * leaves in proportion to its expectation):
 *   broad  — every leaf moved by one common ratio (a season, a calendar effect): one parameter;
 *   C, S   — in one cuboid C (a set of categories), the combinations S moved by ratios of their own and
 *            the rest by one common ratio (or not at all): |S| (+ 1) parameters.
 * With independent leaf noise, fitting a combination's own ratio improves the fit (χ²) by exactly its
 * z², (actual − expected)² / variance, however its change is spread over its leaves; so a change shared
 * alike by every leaf of a channel scores highest on the channel (its variance is the smallest relative
 * to the change), and a change of one leaf scores highest on that leaf. Each parameter costs λ, the
 * squared critical z of a Bonferroni test over the cuboid's combinations, so that noise in a cuboid of
 * 1,900 leaves does not buy a cause. The model with the best penalised score wins; its combinations,
 * strongest contribution first, up to the share `target` of the change, are the root causes.
 */
import { type Codes, codesKey, contains, cuboidsBelow, type Lattice, levelOf, projectOnto } from './lattice';
import { criticalZ } from './normal';

export interface LeafChange {
  codes: Codes;
  /** Sums over the window. */
  actual: number;
  expected: number;
  /** Noise variance of actual − expected over the window (Poisson at least). */
  variance: number;
}

export interface Cause {
  /** The combination: the broad series' codes plus the cuboid's (0 = all). */
  codes: Int32Array;
  actual: number;
  expected: number;
  change: number;
  /** Percent points; null when nothing was expected. */
  changePct: number | null;
  /** Share of the broad series' change this combination's change is, in percent points. */
  explainsPct: number;
  /** Its change in noise units. */
  z: number;
  /** True when the root cause is the broad series itself (no smaller set explains the change). */
  broad: boolean;
}

export interface Explanation {
  actual: number;
  expected: number;
  change: number;
  changePct: number | null;
  causes: Cause[];
  /** Categories the causes fix beyond the broad series (null when broad). */
  cuboid: number[] | null;
  broad: boolean;
}

export interface RootCauseOptions {
  /** Share of the broad change the causes should explain together. */
  target: number;
  /** At most this many causes are named. */
  maxCauses: number;
  /** Chance that noise alone makes one combination of a cuboid a cause. */
  alpha: number;
  /** Causes that explain less than this share of the change together do not explain it: broad. */
  minExplained: number;
  /**
   * The direction to explain (+1 a rise, -1 a fall): the anomaly's result. Absent, the sign of the leaves'
   * total change (noise can turn a small total the other way).
   */
  direction?: number;
  /**
   * Combinations (codesKey) that have anomaly records of their own in the incident: a detector flagged
   * them with its own baseline, so naming them costs one test, not a search over their cuboid.
   */
  flagged?: ReadonlySet<string>;
  /** Called with every cuboid's best fit (for diagnosis). */
  trace?: (cuboid: number[], score: number, chosen: Cause[], elements: number) => void;
}

export const ROOT_CAUSE_DEFAULTS: RootCauseOptions = {
  target: 0.8,
  maxCauses: 5,
  alpha: 0.01,
  minExplained: 0.5,
};

interface Element {
  codes: Int32Array;
  actual: number;
  expected: number;
  variance: number;
  /** Information about the element's ratio actual ÷ expected: Σ expected² / variance over its leaves. */
  weight: number;
  /** Σ actual × expected / variance: the weighted least-squares ratio is moment / weight. */
  moment: number;
}

const pct = (change: number, expected: number) =>
  Math.abs(expected) > 1e-9 ? (change / Math.abs(expected)) * 100 : null;

const ratioOf = (e: Pick<Element, 'weight' | 'moment'>) => (e.weight > 0 ? e.moment / e.weight : 1);

/** How much fitting the element a ratio of its own improves on "no change" (χ²): weight × (ratio − 1)². */
const gainOf = (e: Pick<Element, 'weight' | 'moment'>) => e.weight * (ratioOf(e) - 1) ** 2;

function cause(e: Element, total: number, broad: boolean): Cause {
  const change = e.actual - e.expected;
  return {
    codes: e.codes,
    actual: e.actual,
    expected: e.expected,
    change,
    changePct: pct(change, e.expected),
    explainsPct: total !== 0 ? (change / total) * 100 : 0,
    z: e.variance > 0 ? change / Math.sqrt(e.variance) : 0,
    broad,
  };
}

function emptyElement(codes: Int32Array): Element {
  return { codes, actual: 0, expected: 0, variance: 0, weight: 0, moment: 0 };
}

function add(e: Element, l: LeafChange): void {
  e.actual += l.actual;
  e.expected += l.expected;
  e.variance += l.variance;
  if (l.variance > 0) {
    e.weight += (l.expected * l.expected) / l.variance;
    e.moment += (l.actual * l.expected) / l.variance;
  }
}

/** The leaves summed by their combination on `cuboid` (with what `broad` fixes). */
export function elementsOn(
  broad: Codes,
  cuboid: readonly number[],
  leaves: readonly LeafChange[],
): Element[] {
  const radix = radixOf(cuboid, leaves);
  if (radix === null) return elementsByText(broad, cuboid, leaves);
  // The leaves lie under `broad`: their combination is told by their codes on the cuboid alone.
  const byKey = new Map<number, Element>();
  for (const l of leaves) {
    let key = 0;
    for (let i = 0; i < cuboid.length; i++) key = key * radix[i] + l.codes[cuboid[i]];
    let e = byKey.get(key);
    if (!e) {
      e = emptyElement(projectOnto(l.codes, broad, cuboid));
      byKey.set(key, e);
    }
    add(e, l);
  }
  return [...byKey.values()];
}

/**
 * Per category of the cuboid, one more than the largest code among the leaves: their codes on the cuboid
 * as one number (mixed radix) name each combination exactly. Null when a code is negative or the number
 * could exceed the integers a double holds exactly.
 */
function radixOf(cuboid: readonly number[], leaves: readonly LeafChange[]): number[] | null {
  const radix: number[] = [];
  let size = 1;
  for (const k of cuboid) {
    let max = 0;
    for (const l of leaves) {
      const c = l.codes[k];
      if (c < 0) return null;
      if (c > max) max = c;
    }
    radix.push(max + 1);
    size *= max + 1;
  }
  return size <= Number.MAX_SAFE_INTEGER ? radix : null;
}

function elementsByText(broad: Codes, cuboid: readonly number[], leaves: readonly LeafChange[]): Element[] {
  const byKey = new Map<string, Element>();
  for (const l of leaves) {
    const codes = projectOnto(l.codes, broad, cuboid);
    const key = codesKey(codes);
    let e = byKey.get(key);
    if (!e) {
      e = emptyElement(codes);
      byKey.set(key, e);
    }
    add(e, l);
  }
  return [...byKey.values()];
}

interface Fit {
  score: number;
  chosen: Element[];
}

/**
 * The best set of combinations of one cuboid: those whose ratio stands out from the broad series' the
 * most, in the direction of the change, added while the penalised score grows. The rest keeps one
 * common ratio of its own (or none), so a set that only repeats the common move scores no better than
 * the broad series.
 */
function fitCuboid(
  elements: Element[],
  sign: number,
  totals: Element,
  lambdaOf: (e: Element) => number,
  lambda1: number,
  cap: number,
): Fit {
  const common = ratioOf(totals);
  const candidates = elements
    // lambdaOf(e) is lambda1 or more: most elements fail the cheaper test first.
    .filter((e) => sign * (ratioOf(e) - 1) > 0 && gainOf(e) > lambda1 && gainOf(e) > lambdaOf(e))
    .map((e) => ({ e, apart: e.weight * (ratioOf(e) - common) ** 2 }))
    .sort((a, b) => b.apart - a.apart)
    .slice(0, cap)
    .map((c) => c.e);
  let best: Fit = { score: Number.NEGATIVE_INFINITY, chosen: [] };
  let own = 0;
  const rest = { weight: totals.weight, moment: totals.moment };
  for (let i = 0; i < candidates.length; i++) {
    const e = candidates[i];
    own += gainOf(e) - lambdaOf(e);
    rest.weight -= e.weight;
    rest.moment -= e.moment;
    // The rest moved by a common ratio of its own, or not at all, whichever scores better.
    const restGain = rest.weight > 1e-12 ? Math.max(0, gainOf(rest) - lambda1) : 0;
    const score = own + restGain;
    if (score > best.score) best = { score, chosen: candidates.slice(0, i + 1) };
  }
  return best;
}

/** The leaves within `codes` and within none of `except`, summed into one element. */
function elementOf(codes: Int32Array, leaves: readonly LeafChange[], except: readonly Codes[] = []): Element {
  const e = emptyElement(codes);
  for (const l of leaves)
    if (contains(codes, l.codes) && !except.some((x) => contains(x, l.codes))) add(e, l);
  return e;
}

/** `a` − `b` (b within a). */
function minus(a: Element, b: Element): Element {
  return {
    codes: a.codes,
    actual: a.actual - b.actual,
    expected: a.expected - b.expected,
    variance: a.variance - b.variance,
    weight: a.weight - b.weight,
    moment: a.moment - b.moment,
  };
}

/** True when two causes moved alike: their ratios nearer each other than either is to the rest's. */
function alike(a: Element, b: Element, rest: number): boolean {
  const ra = ratioOf(a);
  const rb = ratioOf(b);
  return Math.abs(ra - rb) < Math.min(Math.abs(ra - rest), Math.abs(rb - rest));
}

/**
 * One step up from `e`: the combination without one of the categories it fixes beyond `broad` (never a
 * parent category whose child stays fixed), when the siblings that step adds moved with `e` (giving them
 * `e`'s ratio instead of the rest's improves their fit by more than one test's price) and it holds no
 * other cause that moved otherwise. The step whose
 * siblings fit best, or null.
 */
function stepUp(
  lattice: Lattice,
  e: Element,
  others: readonly Element[],
  ctx: { broad: Codes; leaves: readonly LeafChange[]; rest: number; sign: number; lambda1: number },
): Element | null {
  const { broad, leaves, rest, sign, lambda1 } = ctx;
  let best: Element | null = null;
  let bestGain = lambda1;
  // The broad series itself is no step up: a cause stays a part of it.
  if (levelOf(e.codes) - levelOf(broad) < 2) return null;
  for (let k = 0; k < e.codes.length; k++) {
    if (e.codes[k] === 0 || broad[k] !== 0) continue;
    if (lattice.parents.some((p, child) => p === k && e.codes[child] !== 0)) continue;
    const codes = Int32Array.from(e.codes);
    codes[k] = 0;
    // A step never swallows another cause that moved otherwise (a second event beside this one).
    if (others.some((o) => contains(codes, o.codes) && !alike(o, e, rest))) continue;
    const siblings = elementOf(codes, leaves, [e.codes]);
    if (siblings.weight <= 1e-12) continue;
    const r = ratioOf(siblings);
    if (sign * (r - rest) <= 0) continue;
    // How much better the siblings fit `e`'s ratio than the rest's (χ²).
    const gain = siblings.weight * ((r - rest) ** 2 - (r - ratioOf(e)) ** 2);
    if (gain > bestGain) [best, bestGain] = [elementOf(codes, leaves), gain];
  }
  return best;
}

/**
 * The chosen combinations as general as the data allows (a department that spiked on every channel is
 * the department, though a second cause needed the department × channel cuboid), each climbed while its
 * siblings moved with it; a combination within another is left out (the other's change holds it).
 */
export function generalise(
  lattice: Lattice,
  chosen: readonly Element[],
  totals: Element,
  leaves: readonly LeafChange[],
  sign: number,
  lambda1: number,
): Element[] {
  const rest = ratioOf(chosen.reduce((acc, e) => minus(acc, e), totals));
  const ctx = { broad: totals.codes, leaves, rest, sign, lambda1 };
  const out = chosen.map((e) => {
    const others = chosen.filter((o) => o !== e);
    let g = e;
    for (let up = stepUp(lattice, g, others, ctx); up !== null; up = stepUp(lattice, g, others, ctx)) g = up;
    return g;
  });
  const seen = new Set<string>();
  return out.filter((e, i) => {
    const key = codesKey(e.codes);
    if (seen.has(key)) return false;
    seen.add(key);
    return !out.some((o, j) => j !== i && codesKey(o.codes) !== key && contains(o.codes, e.codes));
  });
}

/** Median of χ² with one degree of freedom. */
const CHI2_MEDIAN = 0.4549;

/**
 * How much more the leaves scatter around the common ratio than their variances say (at least 1): the
 * median of their squared standardised deviations over that of χ²(1). Noise shared by many leaves (a
 * region's weather) or variances estimated low make every fit look better than it is; the penalties
 * grow with it, as in quasi-likelihood. The median ignores the few leaves a real cause moved.
 */
export function dispersion(leaves: readonly LeafChange[], common: number): number {
  const d: number[] = [];
  for (const l of leaves)
    if (l.variance > 0 && l.expected > 0) d.push((l.actual - common * l.expected) ** 2 / l.variance);
  if (d.length < 8) return 1;
  d.sort((a, b) => a - b);
  const m = d.length % 2 ? d[(d.length - 1) / 2] : (d[d.length / 2 - 1] + d[d.length / 2]) / 2;
  return Math.max(1, m / CHI2_MEDIAN);
}

/** The root causes of the change of the series `broad` over a window, from its leaves. */
export function explainChange(
  lattice: Lattice,
  broad: Codes,
  leaves: readonly LeafChange[],
  opts: RootCauseOptions = ROOT_CAUSE_DEFAULTS,
): Explanation {
  const totals = emptyElement(Int32Array.from(broad));
  for (const l of leaves) add(totals, l);
  const change = totals.actual - totals.expected;
  const head = {
    actual: totals.actual,
    expected: totals.expected,
    change,
    changePct: pct(change, totals.expected),
  };
  const broadAnswer: Explanation = {
    ...head,
    causes: [cause(totals, change, true)],
    cuboid: null,
    broad: true,
  };
  const sign = opts.direction !== undefined ? Math.sign(opts.direction) : Math.sign(change);
  if (sign === 0 || leaves.length <= 1) return broadAnswer;
  const phi = dispersion(leaves, ratioOf(totals));
  const lambda1 = phi * criticalZ(opts.alpha, 1) ** 2;
  let bestScore = sign * (ratioOf(totals) - 1) > 0 ? gainOf(totals) - lambda1 : Number.NEGATIVE_INFINITY;
  let best: { cuboid: number[]; chosen: Element[] } | null = null;
  for (const cuboid of cuboidsBelow(lattice, broad)) {
    const elements = elementsOn(broad, cuboid, leaves);
    if (elements.length <= 1) continue;
    const lambda = phi * criticalZ(opts.alpha, elements.length) ** 2;
    // A combination a detector flagged on its own was not found by searching the cuboid: one test's price.
    const lambdaOf = (e: Element) => (opts.flagged?.has(codesKey(e.codes)) ? lambda1 : lambda);
    const fit = fitCuboid(elements, sign, totals, lambdaOf, lambda1, opts.maxCauses * 3);
    opts.trace?.(
      cuboid,
      fit.score,
      fit.chosen.map((e) => cause(e, change, false)),
      elements.length,
    );
    if (fit.chosen.length > 0 && fit.score > bestScore) {
      bestScore = fit.score;
      best = { cuboid, chosen: fit.chosen };
    }
  }
  opts.trace?.(
    [],
    sign * (ratioOf(totals) - 1) > 0 ? gainOf(totals) - lambda1 : Number.NEGATIVE_INFINITY,
    [],
    1,
  );
  if (best === null) return broadAnswer;
  const general = generalise(lattice, best.chosen, totals, leaves, sign, lambda1);
  const ordered = [...general].sort(
    (a, b) => sign * (b.actual - b.expected) - sign * (a.actual - a.expected),
  );
  const causes: Cause[] = [];
  let explained = 0;
  for (const e of ordered) {
    if (causes.length >= opts.maxCauses) break;
    causes.push(cause(e, change, false));
    explained += e.actual - e.expected;
    if (sign * explained >= opts.target * Math.abs(change)) break;
  }
  if (sign * explained < opts.minExplained * Math.abs(change)) return broadAnswer;
  return { ...head, causes, cuboid: best.cuboid, broad: false };
}
