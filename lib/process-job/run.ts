/**
 * One detection run over a deployed view: plan shards of whole peer groups, then per shard read the
 * series of every measure (value, and count and ratio when the view's counts vary: ratio.ts) as columnar
 * arrays in one query, and per measure run every detector and append the anomalies to the run's staging table (and
 * refresh the baseline tables from the value measure); finally replace the view's anomalies and
 * compute recurrence, SIN and SIM in one transaction. Memory is bounded by one shard (two while the
 * next one is read). Incomplete trailing days (incomplete.ts) are left out of the analysis. The previous anomalies stay intact until that
 * commit; a failure or a load that commits meanwhile leaves them untouched.
 */
import { alignCalendar, type SpecialCalendar } from '../calendar/special-calendar';
import { fromEpochDay } from '../calendar/days';
import type { Database } from '../db/database';
import { isIntervalMeasure, measureScales } from './scale';
import { Workspace } from '../detection/workspace';
import type { DataViewRecord } from '../dataviews/views';
import type { Logger } from '../shared/logger';
import { feedbackExclusions } from '../feedback/exclusions';
import { publishStage } from './anomaly-publish';
import { appendStage, createStage, dropStage, type Measure, stageRunIds } from './anomaly-store';
import { INCOMPLETE_DEFAULTS, incompleteTrailingDays } from './incomplete';
import { ensureBaselineTables, pruneBaselines, writeMixLinks, writeShardBaselines } from './baseline-store';
import {
  CROSS_TYPES,
  detectionContext,
  replaceFromDay,
  specialDatesCalendar,
  viewDetectors,
} from './detectors';
import { readSeriesCalendars } from './holiday-calendars';
import { mixLinks, planShards, readFingerprint, readLayout, type Shard } from './layout';
import {
  countVaries,
  readSeries,
  rowValues,
  type SeriesBlock,
  type SeriesSource,
  seriesPerDay,
  seriesSource,
} from '../dataset/series-store';
import { analysedMeasures, blocksOf, measuresToRead } from './ratio';
import { detectShardBlock, type RunSetup, shardSeriesIds } from './shard';
import { RATIO_TYPES } from '../detection/detect';

export interface DetectionDeps {
  db: Database;
  log: Logger;
  shardSize: number;
  /** Run ids (job ids) still running: their staging tables are not orphans. */
  isRunning?: (runId: number) => Promise<boolean>;
  signal?: AbortSignal;
}

export interface DetectionSummary {
  series: number;
  days: number;
  firstDate: string | null;
  lastDate: string | null;
  detectors: number;
  shards: number;
  /** Records this run published (kept ones not included): with keptAnomalies, what a query returns. */
  anomalies: number;
  /** Records the detectors reported, before publishing left out the count records that echo a value record. */
  detected: number;
  /** Older anomalies kept because they end before the scanned days (scanInLastNDays). */
  keptAnomalies: number;
  replacedFrom: string | null;
  /** The measures analysed: analysis.measures, or value, and count and ratio when the view's counts vary. */
  measures: Measure[];
  /** Trailing days left out as incomplete (their view total far below the same weekdays before). */
  incompleteDays: number;
  /** The first of those days (yyyy-MM-dd), null when none. */
  incompleteFrom: string | null;
  readMs: number;
  detectMs: number;
  writeMs: number;
  publishMs: number;
}

/** The same promise, marked as handled: it may settle while the caller is busy or has failed. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** Drops staging tables of runs that are not running any more (crashed workers). */
async function dropOrphans(deps: DetectionDeps, schema: string, runId: number): Promise<void> {
  for (const id of await stageRunIds(deps.db, schema)) {
    if (id === runId) continue;
    if (deps.isRunning && (await deps.isRunning(id))) continue;
    await dropStage(deps.db, schema, id);
  }
}

