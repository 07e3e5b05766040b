/**
 * Scoring incidents against a cube's injections (issue 28, docs/detection-quality.md "Incidents"):
 * - an incident row is explained by an injection that overlaps its window (±1 day), shares leaves
 *   with its broad series and moved that series by at least 10 % (the ranking's rule); the row counts
 *   for the injection that moved its broad series most;
 * - distinct injected events among the top 20 and top 100 rows by SIN;
 * - an injection is found when some incident is explained by it; its root cause is exact when the
 *   incident names exactly the injected combination among its root causes (first: as the first one);
 * - leaf injections found as root causes: the injected leaf is a root cause of an incident overlapping it.
 */
import type { CubeLike, SeriesKey } from './incident-cube';

export interface IncidentRow {
  broad: SeriesKey;
  causes: SeriesKey[];
  /** Epoch-day offsets from the cube's first day, inclusive (the incident's whole extent). */
  start: number;
  end: number;
  sin: number;
  measure: string;
  broadCause: boolean;
  label?: string;
}

export interface LevelFigure {
  level: string;
  injections: number;
  found: number;
  exact: number;
  exactFirst: number;
}

export interface IncidentFigures {
  incidents: number;
  records: number;
  top20: number;
  top100: number;
  /** Distinct injections among the top 20 / 100 rows, counted above; the rows themselves are in `top20Rows`. */
  returned: number;
  byLevel: LevelFigure[];
  leafAsCause: [number, number];
  /** Leaf injections whose change is at least EVIDENT_Z of the leaf's own noise, and of those named as root causes. */
  leafEvident: [number, number];
  /** The leaf injections no incident names as a root cause: their size and what the rows over them name. */
  leafMissed: string[];
  unexplainedTop20: string[];
  inexact: string[];
  /** The top 20 rows with the injection each is explained by (for diagnosis). */
  top20Rows: string[];
}

/**
 * The evidence of a leaf injection on its own leaf: its change in events over the window in units of the
 * generator's own noise of that sum (|Σ expected × (factor − 1)| / √Σ variance). What any detector could
 * see at best, knowing the leaf's true level.
 */
export function leafEvidence(cube: CubeLike, inj: CubeLike['injections'][number]): number {
  const l = cube.leaves.findIndex((x) => same(x, inj.key));
  if (l < 0) return 0;
  let change = 0;
  let variance = 0;
  for (let t = inj.start; t <= inj.end; t++) {
    change += cube.expectedCount[l * cube.days + t] * (inj.factor - 1);
    variance += cube.countVariance(l, t);
  }
  return variance > 0 ? Math.abs(change) / Math.sqrt(variance) : 0;
}

export const same = (a: SeriesKey, b: SeriesKey) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A leaf injection this many noise units strong on its own leaf is evident (a detector's threshold is 4–5). */
export const EVIDENT_Z = 5;

/** The injection that explains each row (its index, −1 for none): the rule of this file's header. */
export function matchInjections(cube: CubeLike, ranked: readonly IncidentRow[]): number[] {
  return ranked.map((r) => {
    let best = -1;
    let bestShare = 0;
    cube.injections.forEach((inj, k) => {
      if (!(inj.start <= r.end + 1 && r.start - 1 <= inj.end)) return;
      if (!cube.overlaps(r.broad, inj.key)) return;
      const share = cube.movedShare(k, r.broad, r.measure === 'count' ? 'count' : 'value');
      if (share >= 0.1 && share > bestShare) {
        best = k;
        bestShare = share;
      }
    });
    return best;
  });
}

export function scoreIncidents(cube: CubeLike, rows: IncidentRow[], records: number): IncidentFigures {
  const ranked = [...rows].sort((a, b) => b.sin - a.sin);
  const match = matchInjections(cube, ranked);
  const distinct = (n: number) => new Set(match.slice(0, n).filter((k) => k >= 0)).size;
  const levels = new Map<string, LevelFigure>();
  const inexact: string[] = [];
  cube.injections.forEach((inj, k) => {
    const level = cube.levelOf(inj.key);
    const f = levels.get(level) ?? { level, injections: 0, found: 0, exact: 0, exactFirst: 0 };
    f.injections++;
    const mine = ranked.filter((_, i) => match[i] === k);
    if (mine.length > 0) {
      f.found++;
      if (mine.some((r) => r.causes.some((c) => same(c, inj.key)))) f.exact++;
      else if (inexact.length < 40)
        inexact.push(
          `${inj.kind} ${cube.keyText(inj.key)} d${inj.start}..${inj.end} ×${inj.factor.toFixed(2)} → ${mine
            .slice(0, 2)
            .map(
              (r) =>
                `[${cube.keyText(r.broad)}: ${r.causes.map((c) => cube.keyText(c)).join(' + ')}${r.broadCause ? ' (broad)' : ''}]`,
            )
            .join(' ')}`,
        );
      if (mine.some((r) => r.causes.length > 0 && same(r.causes[0], inj.key))) f.exactFirst++;
    }
    levels.set(level, f);
  });
  const leafInjections = cube.injections.filter((inj) => cube.levelOf(inj.key) === 'leaf');
  const near = (inj: (typeof leafInjections)[number], r: IncidentRow) =>
    inj.start <= r.end + 1 && r.start - 1 <= inj.end;
  const isFound = (inj: (typeof leafInjections)[number]) =>
    rows.some((r) => near(inj, r) && r.causes.some((c) => same(c, inj.key)));
  const leafFound = leafInjections.filter(isFound).length;
  const evident = leafInjections.filter((inj) => leafEvidence(cube, inj) >= EVIDENT_Z);
  const leafMissed = leafInjections
    .filter((inj) => !isFound(inj))
    .map((inj) => {
      const l = cube.leaves.findIndex((x) => same(x, inj.key));
      let count = 0;
      for (let t = inj.start; t <= inj.end; t++) count += cube.expectedCount[l * cube.days + t];
      const days = inj.end - inj.start + 1;
      const z = leafEvidence(cube, inj);
      const over = rows.filter((r) => near(inj, r) && cube.overlaps(r.broad, inj.key));
      return `${inj.kind} ${cube.keyText(inj.key)} d${inj.start}..${inj.end} (${days} d) ×${inj.factor.toFixed(2)} ${(count / days).toFixed(1)}/day, Δ ${(count * (inj.factor - 1)).toFixed(0)} events, z ${z.toFixed(1)}; rows over it: ${
        over
          .slice(0, 3)
          .map((r) => `[${cube.keyText(r.broad)} ${r.label ?? ''}]`)
          .join(' ') || 'none'
      }`;
    });
  return {
    incidents: rows.length,
    records,
    top20: distinct(20),
    top100: distinct(100),
    returned: ranked.length,
    byLevel: [...levels.values()].sort((a, b) => a.level.localeCompare(b.level)),
    leafAsCause: [leafFound, leafInjections.length],
    leafEvident: [evident.filter(isFound).length, evident.length],
    leafMissed,
    unexplainedTop20: ranked
      .slice(0, 20)
      .map((r, i) => (match[i] < 0 ? `${cube.keyText(r.broad)} d${r.start}..${r.end} ${r.label ?? ''}` : ''))
      .filter(Boolean),
    inexact,
    top20Rows: ranked.slice(0, 20).map((r, i) => {
      const k = match[i];
      const inj = k >= 0 ? cube.injections[k] : undefined;
      return `${cube.keyText(r.broad)} d${r.start}..${r.end} ${r.label ?? ''} → ${inj ? `#${k} ${inj.kind} ${cube.keyText(inj.key)} d${inj.start}..${inj.end}` : 'unexplained'}`;
    }),
  };
}
