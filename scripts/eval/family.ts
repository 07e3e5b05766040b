/**
 * The cube family through the service (issue 41 item 4, docs/detection-quality.md "The cube family"):
 * each cube of scripts/synthetic/family-cube.ts is written to a source table, loaded and processed with
 * every detector on params {} (its holidays listed as special dates and a Christmas–New Year period, as a
 * user configures a view today, or none), its incidents built by the incident step, and read as Home
 * reads them: a filter with `incidents: true` sorted by SIN over the whole history, and "Last 7 Days"
 * at the day after the cube's last day (a partial last day is then yesterday).
 */
import { fromEpochDay } from '../../lib/calendar/days';
import { runFilterDefinition } from '../../lib/anomalies/run';
import { schemaNameFor } from '../../lib/dataset/ddl';
import { DETECTOR_TYPES } from '../../lib/detection/params';
import type { AnomalyRecord } from '../../lib/filters/types';
import { systemCaller } from '../../lib/identity/caller';
import { buildIncidents } from '../../lib/incidents/step';
import { fixedClock } from '../../lib/shared/clock';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FamilyCube, generateFamilyCube } from '../synthetic/family-cube';
import { type FamilyFigures, scoreFamily } from './family-score';
import {
  type CubeLike,
  keyTextOf,
  levelName,
  movedShareOf,
  overlapsKey,
  type SeriesKey,
} from './incident-cube';
import { wholeHistoryRows } from './incidents';
import { type IncidentRow, matchInjections } from './incident-score';
import { createView, loadAndDetect, openServiceEnv, type ServiceEnv, writeSourceTable } from './service';

export type FamilyCalendar = 'listed' | 'country' | 'none';

/** The family's seeds: cube i has seed FAMILY_SEED0 + i. */
export const FAMILY_SEED0 = 1000;
export const FAMILY_SIZE = 12;

export function familyCubeLike(cube: FamilyCube): CubeLike {
  const categories = cube.shape.categories.map((c) =>
    c.parent ? { name: c.name, parent: c.parent } : { name: c.name },
  );
  const like: CubeLike = {
    categories,
    values: cube.shape.categories.map((c) => c.values),
    day0: cube.day0,
    days: cube.days,
    leaves: cube.leaves,
    expectedValue: cube.expectedValue,
    expectedCount: cube.expectedCount,
    injections: cube.injections.map((inj) => ({ ...inj, key: [...inj.key] })),
    countVariance: (l, t) => {
      const m = cube.expectedCount[l * cube.days + t];
      return m + (m * m) / cube.leafShape[l] + (cube.shock * m) ** 2;
    },
    overlaps: overlapsKey,
    movedShare: (k, key, measure) => movedShareOf(like, k, key, measure),
    levelOf: (key) => levelName(categories, key),
    keyText: (key) => keyTextOf(like, key),
  };
  return like;
}

function keyOf(like: CubeLike, categories: Record<string, string | null>): SeriesKey {
  return like.categories.map((c, i) => {
    const v = categories[c.name];
    return v === null || v === undefined ? 0 : like.values[i].indexOf(v) + 1;
  });
}

export function rowsOf(like: CubeLike, records: readonly AnomalyRecord[]): IncidentRow[] {
  const day = (iso: string) => Math.round(Date.parse(`${iso}T00:00:00Z`) / 86_400_000) - like.day0;
  return records.map((r) => {
    const inc = r.incident;
    const broad = keyOf(like, inc?.broad.categories ?? r.categories);
    return {
      broad,
      causes: inc ? inc.rootCauses.map((c) => keyOf(like, c.categories)) : [broad],
      start: day(inc?.startDate ?? r.startDate),
      end: day(inc?.endDate ?? r.endDate),
      sin: r.incident?.standing ?? r.sin ?? 0,
      measure: r.measure,
      broadCause: inc?.rootCauses[0]?.broad ?? false,
      label: `${(r.types ?? [r.type]).join('+')} ${r.measure} ${r.changePct === null ? '' : `${r.changePct.toFixed(0)}%`}${inc ? ` n=${inc.size} causes=${inc.rootCauses.map((c) => `${like.keyText(keyOf(like, c.categories))}(${c.explainsPct.toFixed(0)}%)`).join(',')}` : ''}`,
    };
  });
}

/** Incident rows of the view over the whole history, each once. */
const wholeHistory = (env: ServiceEnv, name: string, like: CubeLike) =>
  wholeHistoryRows(env, name, like, { incidents: true }, { members: process.env.FAMILY_DUMP !== undefined });

/** Home's "what changed in the last 7 days": the day after the last day is today. */
async function lastSevenDays(env: ServiceEnv, name: string, like: CubeLike): Promise<AnomalyRecord[]> {
  const today = `${fromEpochDay(like.day0 + like.days)}T08:00:00Z`;
  const { anomalies } = await runFilterDefinition(
    { db: env.db, clock: fixedClock(today), timeZone: 'UTC' },
    systemCaller(),
    {
      name: 'home',
      timeRange: 'Last 7 Days',
      dataViews: `eval / ${name}`,
      sortBy: 'SIN',
      limit: 100,
      incidents: true,
    },
    true,
    { members: process.env.FAMILY_DUMP !== undefined },
  );
  return anomalies;
}