/** What one run detects over: the view's detectors, its layout and the deterministic shard plan. */
export interface RunPlan {
  viewId: number;
  schema: string;
  /** Where the view's series are read (lib/dataset/series-store.ts). */
  source: SeriesSource;
  categories: string[];
  detectors: ReturnType<typeof viewDetectors>;
  layout: Awaited<ReturnType<typeof readLayout>>;
  ctx: ReturnType<typeof detectionContext>;
  shards: Shard[];
  /** The series per shard the shards were cut with (shardSize, or larger to stay within maxShards). */
  shardSize: number;
  cross: boolean;
  /** analysis.measures, or value, and count and ratio when the view's count measure is not constant. */
  measures: Measure[];
  /** Trailing days left out of the analysis as incomplete (counted after ignoreLastNDays). */
  incompleteDays: number;
  /** The scales the definition sets per measure (scale.ts); unset: inferred from the view total. */
  scales?: Partial<Record<Measure, 'ratio' | 'interval'>>;
}

/**
 * The series per shard: `shardSize`, or as many as it takes to cut the view into at most about
 * `maxShards` shards (whole peer groups, so a shard may hold a few more).
 */
export function shardSizeWithin(
  groups: readonly { memberIds: readonly number[] }[],
  shardSize: number,
  maxShards: number,
): number {
  if (!Number.isFinite(maxShards) || maxShards < 1) return shardSize;
  const series = groups.reduce((n, g) => n + g.memberIds.length, 0);
  return Math.max(shardSize, Math.ceil(series / maxShards));
}

/** Gives `ctx` the series' own calendars when categories are marked `calendar` (holiday-calendars.ts). */
async function addSeriesCalendars(
  db: Database,
  schema: string,
  def: DataViewRecord['definition'],
  layout: { dayIndex0: number; days: number },
  ctx: ReturnType<typeof detectionContext>,
): Promise<void> {
  const fromDay = layout.dayIndex0;
  const toDay = layout.dayIndex0 + layout.days - 1;
  const calendars = await readSeriesCalendars(db, schema, {
    categories: def.categories ?? [],
    view: def.analysis?.calendar,
    base: specialDatesCalendar(def.analysis, fromDay, toDay),
    fromDay,
    toDay,
  });
  if (calendars) ctx.seriesCalendar = (id) => calendars.get(Number(id));
}

/** What planRun finds in the data beyond the layout; a fanned-out run's shards take it from the coordinator's plan. */
export type PlanFindings = Pick<RunPlan, 'incompleteDays' | 'measures'>;

/**
 * Reads the layout and plans the shards; the same data gives the same plan (fan-out relies on it).
 * `known`: the incomplete days and measures of a plan made over the same data (the same layout
 * fingerprint), which are then not looked for again (a scan of the view's newest days, the root series).
 */
