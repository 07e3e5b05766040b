/**
 * One detection run over a deployed view: plan shards of whole peer groups, then per shard read
 * the series as columnar arrays, run every detector and append the anomalies to the run's staging
 * table (and refresh the baseline tables); finally replace the view's anomalies and compute SIN and
 * SIM in one transaction. Memory is bounded by one shard. The previous anomalies stay intact until
 * that commit; a failure or a load that commits meanwhile leaves them untouched.
 */
import { alignCalendar } from '../calendar/special-calendar';
import { fromEpochDay } from '../calendar/days';
import { schemaNameFor } from '../dataset/ddl';
import type { Database } from '../db/database';
import { Workspace } from '../detection/workspace';
import type { DataViewDefinition } from '../dataviews/definition/types';
import type { DataViewRow } from '../dataviews/repository';
import type { Logger } from '../shared/logger';
import { publishStage } from './anomaly-publish';
import { appendStage, createStage, dropStage, stageRunIds } from './anomaly-store';
import { ensureBaselineTables, pruneBaselines, writeMixLinks, writeShardBaselines } from './baseline-store';
import { CROSS_TYPES, detectionContext, replaceFromDay, viewDetectors } from './detectors';
import { mixLinks, planShards, readFingerprint, readLayout, type Shard } from './layout';
import { readSeriesBlock, rowValues, type SeriesBlock } from './series-reader';
import { detectShardBlock, type RunSetup, shardSeriesIds } from './shard';

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
  anomalies: number;
  /** Older anomalies kept because they end before the scanned days (scanInLastNDays). */
  keptAnomalies: number;
  replacedFrom: string | null;
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
  categories: string[];
  detectors: ReturnType<typeof viewDetectors>;
  layout: Awaited<ReturnType<typeof readLayout>>;
  ctx: ReturnType<typeof detectionContext>;
  shards: Shard[];
  cross: boolean;
}

/** Reads the layout and plans the shards; the same data gives the same plan (fan-out relies on it). */
export async function planRun(db: Database, view: DataViewRow, shardSize: number): Promise<RunPlan> {
  const def = view.definition as unknown as DataViewDefinition;
  const detectors = viewDetectors(def);
  const layout = await readLayout(db, view.schemaName ?? schemaNameFor(view.id), def.categories ?? []);
  return {
    viewId: view.id,
    schema: view.schemaName ?? schemaNameFor(view.id),
    categories: (def.categories ?? []).map((c) => c.name),
    detectors,
    layout,
    ctx: detectionContext(def.analysis, layout.dayIndex0, layout.days),
    shards: layout.days > 0 && detectors.length > 0 ? planShards(layout.groups, shardSize) : [],
    cross: detectors.some((d) => CROSS_TYPES.includes(d.resolved.type)),
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

/** The inputs every shard shares: the root series (share %), the calendar flags, a workspace. */
export async function runSetup(db: Database, plan: RunPlan): Promise<RunSetup> {
  const { layout, ctx } = plan;
  const root =
    layout.rootId === null
      ? undefined
      : await readSeriesBlock(db, plan.schema, [layout.rootId], layout.dayIndex0, layout.days);
  return {
    detectors: plan.detectors,
    ctx,
    calendarFlags: ctx.calendar ? alignCalendar(ctx.calendar, layout.dayIndex0, layout.days) : null,
    total: root ? rowValues(root, 0) : undefined,
    ws: new Workspace(),
  };
}

/** Detects shard `index` of the plan (read and compute; nothing written). */
export async function detectShard(db: Database, plan: RunPlan, setup: RunSetup, index: number) {
  const shard = plan.shards[index];
  const block = await readSeriesBlock(
    db,
    plan.schema,
    shardSeriesIds(shard),
    plan.layout.dayIndex0,
    plan.layout.days,
  );
  return detectShardBlock(shard, block, setup);
}

/** Appends a shard's anomalies to the staging table and its baselines to the baseline tables. */
export async function writeShard(
  db: Database,
  plan: RunPlan,
  runId: number,
  result: ReturnType<typeof detectShardBlock>,
): Promise<void> {
  await appendStage(db, plan.schema, runId, result.anomalies);
  if (plan.cross)
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
  return { kept: published.kept, replacedFrom: replaceFrom === null ? null : fromEpochDay(replaceFrom) };
}

/** The summary of a run, without the shard loop's counters. */
export function runSummary(
  plan: RunPlan,
  anomalies: number,
  published: Awaited<ReturnType<typeof publishRun>>,
) {
  const { dayIndex0, days } = plan.layout;
  return {
    series: plan.layout.seriesCount,
    days,
    firstDate: days > 0 ? fromEpochDay(dayIndex0) : null,
    lastDate: days > 0 ? fromEpochDay(dayIndex0 + days - 1) : null,
    detectors: plan.detectors.length,
    shards: plan.shards.length,
    anomalies,
    keptAnomalies: published.kept,
    replacedFrom: published.replacedFrom,
  };
}

/** Runs every detector of the view over its loaded series; `runId` (the job id) names the staging table. */
export async function runViewDetection(
  deps: DetectionDeps,
  view: DataViewRow,
  runId: number,
  planned?: RunPlan,
): Promise<DetectionSummary> {
  const { db, log } = deps;
  const plan = planned ?? (await planRun(db, view, deps.shardSize));
  const { schema, shards, layout } = plan;
  const times = { readMs: 0, detectMs: 0, writeMs: 0, publishMs: 0 };
  const clock = (key: keyof typeof times, since: number) => {
    times[key] += performance.now() - since;
    return performance.now();
  };

  let writing: Promise<void> | undefined;
  try {
    let t = performance.now();
    await prepareRun(deps, plan, runId);
    const setup = await runSetup(db, plan);
    t = clock('readMs', t);
    let anomalies = 0;
    // The next shard is read, and the last one written, while this one is detected: the database
    // works while Node computes. Their failures surface at the await.
    const read = (i: number) =>
      quiet(readSeriesBlock(db, schema, shardSeriesIds(shards[i]), layout.dayIndex0, layout.days));
    let next = shards.length > 0 ? read(0) : undefined;
    for (let i = 0; i < shards.length; i++) {
      deps.signal?.throwIfAborted();
      const block = await (next as Promise<SeriesBlock>);
      next = i + 1 < shards.length ? read(i + 1) : undefined;
      t = clock('readMs', t);
      const result = detectShardBlock(shards[i], block, setup);
      t = clock('detectMs', t);
      await writing;
      writing = quiet(writeShard(db, plan, runId, result));
      t = clock('writeMs', t);
      anomalies += result.anomalies.length;
      log.debug('detection shard done', { shard: i, of: shards.length, series: shards[i].seriesCount });
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
