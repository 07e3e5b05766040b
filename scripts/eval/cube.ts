/**
 * The synthetic hotel cube through the service (issue 16 Deliver 6, issue 17 Deliver 6): load,
 * process with every detector type on params {}, then
 * - anomalies per 100 series-days and the share of injections found on their own series (an
 *   anomaly of any detector and measure on the injected series overlapping the injection ±1 day);
 * - the ranking: the filter query use case (runFilterDefinition, the code of POST /anomalies/query)
 *   sorted by SIN, Change % and Date with limit 100; a record counts when an injection overlapping
 *   its window ±1 day, on its series or a descendant of it, moved the record's series by ≥ 10 %.
 */
import { fromEpochDay } from '../../lib/calendar/days';
import { runFilterDefinition } from '../../lib/anomalies/run';
import { DETECTOR_TYPES } from '../../lib/detection/params';
import type { FilterDefinition, SortBy } from '../../lib/filters/types';
import { MAX_CUSTOM_RANGE_DAYS } from '../../lib/filters/time-range';
import { systemCaller } from '../../lib/identity/caller';
import { systemClock } from '../../lib/shared/clock';
import {
  CUBE_CATEGORIES,
  type CubeKey,
  overlaps,
  generateCube,
  type CubeOptions,
  keyText,
  movedShare,
} from '../synthetic/cube';
import { overlongPeriods } from './score';
import { hotelCubeLike } from './incident-cube';
import { incidentFigures, type IncidentResult } from './incidents';
import { createView, loadAndDetect, readAnomalies, type ServiceEnv, writeSourceTable } from './service';

const CATS = CUBE_CATEGORIES.map((c) => c.name);

export interface RankingFigure {
  sortBy: SortBy;
  top20: number;
  top100: number;
  returned: number;
  /** Unexplained negative records within the last 3 days that end on the last day (an incomplete day read as a drop). */
  lastDayDrops: number;
  /** The first records that no injection explains, for the report. */
  unexplained: string[];
}

export interface CubeResult {
  name: string;
  series: number;
  days: number;
  sourceRows: number;
  injections: number;
  anomalies: number;
  per100SeriesDays: number;
  byType: Record<string, number>;
  byMeasure: Record<string, number>;
  found: number;
  /** Period anomalies longer than their period, per type: [count, longest]. */
  overlong: Record<string, [number, number]>;
  foundByKind: Record<string, [number, number]>;
  foundByType: Record<string, number>;
  ranking: RankingFigure[];
  mergeEvents: boolean;
  /** Share of the last day's rows present, when the cube's last day is incomplete. */
  lastDayShare?: number;
  seconds: { generate: number; write: number; loadProcess: number; ranking: number };
  /** Incidents of the cube (issue 28). */
  incidents: IncidentResult;
}

const keyOf = (c: Record<string, string | null | undefined>): CubeKey => ({
  district: c.district ?? null,
  hotel: c.hotel ?? null,
  room_type: c.room_type ?? null,
  channel: c.channel ?? null,
});

