/**
 * Measures that are not counts on real series (issue 29, item 5): copies of the real series derived
 * as an average, a rate in percent, a log-scale series, an amount in thousands and in units × 1,000
 * (derived-series.ts), each analysed as the value of a view whose count is the constant 1 (what a
 * user defines for such a measure), by the engine in process like `--real --fast`, and scored like
 * the originals: every injected window hit, ≤ 1 false anomaly per 100 days, and the same injected
 * windows hit as the original. A plain change of unit must also flag the same days with every
 * detector; the pedestrians and births are scaled only (their labels are known events, not injections).
 * With --service the original and the copies go through the service's load → process path instead.
 */
import { fromEpochDay } from '../../lib/calendar/days';
import type { Dataset } from './datasets';
import { DERIVATIONS, type Derivation, deriveDataset } from './derived-series';
import { type Check, evaluateDataset, type RealResult, runEngine, runService, type Variant } from './real';
import { flagDays, scoringFrame, type Span } from './score';
import type { ServiceEnv } from './service';

export interface CopyResult {
  derivation: Derivation;
  result: RealResult;
  /** Labelled windows the union hit (names), on the copy and on the original. */
  windows: string[];
  /** Days flagged differently from the original by some detector (scaled copies), with an example. */
  daysDiffering: number;
  example: string | null;
}

export interface MeasuresResult {
  dataset: string;
  original: RealResult;
  originalWindows: string[];
  copies: CopyResult[];
  checks: { area: string; check: Check }[];
}

const VARIANT: Variant = { name: 'defaults', specialDates: false };
const fmt = (x: number) => x.toFixed(2);

/** Names of the labelled windows the union of every detector hit. */
function windowsHit(ds: Dataset, r: RealResult): string[] {
  const frame = scoringFrame(ds.series.day0, ds.series.present, ds.labels);
  const union = r.rows.find((x) => x.kind === 'union') as RealResult['rows'][number];
  const flags = flagDays(frame, union.spans);
  return ds.labels
    .filter((w) => {
      for (let d = Math.max(w.start, frame.day0); d <= Math.min(w.end, frame.day0 + frame.days - 1); d++)
        if (flags[d - frame.day0] && frame.scored[d - frame.day0]) return true;
      return false;
    })
    .map((w) => w.name ?? `${fromEpochDay(w.start)}..${fromEpochDay(w.end)}`);
}

/** Days flagged by a detector on one run and not the other (each detector's days compared, sign included). */
function differingDays(
  a: Map<string, Span[]>,
  b: Map<string, Span[]>,
): { days: number; example: string | null } {
  const daysOf = (spans: readonly Span[]) => {
    const out = new Set<string>();
    for (const s of spans) for (let d = s.start; d <= s.end; d++) out.add(`${d} ${s.result}`);
    return out;
  };
  let days = 0;
  let example: string | null = null;
  for (const type of new Set([...a.keys(), ...b.keys()])) {
    const x = daysOf(a.get(type) ?? []);
    const y = daysOf(b.get(type) ?? []);
    for (const k of [...x].filter((k) => !y.has(k)).concat([...y].filter((k) => !x.has(k)))) {
      days++;
      if (example === null) {
        const [day, sign] = k.split(' ');
        example = `${type} ${fromEpochDay(Number(day))} ${sign} (${x.has(k) ? 'original only' : 'copy only'})`;
      }
    }
  }
  return { days, example };
}

/** The derivations of one dataset: every one on the series with injections, the scaled copies elsewhere. */
export function derivationsFor(ds: Dataset): Derivation[] {
  return ds.kind === 'page_views' ? [...DERIVATIONS] : DERIVATIONS.filter((d) => d.scaled);
}

/** Runs and scores the original and its copies in process. */
export function evaluateMeasures(ds: Dataset, derivations = derivationsFor(ds)): MeasuresResult {
  return scoreMeasures(
    ds,
    runEngine(ds, VARIANT),
    derivations.map((d) => {
      const copy = deriveDataset(ds, d);
      return { derivation: d, copy, spans: runEngine(copy, VARIANT) };
    }),
  );
}

/** The same through the service: each copy a source table, a data view (count 1), load and process jobs. */
export async function evaluateMeasuresService(
  env: ServiceEnv,
  ds: Dataset,
  derivations = derivationsFor(ds),
): Promise<MeasuresResult> {
  const own = await runService(env, ds, VARIANT);
  const runs: { derivation: Derivation; copy: Dataset; spans: Map<string, Span[]> }[] = [];
  for (const d of derivations) {
    const copy = deriveDataset(ds, d);
    runs.push({ derivation: d, copy, spans: await runService(env, copy, VARIANT) });
  }
  return scoreMeasures(ds, own, runs);
}

