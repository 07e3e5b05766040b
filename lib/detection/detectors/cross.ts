/**
 * Peer, Mix and Cardinality: detectors that read a baseline built across series
 * (lib/detection/baselines.ts). Each predicts the day from the same weekday over the last weeks,
 * then corrects it with the cross-series signal:
 * - Peer: the series should have moved like the median of its peers (peerChange).
 * - Mix: the series should keep its recent share of its parent (parentValues).
 * - Cardinality: the number of distinct non-zero child values should stay at its recent level.
 */
import type { DetectorImpl, RunInput } from '../detector';
import {
  classifyPct,
  cleanValue,
  cleanWarmup,
  clearFlags,
  DayNoise,
  logRatio,
  RunTracker,
  relevel,
  relevelWeekday,
  ShiftMemory,
} from '../kernels';
import type { CardinalityParams, WindowPercentParams } from '../params';
import type { Workspace } from '../workspace';

const tracker = new RunTracker();
const noise = new DayNoise();
const shifts = new ShiftMemory();

function weeksOf(window: number): number {
  return Math.max(1, Math.round(window / 7));
}

const KIND_PEER = 0;
const KIND_MIX = 1;
const KIND_CARDINALITY = 2;

function runCross(
  kind: number,
  input: RunInput,
  actual: Float64Array,
  aux: Float64Array | undefined,
  p: WindowPercentParams,
  minChange: number,
  ws: Workspace,
): Float64Array {
  const { special, start, end } = input;
  const e = ws.expected;
  const f = ws.flags;
  const c = ws.clean;
  e.fill(Number.NaN, 0, end);
  f.fill(0, 0, end);
  const weeks = weeksOf(p.window);
  const span = weeks * 7;
  const frac = p.percentualChange / 100;
  const adaptAfter = p.adaptAfterDays;
  const k = p.threshold;
  // Cardinality counts children: materiality is the count itself (minChange), not the volume.
  const minVolume = kind === KIND_CARDINALITY ? 0 : input.material;
  tracker.reset();
  noise.reset(end, start);
  noise.poisson = kind !== KIND_CARDINALITY;
  noise.unit = input.unit;
  const offset = kind === KIND_CARDINALITY ? 0.5 : 0;
  noise.logOffset = offset;
  // The day's own noise (the expectation is a mean of weeks); cardinality counts children instead.
  noise.absFloor = kind === KIND_CARDINALITY ? 0 : input.daySigma;
  noise.meanLevel = input.dayMean;
  noise.weigh(input.weights, input.weightRef);
  shifts.reset();
  const warmEnd = Math.min(end, start + span);
  for (let t = start; t < warmEnd; t++) c[t] = special !== null && special[t] !== 0 ? Number.NaN : actual[t];
  for (let t = warmEnd; t < end; t++) {
    const at = actual[t];
    const isSpecial = special !== null && special[t] !== 0;
    if (Number.isNaN(at)) {
      c[t] = isSpecial ? Number.NaN : at;
      continue;
    }
    if (t - span === start)
      cleanWarmup(c, actual, start, t, 3.5, kind === KIND_CARDINALITY ? 0 : 0.2, special);
    let exp = Number.NaN;
    let sumC = 0;
    let sumP = 0;
    let used = 0;
    // The same weekday over the last weeks (all at or after start here); one loop per kind, so
    // that the common one carries no parent sum.
    if (kind === KIND_MIX) {
      const parent = aux as Float64Array;
      for (let u = t - 7, stop = t - span; u >= stop; u -= 7) {
        const cu = c[u];
        if (!Number.isNaN(cu)) {
          sumC += cu;
          sumP += parent[u];
          used++;
        }
      }
    } else {
      for (let u = t - 7, stop = t - span; u >= stop; u -= 7) {
        const cu = c[u];
        if (!Number.isNaN(cu)) {
          sumC += cu;
          used++;
        }
      }
    }
    if (used > 0) {
      if (kind === KIND_PEER) {
        const change = (aux as Float64Array)[t];
        if (!Number.isNaN(change)) exp = (sumC / used) * (1 + change);
      } else if (kind === KIND_MIX) {
        const parent = (aux as Float64Array)[t];
        if (sumP > 0 && !Number.isNaN(parent)) exp = (parent * sumC) / sumP;
      } else {
        exp = sumC / used;
      }
    }
    let flag = 0;
    if (!Number.isNaN(exp)) {
      if (kind === KIND_CARDINALITY) {
        const diff = at - exp;
        const need = Math.max(minChange, frac * Math.abs(exp));
        flag = diff >= need && diff > 0 ? 1 : -diff >= need && diff < 0 ? -1 : 0;
      } else {
        flag = classifyPct(at, exp, frac);
      }
      // Flagged only when unusual for this series too.
      if (flag !== 0 && !noise.unusual(at - exp, exp, k, t)) flag = 0;
      if (!isSpecial && exp > 0) noise.recordRatio(t, at, exp, flag !== 0, offset);
    }
    e[t] = exp;
    // Reported only when material and not the way back from an accepted shift (a return to normal);
    // baselines are cleaned of the day either way.
    f[t] = exp >= minVolume && !(flag !== 0 && shifts.returns(logRatio(at, exp, offset))) ? flag : 0;
    c[t] = cleanValue(at, exp, flag, isSpecial);
    // A quiet day outside a run leaves the tracker as it is: skip the call.
    if ((flag !== 0 || tracker.length !== 0) && tracker.step(flag, t, adaptAfter, isSpecial)) {
      if (shifts.accept(relevel(c, actual, e, tracker.start, t, span, start, special)))
        clearFlags(f, tracker.start, t);
      tracker.reset();
    } else if (flag !== 0 && !isSpecial && f[t - 7] === flag && (special === null || special[t - 7] === 0)) {
      relevelWeekday(c, actual, e, t, weeks, start);
    }
  }
  return actual;
}

export const peer: DetectorImpl<'peer'> = {
  type: 'peer',
  code: 'Peer',
  aggregate: false,
  requires: 'peerChange',
  minHistory: (p) => weeksOf(p.window) * 7 + 1,
  run: (input, p, ws) => runCross(KIND_PEER, input, input.x, input.peer, p, 0, ws),
};

export const mix: DetectorImpl<'mix'> = {
  type: 'mix',
  code: 'Mix',
  aggregate: false,
  requires: 'parentValues',
  minHistory: (p) => weeksOf(p.window) * 7 + 1,
  run: (input, p, ws) => runCross(KIND_MIX, input, input.x, input.parent, p, 0, ws),
};

export const cardinality: DetectorImpl<'cardinality'> = {
  type: 'cardinality',
  code: 'Cardinality',
  aggregate: false,
  requires: 'cardinality',
  minHistory: (p) => weeksOf(p.window) * 7 + 1,
  run: (input, p: CardinalityParams, ws) =>
    runCross(KIND_CARDINALITY, input, input.cardinality as Float64Array, undefined, p, p.minChange, ws),
};