export async function runCube(env: ServiceEnv, name: string, options: CubeOptions): Promise<CubeResult> {
  let t = performance.now();
  const lap = () => {
    const s = (performance.now() - t) / 1000;
    t = performance.now();
    return s;
  };
  const progress = (what: string, seconds: number) =>
    process.stderr.write(`eval ${name}: ${what} in ${seconds.toFixed(1)} s\n`);
  const cube = generateCube(options);
  const generate = lap();
  progress(
    `generated ${cube.seriesCount} series, ${cube.rows} source rows, ${cube.injections.length} injections`,
    generate,
  );
  const yyyymmdd = (i: number) => Number(fromEpochDay(cube.day0 + i).replace(/-/g, ''));
  await writeSourceTable(env.source, {
    name,
    categories: CUBE_CATEGORIES,
    rows: cube.rows,
    row: (i) => {
      const leaf = cube.leaves[cube.rowLeaf[i]];
      return [
        yyyymmdd(cube.rowDay[i]),
        leaf.district,
        leaf.hotel,
        leaf.room_type,
        leaf.channel,
        cube.rowAmount[i],
        cube.rowCount[i],
      ];
    },
  });
  const write = lap();
  progress('source table written', write);
  const viewId = await createView(env.db, {
    name,
    categories: CUBE_CATEGORIES,
    countExpr: 'cnt',
    detectors: DETECTOR_TYPES.map((type) => ({ type, params: {} })),
    analysis: cube.specialDates as never,
  });
  const detectionMs = await loadAndDetect(env, viewId);
  const loadProcess = lap();
  progress('loaded and processed', loadProcess);
  const incidents = await incidentFigures(
    env,
    name,
    viewId,
    hotelCubeLike(cube, CUBE_CATEGORIES),
    detectionMs,
  );
  progress(`incidents built and scored (${incidents.after.incidents} incidents)`, lap());
  const stored = await readAnomalies(env.db, viewId, CATS);

  const byType: Record<string, number> = {};
  const byMeasure: Record<string, number> = {};
  for (const a of stored) {
    byType[a.type] = (byType[a.type] ?? 0) + 1;
    byMeasure[a.measure] = (byMeasure[a.measure] ?? 0) + 1;
  }
  const day = (iso: string) => Math.round(Date.parse(iso) / 86_400_000) - cube.day0;
  const bySeries = new Map<string, typeof stored>();
  for (const a of stored) {
    const k = keyText(keyOf(a.categories));
    bySeries.set(k, [...(bySeries.get(k) ?? []), a]);
  }
  const overlong = overlongPeriods(
    stored.map((a) => ({ start: day(a.startDate), end: day(a.endDate), type: a.type })),
  );
  let found = 0;
  const foundByKind: Record<string, [number, number]> = {};
  const foundByType: Record<string, number> = {};
  for (const inj of cube.injections) {
    const mine = (bySeries.get(keyText(inj.key)) ?? []).filter(
      (a) => day(a.startDate) <= inj.end + 1 && inj.start - 1 <= day(a.endDate),
    );
    const fk = foundByKind[inj.kind] ?? [0, 0];
    fk[1]++;
    if (mine.length > 0) {
      found++;
      fk[0]++;
    }
    foundByKind[inj.kind] = fk;
    for (const type of new Set(mine.map((a) => a.type))) foundByType[type] = (foundByType[type] ?? 0) + 1;
  }

  const ranking: RankingFigure[] = [];
  let mergeEvents = false;
  for (const sortBy of ['SIN', 'Change %', 'Date'] as SortBy[]) {
    const body: Partial<FilterDefinition> & { mergeEvents?: boolean } = {
      name: 'eval',
      timeRange: 'Custom',
      // A Custom range covers at most MAX_CUSTOM_RANGE_DAYS: the ranking reads the last two years.
      dateFrom: fromEpochDay(Math.max(cube.day0, cube.day0 + cube.days - MAX_CUSTOM_RANGE_DAYS)),
      dateTo: fromEpochDay(cube.day0 + cube.days - 1),
      dataViews: `eval / ${name}`,
      sortBy,
      limit: 100,
      mergeEvents: true,
    };
    const answer = await runFilterDefinition(
      { db: env.db, clock: systemClock, timeZone: 'UTC' },
      systemCaller(),
      body,
      true,
    );
    const records = answer.anomalies as Array<
      (typeof answer.anomalies)[number] & { types?: string[]; measure?: string }
    >;
    if (records.some((r) => Array.isArray(r.types))) mergeEvents = true;
    const explained = records.map((r) => {
      const key = keyOf(r.categories);
      const s = day(r.startDate);
      const e = day(r.endDate);
      const measure = r.measure === 'count' ? 'count' : 'value';
      return cube.injections.some(
        (inj) =>
          inj.start <= e + 1 &&
          s - 1 <= inj.end &&
          overlaps(key, inj.key) &&
          movedShare(cube, inj, key, measure) >= 0.1,
      );
    });
    if (
      process.env.EVAL_DEBUG === sortBy ||
      (process.env.EVAL_DEBUG && sortBy === 'SIN' && process.env.EVAL_DEBUG === '1')
    )
      records.slice(0, Number(process.env.EVAL_DEBUG_N ?? 25)).forEach((r, i) => {
        const x = r as unknown as Record<string, unknown>;
        const f = (v: unknown) => (typeof v === 'number' ? v.toFixed(2) : String(v));
        console.error(
          `${explained[i] ? ' ' : 'X'} ${i + 1} ${(r.types ?? [r.type]).join('+')} ${r.measure} ${keyText(keyOf(r.categories))} ${r.startDate}..${r.endDate} d=${x.duration} ch=${f(r.changePct)} sh=${f(x.sharePct)} sin=${f(x.sin)} rec=${x.recurrence}`,
        );
      });
    const count = (n: number) => explained.slice(0, n).filter(Boolean).length;
    // A record of the incomplete last day: it lies within the last 3 days and ends on the last day.
    const lastDay = fromEpochDay(cube.day0 + cube.days - 1);
    const tailFrom = fromEpochDay(cube.day0 + cube.days - 3);
    const lastDayDrops = records.filter(
      (r, i) => !explained[i] && r.endDate === lastDay && r.startDate >= tailFrom && r.result === 'Negative',
    ).length;
    ranking.push({
      sortBy,
      top20: count(20),
      top100: count(100),
      returned: records.length,
      lastDayDrops,
      unexplained: records
        .slice(0, 20)
        .filter((_, i) => !explained[i])
        .slice(0, Number(process.env.EVAL_UNEXPLAINED ?? 5))
        .map(
          (r) =>
            `${(r.types ?? [r.type]).join('+')} ${keyText(keyOf(r.categories))} ${r.startDate}..${r.endDate} ${
              r.changePct === null ? 'n/a' : `${r.changePct.toFixed(0)} %`
            }`,
        ),
    });
  }
  const rankingSeconds = lap();
  return {
    name,
    series: cube.seriesCount,
    days: cube.days,
    sourceRows: cube.rows,
    injections: cube.injections.length,
    anomalies: stored.length,
    per100SeriesDays: (stored.length / (cube.seriesCount * cube.days)) * 100,
    byType,
    byMeasure,
    found,
    overlong,
    foundByKind,
    foundByType,
    ranking,
    mergeEvents,
    lastDayShare: options.lastDayShare,
    incidents,
    seconds: { generate, write, loadProcess, ranking: rankingSeconds },
  };
}

