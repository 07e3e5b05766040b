/**
 * The real-data evaluation: scoring of each detector, their union and the two baselines on one
 * dataset, with the dataset's event checks and targets (issue 16). The anomalies come either from
 * the engine in process (fast mode, runEngine) or from the service's own load → process path
 * (service mode, scripts/eval/service.ts); the scoring is the same.
 */
import { buildSpecialCalendar } from '../../lib/calendar/special-calendar';
import { epochDayToYyyymmdd, fromEpochDay, toEpochDay } from '../../lib/calendar/days';
import { detectSeries, resolveDetectors } from '../../lib/detection/detect';
import { viewCalendar } from '../../lib/process-job/detectors';
import type { DetectorType } from '../../lib/detection/params';
import { type Dataset, holidaySpecialDates, PEDESTRIAN_COLLAPSE } from './datasets';
import {
  collapseFound,
  falseBefore,
  flagDays,
  foundAsOne,
  overlongPeriods,
  PERIOD_DAYS,
  robustZBaseline,
  type Score,
  type Span,
  scoreSpans,
  scoringFrame,
  touchesScored,
  unionSpans,
  wowBaseline,
} from './score';
import { createView, loadAndProcess, readAnomalies, type ServiceEnv, writeSourceTable } from './service';

/** The single-series detectors of the real-data views, each on its definition defaults (params {}). */
export const REAL_DETECTORS: readonly DetectorType[] = [
  'dod',
  'wow',
  'spike',
  'dt',
  'changepoint',
  'gap',
  'mom',
  'qoq',
  'mpy',
  'cw',
];

export interface Variant {
  /** Label of the run, e.g. 'no special dates'. */
  name: string;
  /** Holidays configured as special dates (impact both) with useSpecialDates on every detector. */
  specialDates: boolean;
  /** No listed dates: the country's public-holiday calendar (analysis.calendar), e.g. US. */
  calendar?: string;
}

export function variantsOf(ds: Dataset): Variant[] {
  if (ds.kind === 'births')
    return [
      { name: 'without special dates', specialDates: false },
      { name: 'holidays as special dates', specialDates: true },
      { name: 'calendar: {country: US}, no listed dates', specialDates: false, calendar: 'US' },
    ];
  return [{ name: 'defaults', specialDates: false }];
}

/** The detector configs of a run: params {} (definition defaults), useSpecialDates when the variant says so. */
export function detectorConfigs(types: readonly DetectorType[], variant: Variant) {
  return types.map((type) => ({
    type,
    params: variant.specialDates || variant.calendar ? { useSpecialDates: true } : {},
  }));
}

/** Anomalies per detector code from the engine in process (fast mode). */
export function runEngine(ds: Dataset, variant: Variant, types = REAL_DETECTORS): Map<string, Span[]> {
  const s = ds.series;
  const detectors = resolveDetectors(detectorConfigs(types, variant));
  const n = s.values.length;
  const calendar = variant.specialDates
    ? buildSpecialCalendar({ specialDates: holidaySpecialDates(ds.labels) }, s.day0, s.day0 + n - 1)
    : variant.calendar
      ? // As the process job builds it from the definition.
        viewCalendar({ calendar: { country: variant.calendar, periods: false } }, s.day0, s.day0 + n - 1)
      : undefined;
  const out = new Map<string, Span[]>();
  for (const d of detectors) out.set(d.impl.code, []);
  const drafts = detectSeries(
    // As the service sees a view whose count is the constant 1: the value is an amount in its own unit.
    {
      seriesId: 1,
      dayIndex0: s.day0,
      values: s.values,
      present: s.present,
      totalValues: s.values,
      measureKind: 'amount',
    },
    detectors,
    { calendar },
  );
  for (const a of drafts)
    (out.get(a.type) as Span[]).push({ start: a.startDay, end: a.endDay, result: a.result, type: a.type });
  return out;
}