export async function planRun(
  db: Database,
  view: DataViewRecord,
  shardSize: number,
  known?: PlanFindings,
  maxShards = Number.POSITIVE_INFINITY,
): Promise<RunPlan> {
  const def = view.definition;
  const detectors = viewDetectors(def);
  const schema = view.schema;
  const layout = await readLayout(db, schema, def.categories ?? []);
  const ctx = detectionContext(def.analysis, layout.dayIndex0, layout.days);
  const active = layout.days > 0 && detectors.length > 0;
  if (active) await addSeriesCalendars(db, schema, def, layout, ctx);
  const size = shardSizeWithin(layout.groups, shardSize, maxShards);
  let incompleteDays = 0;
  // The three looks at the data are independent: asked at once, the database answers them side by side.
  const source = seriesSource(view);
  const window = { dayIndex0: layout.dayIndex0, days: layout.days };
  // Whether the count varies decides the default measures (ratio.ts analysedMeasures); a definition that
  // names its measures needs no look.
  const varies =
    active && known === undefined && !def.analysis?.measures?.length
      ? quiet(countVaries(db, source, layout.rootId))
      : undefined;
  if (active && known !== undefined) {
    incompleteDays = known.incompleteDays;
    ctx.ignoreLastNDays = Math.max(0, ctx.ignoreLastNDays ?? 0) + incompleteDays;
  } else if (active && layout.rootId !== null) {
    const end = Math.max(0, layout.days - Math.max(0, ctx.ignoreLastNDays ?? 0));
    const [root, present] = await Promise.all([
      readSeries(db, source, [layout.rootId], window, ['value']).then(([b]) => b),
      seriesPerDay(db, source, window, end - INCOMPLETE_DEFAULTS.maxDays - 7 * INCOMPLETE_DEFAULTS.weeks),
    ]);
    const cal = ctx.calendar;
    const special = cal
      ? (t: number) => {
          const d = layout.dayIndex0 + t;
          return d >= cal.fromDay && d <= cal.toDay && cal.flags[d - cal.fromDay] !== 0;
        }
      : undefined;
    incompleteDays = incompleteTrailingDays(rowValues(root, 0), end, undefined, present, special);
    ctx.ignoreLastNDays = Math.max(0, ctx.ignoreLastNDays ?? 0) + incompleteDays;
  }
  return {
    viewId: view.id,
    schema,
    source,
    categories: (def.categories ?? []).map((c) => c.name),
    detectors,
    layout,
    ctx,
    shards: active ? planShards(layout.groups, size) : [],
    shardSize: size,
    cross: detectors.some((d) => CROSS_TYPES.includes(d.resolved.type)),
    measures: !active
      ? ['value']
      : known !== undefined
        ? [...known.measures]
        : analysedMeasures(def.analysis, (await varies) === true),
    incompleteDays,
    scales: measureScales(def.analysis),
  };
}

/** Creates the run's staging table (dropping orphans of crashed runs) and the tables cross detectors share. */
export async function prepareRun(deps: DetectionDeps, plan: RunPlan, runId: number): Promise<void> {
  const { db } = deps;
  await dropOrphans(deps, plan.schema, runId);
  await createStage(db, plan.schema, runId);
  if (plan.cross) await ensureBaselineTables(db, plan.schema);
  if (plan.detectors.some((d) => d.resolved.type === 'mix'))
    await writeMixLinks(db, plan.schema, runId, mixLinks(plan.layout, plan.categories));
}

/**
 * The inputs every shard of one measure shares: the root series of that measure (share %), the
 * calendar flags, a workspace. Cardinality (how many children have data) runs on the value measure only.
 */
export async function runSetup(db: Database, plan: RunPlan, measure: Measure = 'value'): Promise<RunSetup> {
  const { layout, ctx } = plan;
  // The ratio's share % is that of its value in the view's total value.
  const rootMeasure = measure === 'count' ? 'count' : 'value';
  const root =
    layout.rootId === null
      ? undefined
      : (await readSeries(db, plan.source, [layout.rootId], layout, [rootMeasure]))[0];
  const calendarFlags = ctx.calendar ? alignCalendar(ctx.calendar, layout.dayIndex0, layout.days) : null;
  const aligned = new Map<SpecialCalendar, Uint8Array>();
  const seriesFlags = ctx.seriesCalendar
    ? (id: number) => {
        const own = ctx.seriesCalendar?.(id);
        if (own === undefined) return calendarFlags;
        let f = aligned.get(own);
        if (!f) aligned.set(own, (f = alignCalendar(own, layout.dayIndex0, layout.days)));
        return f;
      }
    : undefined;
  const total = root ? rowValues(root, 0) : undefined;
  return {
    interval: isIntervalMeasure(plan.scales?.[measure], measure, total),
    seriesFlags,
    detectors:
      measure === 'value'
        ? plan.detectors
        : measure === 'ratio'
          ? plan.detectors.filter((d) => RATIO_TYPES.has(d.resolved.type))
          : plan.detectors.filter((d) => d.resolved.type !== 'cardinality'),
    ctx,
    calendarFlags,
    exclusions: await feedbackExclusions(db, plan.viewId, layout.dayIndex0, layout.days, calendarFlags),
    total,
    ws: new Workspace(),
  };
}

