/**
 * The share of an incident's broad change a root cause explains, as people read it: within 0–100 %, and
 * a note that says why when the cause's own change is not a part of the broad one. A cause can move
 * more than the broad series (the rest moved the other way: a rise against a fall of the rest), against
 * it (a fall while the broad series rose), or the broad series may not have moved at all; then the
 * share is held at 100 or 0 and `explainsNote` names the case with the raw figure.
 */

interface Change {
  change: number;
  explainsPct: number;
}

export interface Explains {
  /** Percent of the broad series' change, 0..100. */
  explainsPct: number;
  /** Why the share is not the raw ratio of the changes; absent when it is. */
  explainsNote?: string;
}

const rounded = (v: number) => Math.round(v).toLocaleString('en-US');
const move = (v: number) => (v > 0 ? 'a rise' : 'a fall');

/** The cause's share of the broad change, held within 0–100 with the reason when it was outside. */
export function explainsOf(cause: Change, broad: { change: number }): Explains {
  const raw = cause.explainsPct;
  if (!Number.isFinite(broad.change) || broad.change === 0 || !Number.isFinite(raw)) {
    return { explainsPct: 0, explainsNote: 'the broad series did not change over the window' };
  }
  if (raw >= 0 && raw <= 100) return { explainsPct: raw };
  if (raw > 100) {
    return {
      explainsPct: 100,
      explainsNote: `${move(cause.change)} against ${move(-cause.change)} of the rest: ${rounded(raw)} % of the broad series' change`,
    };
  }
  return {
    explainsPct: 0,
    explainsNote: `${move(cause.change)} against ${move(broad.change)} of the broad series: ${rounded(raw)} % of its change`,
  };
}

/** The causes' shares together, held within 0–100 (each is held already; the rest can move the other way). */
export const explainedTogether = (causes: ReadonlyArray<{ explainsPct: number }>): number =>
  Math.min(
    100,
    causes.reduce((s, c) => s + c.explainsPct, 0),
  );