/** Anomalies per detector code through the service: source table, pgsql connector, load job, process job, all_anomalies. */
export async function runService(
  env: ServiceEnv,
  ds: Dataset,
  variant: Variant,
  types = REAL_DETECTORS,
): Promise<Map<string, Span[]>> {
  const name =
    `${ds.series.name}${variant.specialDates ? '_special' : variant.calendar ? '_calendar' : ''}`.toLowerCase();
  const rows = ds.series.rows;
  await writeSourceTable(env.source, {
    name,
    categories: [{ name: 'series' }],
    rows: rows.length,
    row: (i) => [epochDayToYyyymmdd(rows[i][0]), ds.series.name, rows[i][1], 1],
  });
  const viewId = await createView(env.db, {
    name,
    categories: [{ name: 'series' }],
    countExpr: '1',
    detectors: detectorConfigs(types, variant),
    analysis: variant.specialDates
      ? { specialDates: holidaySpecialDates(ds.labels) }
      : variant.calendar
        ? { calendar: { country: variant.calendar, periods: false } }
        : {},
  });
  await loadAndProcess(env, viewId);
  const out = new Map<string, Span[]>();
  for (const d of resolveDetectors(detectorConfigs(types, variant))) out.set(d.impl.code, []);
  for (const a of await readAnomalies(env.db, viewId, ['series'])) {
    // The series itself (the total '*' holds the same values); the value measure (count is the constant 1).
    if (a.categories.series !== ds.series.name || a.measure !== 'value') continue;
    const list = out.get(a.type) ?? [];
    list.push({ start: toEpochDay(a.startDate), end: toEpochDay(a.endDate), result: a.result, type: a.type });
    out.set(a.type, list);
  }
  return out;
}

export interface Check {
  name: string;
  target: string;
  value: string;
  pass: boolean;
}

export interface Row {
  name: string;
  kind: 'detector' | 'union' | 'baseline';
  spans: Span[];
  score: Score;
  /** Dataset-specific figures shown as extra columns. */
  extra: Record<string, string>;
}

export interface RealResult {
  dataset: string;
  variant: string;
  days: number;
  scoredDays: number;
  rows: Row[];
  checks: Check[];
  /** Further detail printed under the checks. */
  notes: string[];
}

const LONG_EVENT_DAYS = 14;
const fmt = (x: number | null, d = 3) => (x === null ? 'n/a' : x.toFixed(d));