/**
 * Reads the series of shard `index` for every measure of the plan in one query: a block per measure, in
 * plan order (the ratio derived from the value and count read).
 */
async function readShard(db: Database, plan: RunPlan, index: number): Promise<SeriesBlock[]> {
  const read = measuresToRead(plan.measures);
  const blocks = await readSeries(db, plan.source, shardSeriesIds(plan.shards[index]), plan.layout, read);
  return blocksOf(plan.measures, read, blocks);
}

/** One measure's result of one shard. */
export interface MeasureResult {
  measure: Measure;
  result: ReturnType<typeof detectShardBlock>;
}

/**
 * Detects shard `index` of the plan for each measure, the shard's blocks read at once (nothing
 * written); `times`, when given, receives the milliseconds of the read and of the detection.
 */
export async function detectShard(
  db: Database,
  plan: RunPlan,
  /** The run's setups, or their read still under way (it then runs beside the shard's read). */
  setups: ReadonlyMap<Measure, RunSetup> | Promise<ReadonlyMap<Measure, RunSetup>>,
  index: number,
  times?: { readMs: number; detectMs: number },
): Promise<MeasureResult[]> {
  const t0 = performance.now();
  const [blocks, ready] = await Promise.all([readShard(db, plan, index), setups]);
  const t1 = performance.now();
  const out = plan.measures.map((measure, m) => ({
    measure,
    result: detectShardBlock(plan.shards[index], blocks[m], ready.get(measure) as RunSetup),
  }));
  if (times) {
    times.readMs += t1 - t0;
    times.detectMs += performance.now() - t1;
  }
  return out;
}

/** The setups of every measure of the plan (their reads asked at once), in plan order. */
export async function runSetups(db: Database, plan: RunPlan): Promise<Map<Measure, RunSetup>> {
  const setups = await Promise.all(plan.measures.map((m) => runSetup(db, plan, m)));
  return new Map(plan.measures.map((m, i) => [m, setups[i]]));
}

/** Appends a shard's anomalies (of every measure) to the staging table and its value baselines to the baseline tables. */
export async function writeShard(
  db: Database,
  plan: RunPlan,
  runId: number,
  results: MeasureResult | readonly MeasureResult[],
): Promise<void> {
  const list = Array.isArray(results) ? results : [results as MeasureResult];
  for (const { measure, result } of list) await writeMeasure(db, plan, runId, measure, result);
}

async function writeMeasure(
  db: Database,
  plan: RunPlan,
  runId: number,
  measure: Measure,
  result: ReturnType<typeof detectShardBlock>,
): Promise<void> {
  await appendStage(db, plan.schema, runId, result.anomalies, measure);
  // The baseline tables hold the value measure's baselines (the count's are computed and used in memory).
  if (plan.cross && measure === 'value')
    await writeShardBaselines(
      db,
      plan.schema,
      runId,
      plan.layout.dayIndex0,
      plan.categories,
      result.baselines,
    );
}

/** Refuses results of a mixed state, then replaces the view's anomalies with the staging table (SIN, SIM). */
export async function publishRun(db: Database, plan: RunPlan, runId: number) {
  const { dayIndex0, days } = plan.layout;
  if ((await readFingerprint(db, plan.schema)) !== plan.layout.fingerprint) {
    // Transient: the job is retried and reads the new data whole.
    throw new Error('the data of the view changed during detection (a load committed); detection runs again');
  }
  const replaceFrom = replaceFromDay(plan.ctx, dayIndex0, days);
  const published = await publishStage(db, plan.schema, runId, plan.viewId, {
    replaceFrom: replaceFrom === null ? null : fromEpochDay(replaceFrom),
    detectors: plan.detectors.map((d) => ({ index: d.index, code: d.resolved.impl.code })),
  });
  if (plan.cross) await pruneBaselines(db, plan.schema, runId);
  return {
    kept: published.kept,
    inserted: published.inserted,
    replacedFrom: replaceFrom === null ? null : fromEpochDay(replaceFrom),
  };
}

