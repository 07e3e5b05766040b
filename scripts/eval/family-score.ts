/**
 * One family cube's figures (docs/detection-quality.md, "The cube family"), by the rules of
 * incident-score.ts: distinct injected events in the top 20 and top 100 incident rows by SIN; rows of the
 * top 20 that no injection explains; per class of level (total, 1, 2 or 3 categories, leaf) the
 * injections found (some row explained by them), their root cause exact (a row explained by the
 * injection names exactly its combination) and found as a root cause (a row within a day of it names
 * its combination); the rows of Home's "Last 7 Days".
 */
import type { FamilyCube } from '../synthetic/family-cube';
import type { CubeLike, SeriesKey } from './incident-cube';
import { type IncidentRow, leafEvidence, matchInjections, same } from './incident-score';

export interface ClassFigure {
  injections: number;
  found: number;
  exact: number;
  asCause: number;
}

export interface FamilyFigures {
  name: string;
  description: string;
  quiet: boolean;
  series: number;
  days: number;
  injections: number;
  records: number;
  incidents: number;
  top20: number;
  top100: number;
  nonEventsTop20: number;
  byClass: Record<string, ClassFigure>;
  /** Rows of "Last 7 Days" and of those no injection explains. */
  recent: number;
  recentNonEvents: number;
  /** What the non-event rows of the top 20 are (for the report). */
  nonEvents: string[];
  summary: string;
  detail: string;
  seconds: number;
}

export const CLASSES = ['total', '1 category', '2 categories', '3 categories', 'leaf'] as const;

/** The class of a combination: leaf, total, or how many categories it names (a child names its parent). */
export function classOf(like: CubeLike, key: SeriesKey): string {
  const level = like.levelOf(key);
  if (level === 'leaf' || level === 'total') return level;
  const n = level.split('×').length;
  return n === 1 ? '1 category' : `${n} categories`;
}

function describe(cube: FamilyCube): string {
  const s = cube.shape;
  const cats = s.categories.map((c) => `${c.name}${c.parent ? `→` : ''}(${c.values.length})`).join(' × ');
  const share = s.lastDayShare < 1 ? `, last day ${Math.round(s.lastDayShare * 100)} %` : '';
  return `${cats}; ${s.leaves} leaves, median ${s.medianLeaf.toFixed(1)}/day, gamma shape ${s.shape.toFixed(1)}, shock ${(cube.shock * 100).toFixed(1)} %; ${s.week} week, ${s.country} holidays, season ±${Math.round(s.seasonAmplitude * 100)} %, trend ${Math.round(s.trend * 100)} %/y${share}${s.quiet ? ', quiet last 30 days' : ''}`;
}

function rowText(like: CubeLike, r: IncidentRow, k: number): string {
  const inj = k >= 0 ? like.injections[k] : undefined;
  const what = inj ? `#${k} ${inj.kind} ${like.keyText(inj.key)} d${inj.start}..${inj.end}` : 'NO EVENT';
  return `${like.keyText(r.broad)} d${r.start}..${r.end} ${r.label ?? ''} → ${what}`;
}

function classFigures(like: CubeLike, ranked: IncidentRow[], match: number[]): Record<string, ClassFigure> {
  const out: Record<string, ClassFigure> = {};
  like.injections.forEach((inj, k) => {
    const c = classOf(like, inj.key);
    const f = out[c] ?? { injections: 0, found: 0, exact: 0, asCause: 0 };
    f.injections++;
    const mine = ranked.filter((_, i) => match[i] === k);
    if (mine.length) f.found++;
    if (mine.some((r) => r.causes.some((x) => same(x, inj.key)))) f.exact++;
    const near = (r: IncidentRow) => inj.start <= r.end + 1 && r.start - 1 <= inj.end;
    if (ranked.some((r) => near(r) && r.causes.some((x) => same(x, inj.key)))) f.asCause++;
    out[c] = f;
  });
  return out;
}

export function scoreFamily(
  cube: FamilyCube,
  like: CubeLike,
  rows: IncidentRow[],
  recent: IncidentRow[],
  records: number,
): FamilyFigures {
  const ranked = [...rows].sort((a, b) => b.sin - a.sin);
  const match = matchInjections(like, ranked);
  const distinct = (n: number) => new Set(match.slice(0, n).filter((k) => k >= 0)).size;
  const recentMatch = matchInjections(like, recent);
  const byClass = classFigures(like, ranked, match);
  const nonEvents = ranked.slice(0, 20).flatMap((r, i) => (match[i] < 0 ? [rowText(like, r, -1)] : []));
  const name = `family_${cube.shape.seed}`;
  const f: FamilyFigures = {
    name,
    description: describe(cube),
    quiet: cube.shape.quiet,
    series: cube.shape.series,
    days: cube.days,
    injections: like.injections.length,
    records,
    incidents: rows.length,
    top20: distinct(20),
    top100: distinct(100),
    nonEventsTop20: nonEvents.length,
    byClass,
    recent: recent.length,
    recentNonEvents: recentMatch.filter((k) => k < 0).length,
    nonEvents,
    summary: '',
    detail: '',
    seconds: 0,
  };
  const leaf = byClass.leaf;
  f.summary = `${f.series} series × ${f.days} d, ${f.injections} injections, ${f.incidents} incidents: top 20 ${f.top20}, top 100 ${f.top100}, non-events in the top 20 ${f.nonEventsTop20}, last 7 days ${f.recent} rows (${f.recentNonEvents} no event)${leaf ? `, leaf as cause ${leaf.asCause}/${leaf.injections}` : ''}`;
  const missed = like.injections
    .map((inj, k) => ({ inj, k }))
    .filter(({ k }) => !match.includes(k))
    .map(
      ({ inj, k }) =>
        `#${k} ${inj.kind} ${like.keyText(inj.key)} d${inj.start}..${inj.end} ×${inj.factor.toFixed(2)}${like.levelOf(inj.key) === 'leaf' ? ` z${leafEvidence(like, inj).toFixed(1)}` : ''}`,
    );
  f.detail = [
    `  ${f.description}`,
    '  top 20:',
    ...ranked.slice(0, 20).map((r, i) => `    ${rowText(like, r, match[i])}`),
    '  last 7 days:',
    ...recent.map((r, i) => `    ${rowText(like, r, recentMatch[i])}`),
    `  not found: ${missed.join('; ')}`,
  ].join('\n');
  return f;
}