/** Scores the anomalies of every detector, the union and the baselines on one dataset and variant. */
export function evaluateDataset(ds: Dataset, variant: Variant, byType: Map<string, Span[]>): RealResult {
  const s = ds.series;
  const frame = scoringFrame(s.day0, s.present, ds.labels);
  const rows: Row[] = [];
  const add = (name: string, kind: Row['kind'], spans: Span[]) =>
    rows.push({ name, kind, spans, score: scoreSpans(frame, spans, ds.labels), extra: {} });
  for (const [type, spans] of byType) add(type, 'detector', spans);
  add('union', 'union', unionSpans([...byType.values()]));
  const dayTypes = ['DOD', 'WOW', 'Spike', 'DT', 'ChangePoint'];
  add(
    'union of DOD, WOW, Spike, DT, ChangePoint',
    'union',
    unionSpans([...byType].filter(([t]) => dayTypes.includes(t)).map(([, v]) => v)),
  );
  add('robust z (8 same weekdays, |z|>3.5)', 'baseline', robustZBaseline(s.day0, s.values, s.present));
  add('WOW ±15 %', 'baseline', wowBaseline(s.day0, s.values, s.present));
  const detectorRows = rows.filter((r) => r.kind === 'detector');
  const union = rows.find((r) => r.kind === 'union') as Row;
  const checks: Check[] = [];
  const notes: string[] = [];

  if (ds.kind === 'page_views') {
    const long = ds.labels
      .map((w, i) => ({ w, kind: ds.labelKinds?.[i] ?? '' }))
      .filter(({ w, kind }) => kind !== 'gap' && w.end - w.start + 1 >= LONG_EVENT_DAYS);
    for (const r of rows) {
      const found = long.filter(({ w }) => foundAsOne(r.spans, w).pass).length;
      r.extra['long events as one'] = `${found}/${long.length}`;
    }
    checks.push({
      name: 'every injected window hit (union)',
      target: `${union.score.windows}/${union.score.windows}`,
      value: `${union.score.windowsHit}/${union.score.windows}`,
      pass: union.score.windowsHit === union.score.windows,
    });
    for (const { w } of long) {
      const by = detectorRows.filter((r) => foundAsOne(r.spans, w).pass).map((r) => r.name);
      const closest = detectorRows
        .map((r) => foundAsOne(r.spans, w).best)
        .filter((b): b is Span => b !== null)
        .sort(
          (a, b) =>
            Math.abs(a.start - w.start) +
            Math.abs(a.end - w.end) -
            (Math.abs(b.start - w.start) + Math.abs(b.end - w.end)),
        )[0];
      checks.push({
        name: `${w.name} found as one anomaly (start ±1 d, duration ±20 %)`,
        target: `some detector; ${w.end - w.start + 1} d from ${fromEpochDay(w.start)}`,
        value:
          by.length > 0
            ? `by ${by.join(', ')}`
            : closest
              ? `closest ${closest.type} ${fromEpochDay(closest.start)}, ${closest.end - closest.start + 1} d`
              : 'nothing overlaps',
        pass: by.length > 0,
      });
    }
    checks.push({
      name: 'false anomalies per 100 days (union)',
      target: '≤ 1',
      value: fmt(union.score.falsePer100Days, 2),
      pass: union.score.falsePer100Days <= 1,
    });
  } else if (ds.kind === 'pedestrians') {
    const collapse = toEpochDay(PEDESTRIAN_COLLAPSE);
    const before = toEpochDay('2020-01-01');
    const periodic = (name: string) => name in PERIOD_DAYS;
    for (const r of rows) {
      const c = collapseFound(r.spans, collapse, 7, periodic(r.name));
      r.extra['collapse: negative starts ±7 d'] = String(c.negativeStarts);
      r.extra['false/100 d before 2020'] = fmt(falseBefore(frame, r.spans, ds.labels, before).per100, 2);
    }
    const judged = detectorRows.filter((r) => r.name !== 'Gap');
    const passing = judged.filter((r) => collapseFound(r.spans, collapse, 7, periodic(r.name)).pass);
    checks.push({
      name: `March 2020 collapse (${PEDESTRIAN_COLLAPSE}) as one negative anomaly starting within 7 days (a period detector: or its period holding the day), per detector`,
      target: `${judged.length}/${judged.length} (Gap not judged)`,
      value: `${passing.length}/${judged.length}${
        judged.length > passing.length
          ? `; missed: ${judged
              .filter((r) => !passing.includes(r))
              .map(
                (r) => `${r.name} (${collapseFound(r.spans, collapse, 7, periodic(r.name)).negativeStarts})`,
              )
              .join(', ')}`
          : ''
      }`,
      pass: passing.length === judged.length,
    });
    const fb = falseBefore(frame, union.spans, ds.labels, before);
    checks.push({
      name: 'false anomalies per 100 days before 2020 (union)',
      target: '≤ 1',
      value: `${fmt(fb.per100, 2)} (${fb.falseAnomalies} in ${fb.days} d)`,
      pass: fb.per100 <= 1,
    });
  } else if (ds.kind === 'births') {
    const flags = flagDays(frame, union.spans);
    const byHoliday = new Map<string, [number, number]>();
    for (const w of ds.labels) {
      if (!touchesScored(frame, w)) continue;
      const name = (w.name ?? '').replace(/^\d{4} /, '');
      const t = byHoliday.get(name) ?? [0, 0];
      t[1]++;
      for (let d = w.start; d <= w.end; d++)
        if (flags[d - frame.day0]) {
          t[0]++;
          break;
        }
      byHoliday.set(name, t);
    }
    notes.push(
      `Holidays alarmed by the union: ${[...byHoliday].map(([n, [h, all]]) => `${n} ${h}/${all}`).join(', ')}.`,
    );
    for (const r of rows) {
      r.extra['holidays alarmed'] =
        r.score.windows === 0 ? 'n/a' : `${((r.score.windowsHit / r.score.windows) * 100).toFixed(1)} %`;
    }
    if (!variant.specialDates && !variant.calendar) {
      const p = union.score.precision ?? 0;
      const rc = union.score.recall ?? 0;
      checks.push({
        name: 'union precision at recall ≥ 0.9 (no special dates)',
        target: 'P ≥ 0.7, R ≥ 0.9',
        value: `P ${fmt(union.score.precision)}, R ${fmt(union.score.recall)}`,
        pass: p >= 0.7 && rc >= 0.9,
      });
    } else {
      const share = union.score.windows === 0 ? 0 : union.score.windowsHit / union.score.windows;
      checks.push({
        name: variant.calendar
          ? `holidays alarmed with calendar: {country: ${variant.calendar}} and no listed dates (union)`
          : 'holidays alarmed with holidays as special dates (union)',
        target: '≤ 5 %',
        value: `${(share * 100).toFixed(1)} % (${union.score.windowsHit}/${union.score.windows})`,
        pass: share <= 0.05,
      });
    }
  }
  const long = overlongPeriods(detectorRows.flatMap((r) => r.spans));
  const over = Object.entries(long).filter(([, [n]]) => n > 0);
  checks.push({
    name: 'no period anomaly longer than its period (MOM/MPY 31 d, QOQ 92 d, CW 7 d)',
    target: '0',
    value:
      over.length === 0
        ? `0 (longest: ${
            Object.entries(long)
              .map(([t, [, d]]) => `${t} ${d} d`)
              .join(', ') || 'none'
          })`
        : over.map(([t, [n, d]]) => `${t} ${n} (longest ${d} d)`).join(', '),
    pass: over.length === 0,
  });
  return {
    dataset: ds.series.name,
    variant: variant.name,
    days: s.values.length,
    scoredDays: frame.scoredDays,
    rows,
    checks,
    notes,
  };
}