/** Scores the original's anomalies and each copy's against the labels and against each other. */
export function scoreMeasures(
  ds: Dataset,
  ownSpans: Map<string, Span[]>,
  runs: readonly { derivation: Derivation; copy: Dataset; spans: Map<string, Span[]> }[],
): MeasuresResult {
  const original = evaluateDataset(ds, VARIANT, ownSpans);
  const originalWindows = windowsHit(ds, original);
  const copies: CopyResult[] = [];
  const checks: MeasuresResult['checks'] = [];
  for (const { derivation: d, copy, spans } of runs) {
    const result = evaluateDataset(copy, VARIANT, spans);
    const windows = windowsHit(copy, result);
    const diff = differingDays(ownSpans, spans);
    copies.push({ derivation: d, result, windows, daysDiffering: diff.days, example: diff.example });
    const area = `${ds.series.name} as ${d.name}`;
    const union = result.rows.find((x) => x.kind === 'union') as RealResult['rows'][number];
    if (ds.kind === 'page_views') {
      checks.push({
        area,
        check: {
          name: 'every injected window hit (union)',
          target: `${union.score.windows}/${union.score.windows}`,
          value: `${union.score.windowsHit}/${union.score.windows}`,
          pass: union.score.windowsHit === union.score.windows,
        },
      });
      checks.push({
        area,
        check: {
          name: 'false anomalies per 100 days (union)',
          target: '≤ 1',
          value: fmt(union.score.falsePer100Days),
          pass: union.score.falsePer100Days <= 1,
        },
      });
      const missing = originalWindows.filter((w) => !windows.includes(w));
      const extra = windows.filter((w) => !originalWindows.includes(w));
      checks.push({
        area,
        check: {
          name: 'the same injected windows hit as the original (union)',
          target: `${originalWindows.length} windows, the same`,
          value:
            missing.length + extra.length === 0
              ? `${windows.length}, the same`
              : `${windows.length}; ${missing.length ? `missed ${missing.join(', ')}` : ''}${extra.length ? ` also ${extra.join(', ')}` : ''}`,
          pass: missing.length + extra.length === 0,
        },
      });
    }
    if (d.scaled)
      checks.push({
        area,
        check: {
          name: 'the same days flagged as the original, by every detector',
          target: '0 days differ',
          value: diff.days === 0 ? '0' : `${diff.days} (e.g. ${diff.example})`,
          pass: diff.days === 0,
        },
      });
  }
  return { dataset: ds.series.name, original, originalWindows, copies, checks };
}

/** Markdown: one row for the original and one per copy. */
export function renderMeasures(m: MeasuresResult): string {
  const head = [
    'Series',
    'What it is',
    'Anomalies (union)',
    'Windows hit',
    'False /100 d',
    'P (day)',
    'R (day)',
    'Windows differing from the original',
    'Days differing (every detector)',
  ];
  const row = (name: string, what: string, r: RealResult, windows: string[], days: string) => {
    const u = (r.rows.find((x) => x.kind === 'union') as RealResult['rows'][number]).score;
    const missing = m.originalWindows.filter((w) => !windows.includes(w));
    const extra = windows.filter((w) => !m.originalWindows.includes(w));
    const differ = [...missing.map((w) => `−${w}`), ...extra.map((w) => `+${w}`)].join('; ') || '0';
    return `| ${[
      name,
      what,
      u.anomalies,
      `${u.windowsHit}/${u.windows}`,
      fmt(u.falsePer100Days),
      u.precision === null ? 'n/a' : u.precision.toFixed(3),
      u.recall === null ? 'n/a' : u.recall.toFixed(3),
      differ,
      days,
    ].join(' | ')} |`;
  };
  return [
    `#### ${m.dataset}: copies that are not counts (${m.original.days} days, ${m.original.scoredDays} scored)`,
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`,
    row(m.dataset, 'the original (value, count constant)', m.original, m.originalWindows, '—'),
    ...m.copies.map((c) =>
      row(
        c.derivation.name,
        c.derivation.describe,
        c.result,
        c.windows,
        c.daysDiffering === 0 ? '0' : `${c.daysDiffering} (e.g. ${c.example})`,
      ),
    ),
    '',
  ].join('\n');
}
