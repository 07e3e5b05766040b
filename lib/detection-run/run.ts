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
import { mixLinks, planShards, readFingerprint, readLayout } from './layout';
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

/** Runs every detector of the view over its loaded series; `runId` (the job id) names the staging table. */
export async function runViewDetection(
  deps: DetectionDeps,
  view: DataViewRow,
  runId: number,
): Promise<DetectionSummary> {
  const { db, log } = deps;
  const def = view.definition as unknown as DataViewDefinition;
  const schema = view.schemaName ?? schemaNameFor(view.id);
  const categories = (def.categories ?? []).map((c) => c.name);
  const detectors = viewDetectors(def);
  const layout = await readLayout(db, schema, def.categories ?? []);
  const { dayIndex0, days } = layout;
  const ctx = detectionContext(def.analysis, dayIndex0, days);
  const shards = days > 0 && detectors.length > 0 ? planShards(layout.groups, deps.shardSize) : [];
  const cross = detectors.some((d) => CROSS_TYPES.includes(d.resolved.type));
  const times = { readMs: 0, detectMs: 0, writeMs: 0, publishMs: 0 };
  const clock = (key: keyof typeof times, since: number) => {
    times[key] += performance.now() - since;
    return performance.now();
  };

  await dropOrphans(deps, schema, runId);
  await createStage(db, schema, runId);
  let writing: Promise<void> | undefined;
  try {
    let t = performance.now();
    const root =
      layout.rootId === null
        ? undefined
        : await readSeriesBlock(db, schema, [layout.rootId], dayIndex0, days);
    const setup: RunSetup = {
      detectors,
      ctx,
      calendarFlags: ctx.calendar ? alignCalendar(ctx.calendar, dayIndex0, days) : null,
      total: root ? rowValues(root, 0) : undefined,
      ws: new Workspace(),
    };
    if (cross) await ensureBaselineTables(db, schema);
    if (detectors.some((d) => d.resolved.type === 'mix'))
      await writeMixLinks(db, schema, runId, mixLinks(layout, categories));
    t = clock('readMs', t);
    let anomalies = 0;
    // The next shard is read, and the last one written, while this one is detected: the database
    // works while Node computes. Their failures surface at the await.
    const read = (i: number) =>
      quiet(readSeriesBlock(db, schema, shardSeriesIds(shards[i]), dayIndex0, days));
    let next = shards.length > 0 ? read(0) : undefined;
    for (let i = 0; i < shards.length; i++) {
      deps.signal?.throwIfAborted();
      const block = await (next as Promise<SeriesBlock>);
      next = i + 1 < shards.length ? read(i + 1) : undefined;
      t = clock('readMs', t);
      const result = detectShardBlock(shards[i], block, setup);
      t = clock('detectMs', t);
      await writing;
      writing = quiet(
        (async () => {
          await appendStage(db, schema, runId, result.anomalies, result.detectorIndex);
          if (cross) await writeShardBaselines(db, schema, runId, dayIndex0, categories, result.baselines);
        })(),
      );
      t = clock('writeMs', t);
      anomalies += result.anomalies.length;
      log.debug('detection shard done', { shard: i, of: shards.length, series: shards[i].seriesCount });
    }
    await writing;
    t = clock('writeMs', t);
    deps.signal?.throwIfAborted();
    if ((await readFingerprint(db, schema)) !== layout.fingerprint) {
      // Transient: the job is retried and reads the new data whole.
      throw new Error(
        'the data of the view changed during detection (a load committed); detection runs again',
      );
    }
    const replaceFrom = replaceFromDay(ctx, dayIndex0, days);
    const published = await publishStage(db, schema, runId, view.id, {
      replaceFrom: replaceFrom === null ? null : fromEpochDay(replaceFrom),
      detectors: detectors.map((d) => ({ index: d.index, code: d.resolved.impl.code })),
    });
    if (cross) await pruneBaselines(db, schema, runId);
    clock('publishMs', t);
    return {
      series: layout.seriesCount,
      days,
      firstDate: days > 0 ? fromEpochDay(dayIndex0) : null,
      lastDate: days > 0 ? fromEpochDay(dayIndex0 + days - 1) : null,
      detectors: detectors.length,
      shards: shards.length,
      anomalies,
      keptAnomalies: published.kept,
      replacedFrom: replaceFrom === null ? null : fromEpochDay(replaceFrom),
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
