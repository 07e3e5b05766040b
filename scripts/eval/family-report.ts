/**
 * The cube family's report (docs/detection-quality.md, "The cube family"): per cube its figures, and
 * over the family the median and the worst cube of each, with the issue's targets (issue 41 item 4).
 */
import { CLASSES, type ClassFigure, type FamilyFigures } from './family-score';

type Target = { name: string; target: string; value: string; pass: boolean };

const median = (xs: number[]) => {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (x: number) => (Number.isNaN(x) ? 'n/a' : `${Math.round(x * 100)} %`);

/** Per cube: the share `part/of` of a class, over the cubes where `of` > 0. */
function shares(fs: FamilyFigures[], cls: string, part: keyof ClassFigure, of: keyof ClassFigure) {
  return fs.flatMap((f) => {
    const c = f.byClass[cls];
    return c && c[of] > 0 ? [{ name: f.name, value: c[part] / c[of] }] : [];
  });
}

function worstOf(xs: Array<{ name: string; value: number }>, low = true) {
  return xs.reduce((w, x) => ((low ? x.value < w.value : x.value > w.value) ? x : w), xs[0]);
}

export function familyTargets(fs: FamilyFigures[]): Target[] {
  const top20 = fs.map((f) => ({ name: f.name, value: f.top20 }));
  const w20 = worstOf(top20);
  const out: Target[] = [
    {
      name: 'distinct injected events in the top 20 incident rows by SIN (median; worst)',
      target: '≥ 16; ≥ 12',
      value: `${median(top20.map((x) => x.value))}; ${w20.value} (${w20.name})`,
      pass: median(top20.map((x) => x.value)) >= 16 && w20.value >= 12,
    },
  ];
  for (const cls of CLASSES.filter((c) => c !== 'total')) {
    const xs = shares(fs, cls, 'exact', 'found');
    if (!xs.length) continue;
    const goal = cls === 'leaf' ? 0.6 : 0.8;
    const m = median(xs.map((x) => x.value));
    const w = worstOf(xs);
    out.push({
      name: `root cause exact for found injections at ${cls} level (median; worst)`,
      target: `≥ ${goal * 100} %`,
      value: `${pct(m)}; ${pct(w.value)} (${w.name})`,
      pass: m >= goal,
    });
  }
  const leaf = shares(fs, 'leaf', 'asCause', 'injections');
  const wl = worstOf(leaf);
  out.push({
    name: 'leaf injections found as root causes (median; worst)',
    target: '≥ 60 %',
    value: `${pct(median(leaf.map((x) => x.value)))}; ${pct(wl.value)} (${wl.name})`,
    pass: median(leaf.map((x) => x.value)) >= 0.6,
  });
  const quiet = fs.filter((f) => f.quiet).map((f) => ({ name: f.name, value: f.recent }));
  if (quiet.length) {
    const wq = worstOf(quiet, false);
    out.push({
      name: 'rows in the last 7 days of a quiet cube (median; worst)',
      target: '≤ 2',
      value: `${median(quiet.map((x) => x.value))}; ${wq.value} (${wq.name})`,
      pass: wq.value <= 2,
    });
  }
  return out;
}

function summaryRow(label: string, xs: number[], fmt: (x: number) => string, low = true): string {
  const w = low ? Math.min(...xs) : Math.max(...xs);
  return `| ${label} | ${fmt(median(xs))} | ${fmt(w)} |`;
}

function perCube(f: FamilyFigures): string {
  const cls = (c: string) => {
    const x = f.byClass[c];
    return x ? `${x.exact}/${x.found}/${x.asCause}/${x.injections}` : '—';
  };
  return `| ${f.name} | ${f.series} × ${f.days} | ${f.injections} | ${f.top20} | ${f.top100} | ${f.nonEventsTop20} | ${CLASSES.map(cls).join(' | ')} | ${f.recent} (${f.recentNonEvents})${f.quiet ? ' quiet' : ''} | ${f.seconds.toFixed(0)} |`;
}

export function renderFamily(fs: FamilyFigures[], calendar: string): string {
  const ratio = (cls: string, a: keyof ClassFigure, b: keyof ClassFigure) =>
    shares(fs, cls, a, b).map((x) => x.value);
  const lines = [
    `#### ${fs.length} cubes, holidays ${calendar === 'listed' ? 'listed as special dates and a 12.24–01.01 period' : calendar === 'country' ? "from the view's `calendar: {country}` with its periods" : 'not configured'}`,
    '',
    '| Figure | Median | Worst cube |',
    '|---|---:|---:|',
    summaryRow(
      'distinct injected events in the top 20',
      fs.map((f) => f.top20),
      String,
    ),
    summaryRow(
      'distinct injected events in the top 100',
      fs.map((f) => f.top100),
      String,
    ),
    summaryRow(
      'rows of the top 20 that are no injected event',
      fs.map((f) => f.nonEventsTop20),
      String,
      false,
    ),
  ];
  for (const cls of CLASSES) {
    const ex = ratio(cls, 'exact', 'found');
    if (ex.length) lines.push(summaryRow(`root cause exact, ${cls}`, ex, pct));
    const fc = ratio(cls, 'asCause', 'injections');
    if (fc.length) lines.push(summaryRow(`injections found as root causes, ${cls}`, fc, pct));
  }
  const quiet = fs.filter((f) => f.quiet).map((f) => f.recent);
  if (quiet.length) lines.push(summaryRow('rows in the last 7 days of a quiet cube', quiet, String, false));
  lines.push(
    '',
    `Per cube (by class of level: exact / found / found as a root cause / injected; class order ${CLASSES.join(', ')}):`,
    '',
    `| Cube | Series × days | Injections | Top 20 | Top 100 | Non-events in the top 20 | ${CLASSES.join(' | ')} | Last 7 days (no event) | s |`,
    `|---|---|---:|---:|---:|---:|${CLASSES.map(() => '---:').join('|')}|---|---:|`,
    ...fs.map(perCube),
    '',
    ...fs.map((f) => `- ${f.name}: ${f.description}.`),
    '',
  );
  const nonEvents = fs.flatMap((f) => f.nonEvents.map((r) => `${f.name} ${r}`));
  if (nonEvents.length)
    lines.push(`Non-events in the top 20 (first 12): ${nonEvents.slice(0, 12).join('; ')}.`, '');
  return lines.join('\n');
}