const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

/** The cube's targets (issue 16: volume and injections found; issue 17: top 20 and top 100 by SIN). */
export function cubeTargets(r: CubeResult): { name: string; target: string; value: string; pass: boolean }[] {
  const share = r.injections === 0 ? 0 : r.found / r.injections;
  const sin = r.ranking.find((f) => f.sortBy === 'SIN');
  const out = [
    {
      name: 'anomalies per 100 series-days',
      target: '≤ 1',
      value: `${r.per100SeriesDays.toFixed(2)} (${r.anomalies})`,
      pass: r.per100SeriesDays <= 1,
    },
    {
      name: 'injections found on their own series',
      target: '≥ 90 %',
      value: `${(share * 100).toFixed(1)} % (${r.found}/${r.injections})`,
      pass: share >= 0.9,
    },
  ];
  const over = Object.entries(r.overlong).filter(([, [n]]) => n > 0);
  out.push({
    name: 'period anomalies longer than their period',
    target: '0',
    value: over.length === 0 ? '0' : over.map(([t, [n, d]]) => `${t} ${n} (longest ${d} d)`).join(', '),
    pass: over.length === 0,
  });
  const byDate = r.ranking.find((f) => f.sortBy === 'Date');
  // The incomplete-last-day variant is there for its last day; its other figures are in its own table.
  if (r.lastDayShare !== undefined && byDate)
    return [
      {
        name: `unexplained drops on the incomplete last day (${Math.round(r.lastDayShare * 100)} % of its rows) in the top 100 by Date`,
        target: '0',
        value: String(byDate.lastDayDrops),
        pass: byDate.lastDayDrops === 0,
      },
    ];
  if (sin)
    out.push(
      { name: 'top 20 by SIN explained', target: '≥ 18/20', value: `${sin.top20}/20`, pass: sin.top20 >= 18 },
      {
        name: 'top 100 by SIN explained',
        target: '≥ 70/100',
        value: `${sin.top100}/100`,
        pass: sin.top100 >= 70,
      },
    );
  return out;
}

export function renderCube(r: CubeResult): string {
  const share = r.injections === 0 ? 0 : r.found / r.injections;
  const lines = [
    `#### Synthetic cube ${r.name}: ${r.series} series × ${r.days} days, ${r.sourceRows} source rows, ${r.injections} injections${
      r.lastDayShare === undefined
        ? ''
        : `, last day incomplete (${Math.round(r.lastDayShare * 100)} % of its rows)`
    }`,
    '',
    `Every detector type on params {}; load + process ${r.seconds.loadProcess.toFixed(1)} s, source write ${r.seconds.write.toFixed(1)} s, ranking queries ${r.seconds.ranking.toFixed(1)} s.`,
    '',
    '| Figure | Target | Measured | |',
    '|---|---|---|---|',
    `| anomalies per 100 series-days | ≤ 1 | ${r.per100SeriesDays.toFixed(2)} (${r.anomalies}) | ${mark(r.per100SeriesDays <= 1)} |`,
    `| injections found on their own series | ≥ 90 % | ${(share * 100).toFixed(1)} % (${r.found}/${r.injections}) | ${mark(share >= 0.9)} |`,
  ];
  for (const f of r.ranking) {
    const sin = f.sortBy === 'SIN';
    lines.push(
      `| top 20 by ${f.sortBy}${r.mergeEvents ? ' (events merged)' : ''} | ${sin ? '≥ 18/20' : '—'} | ${f.top20}/20 | ${sin ? mark(f.top20 >= 18) : ''} |`,
      `| top 100 by ${f.sortBy}${r.mergeEvents ? ' (events merged)' : ''} | ${sin ? '≥ 70/100' : '—'} | ${f.top100}/100 (${f.returned} returned; unexplained drops on the last day: ${f.lastDayDrops}) | ${sin ? mark(f.top100 >= 70) : ''} |`,
    );
  }
  lines.push(
    '',
    `Anomalies by type: ${Object.entries(r.byType)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; by measure: ${Object.entries(r.byMeasure)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    `Injections found by kind: ${Object.entries(r.foundByKind)
      .map(([k, [a, b]]) => `${k} ${a}/${b}`)
      .join(', ')}; by type (on their own series): ${Object.entries(r.foundByType)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
  );
  for (const f of r.ranking)
    if (f.unexplained.length)
      lines.push(
        `Unexplained in the top 20 by ${f.sortBy} (first ${f.unexplained.length}): ${f.unexplained.join('; ')}.`,
        '',
      );
  return lines.join('\n');
}