/** The summary of a run, without the shard loop's counters. */
export function runSummary(
  plan: RunPlan,
  anomalies: number,
  published: Awaited<ReturnType<typeof publishRun>>,
) {
  const { dayIndex0, days } = plan.layout;
  const end = dayIndex0 + days - Math.max(0, plan.ctx.ignoreLastNDays ?? 0);
  return {
    series: plan.layout.seriesCount,
    days,
    firstDate: days > 0 ? fromEpochDay(dayIndex0) : null,
    lastDate: days > 0 ? fromEpochDay(dayIndex0 + days - 1) : null,
    detectors: plan.detectors.length,
    shards: plan.shards.length,
    // What the view holds after this run, as a query counts it: this run's published records (a count
    // record that only echoes a value record is not published) and those kept from before.
    anomalies: published.inserted,
    keptAnomalies: published.kept,
    // What the detectors reported before publishing (echoes included).
    detected: anomalies,
    replacedFrom: published.replacedFrom,
    measures: plan.measures,
    incompleteDays: plan.incompleteDays,
    incompleteFrom: plan.incompleteDays > 0 ? fromEpochDay(end) : null,
  };
}

/** Runs every detector of the view over its loaded series; `runId` (the job id) names the staging table. */
export async function runViewDetection(
  deps: DetectionDeps,
  view: DataViewRecord,
  runId: number,
  planned?: RunPlan,
): Promise<DetectionSummary> {
  const { db, log } = deps;
  const plan = planned ?? (await planRun(db, view, deps.shardSize));
  const { schema, shards } = plan;
  const times = { readMs: 0, detectMs: 0, writeMs: 0, publishMs: 0 };
  const clock = (key: keyof typeof times, since: number) => {
    times[key] += performance.now() - since;
    return performance.now();
  };

  let writing: Promise<void> | undefined;
  try {
    let t = performance.now();
    await prepareRun(deps, plan, runId);
    const setups = await runSetups(db, plan);
    t = clock('readMs', t);
    let anomalies = 0;
    // Each shard's measures are read in one query. The next shard is read, and the last results
    // written, while this one is detected: the database works while Node computes. Their failures
    // surface at the await.
    const read = (i: number) => quiet(readShard(db, plan, i));
    let next = shards.length > 0 ? read(0) : undefined;
    for (let i = 0; i < shards.length; i++) {
      deps.signal?.throwIfAborted();
      const blocks = await (next as Promise<SeriesBlock[]>);
      next = i + 1 < shards.length ? read(i + 1) : undefined;
      t = clock('readMs', t);
      for (const [m, measure] of plan.measures.entries()) {
        const result = detectShardBlock(shards[i], blocks[m], setups.get(measure) as RunSetup);
        t = clock('detectMs', t);
        await writing;
        writing = quiet(writeShard(db, plan, runId, { measure, result }));
        t = clock('writeMs', t);
        anomalies += result.anomalies.length;
        log.debug('detection shard done', {
          shard: i,
          of: shards.length,
          measure,
          series: shards[i].seriesCount,
        });
      }
    }
    await writing;
    t = clock('writeMs', t);
    deps.signal?.throwIfAborted();
    const published = await publishRun(db, plan, runId);
    clock('publishMs', t);
    return {
      ...runSummary(plan, anomalies, published),
      readMs: Math.round(times.readMs),
      detectMs: Math.round(times.detectMs),
      writeMs: Math.round(times.writeMs),
      publishMs: Math.round(times.publishMs),
    };
  } finally {
    await writing?.catch(() => {});
    await dropStage(db, schema, runId).catch((e) => log.warn('staging table not dropped', { error: e }));
  }
}