/** Markdown of one dataset result: the table of rows and the checks. */
export function renderReal(r: RealResult): string {
  const extras = [...new Set(r.rows.flatMap((x) => Object.keys(x.extra)))];
  const head = [
    'Detector',
    'Anomalies',
    'Windows hit',
    'Flagged days',
    'P (day)',
    'R (day)',
    'F1 (day)',
    'False anomalies',
    'False /100 d',
    ...extras,
  ];
  const lines = [
    `#### ${r.dataset} — ${r.variant} (${r.days} days, ${r.scoredDays} scored)`,
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
  ];
  for (const row of r.rows) {
    const s = row.score;
    const name =
      row.kind === 'union' ? `**${row.name}**` : row.kind === 'baseline' ? `_${row.name}_` : row.name;
    lines.push(
      `| ${[
        name,
        s.anomalies,
        `${s.windowsHit}/${s.windows}`,
        s.flaggedDays,
        fmt(s.precision),
        fmt(s.recall),
        fmt(s.f1),
        s.falseAnomalies,
        fmt(s.falsePer100Days, 2),
        ...extras.map((e) => row.extra[e] ?? ''),
      ].join(' | ')} |`,
    );
  }
  lines.push('', '| Check | Target | Measured | |', '|---|---|---|---|');
  for (const c of r.checks)
    lines.push(`| ${c.name} | ${c.target} | ${c.value} | ${c.pass ? 'PASS' : '**FAIL**'} |`);
  lines.push('');
  for (const n of r.notes) lines.push(n, '');
  return lines.join('\n');
}