function sourceRows(cube: FamilyCube) {
  const yyyymmdd = (i: number) => Number(fromEpochDay(cube.day0 + i).replace(/-/g, ''));
  return (i: number) => [
    yyyymmdd(cube.rowDay[i]),
    ...cube.leaves[cube.rowLeaf[i]].map((code, k) => cube.shape.categories[k].values[code - 1]),
    cube.rowAmount[i],
    cube.rowCount[i],
  ];
}

/**
 * The view's holiday settings: `listed`, its country's holidays as special dates and 12.24–01.01 as a
 * special period (as users configured a view before calendars); `country`, `calendar: {country}` with
 * its periods (Christmas Eve to the first working day), as a user configures one now (England for GB,
 * whose holidays the generator draws); `none`, nothing.
 */
function analysisOf(cube: FamilyCube, calendar: FamilyCalendar): never {
  if (calendar === 'listed') return cube.specialDates as never;
  if (calendar === 'country') {
    // The generator's British holidays are England's (the August bank holiday): a user there names the state.
    const state = cube.shape.country === 'GB' ? { state: 'ENG' } : {};
    return { calendar: { country: cube.shape.country, ...state, periods: true } } as never;
  }
  return {} as never;
}

/** FAMILY_DUMP=<dir>: the cube's incident rows with their members and the injection each is, for study. */
function dumpRows(
  dir: string,
  name: string,
  like: CubeLike,
  whole: AnomalyRecord[],
  seven: AnomalyRecord[],
): void {
  const slim = (r: AnomalyRecord) => ({
    ...r,
    comments: undefined,
    members: r.members?.map((m) => ({ ...m, comments: undefined, members: undefined, incident: undefined })),
  });
  const wholeMatch = matchInjections(like, rowsOf(like, whole));
  const sevenMatch = matchInjections(like, rowsOf(like, seven));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `${name}.json`),
    JSON.stringify({
      name,
      injections: like.injections.length,
      whole: whole.map((r, i) => ({ match: wholeMatch[i], row: slim(r) })),
      seven: seven.map((r, i) => ({ match: sevenMatch[i], row: slim(r) })),
    }),
  );
}

/** One cube of the family through the service, in a database of its own. */
export async function runFamilyCube(
  seed: number,
  index: number,
  calendar: FamilyCalendar,
): Promise<FamilyFigures> {
  const name = `family_${seed}`;
  const t0 = performance.now();
  const cube = generateFamilyCube(seed, index);
  const like = familyCubeLike(cube);
  // FAMILY_CACHE=<dir>: each cube's service database is kept there after detection and reused by later
  // runs of the same calendar (only the incident step and the reading run again), for work on incidents.
  const cacheDir = process.env.FAMILY_CACHE
    ? path.join(process.env.FAMILY_CACHE, `${name}-${calendar}`)
    : undefined;
  const cached = cacheDir !== undefined && existsSync(path.join(cacheDir, 'view.json'));
  const env = await openServiceEnv({ onDisk: true, keepDir: cacheDir });
  try {
    let viewId: number;
    if (cached) viewId = JSON.parse(readFileSync(path.join(cacheDir, 'view.json'), 'utf8')).viewId;
    else {
      await writeSourceTable(env.source, {
        name,
        categories: like.categories,
        rows: cube.rows,
        row: sourceRows(cube),
      });
      viewId = await createView(env.db, {
        name,
        categories: like.categories,
        countExpr: 'cnt',
        detectors: DETECTOR_TYPES.map((type) => ({ type, params: {} })),
        analysis: analysisOf(cube, calendar),
      });
      await loadAndDetect(env, viewId);
      if (cacheDir) writeFileSync(path.join(cacheDir, 'view.json'), JSON.stringify({ viewId }));
    }
    const step = await buildIncidents(
      { db: env.db },
      { id: viewId, source: { schema: schemaNameFor(viewId), fill: 'zero' }, categories: like.categories },
      null,
    );
    const whole = await wholeHistory(env, name, like);
    const seven = await lastSevenDays(env, name, like);
    const rows = rowsOf(like, whole);
    const recent = rowsOf(like, seven);
    if (process.env.FAMILY_DUMP) dumpRows(process.env.FAMILY_DUMP, name, like, whole, seven);
    const figures = scoreFamily(cube, like, rows, recent, step.records);
    figures.seconds = (performance.now() - t0) / 1000;
    process.stderr.write(
      `eval ${name}: ${figures.summary} in ${figures.seconds.toFixed(0)} s\n${figures.detail}\n`,
    );
    return figures;
  } finally {
    await env.stop();
  }
}

export async function runFamily(
  calendar: FamilyCalendar,
  size = FAMILY_SIZE,
  seed0 = FAMILY_SEED0,
): Promise<FamilyFigures[]> {
  const out: FamilyFigures[] = [];
  for (let i = 0; i < size; i++) out.push(await runFamilyCube(seed0 + i, i, calendar));
  return out;
}
