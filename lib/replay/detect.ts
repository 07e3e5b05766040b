/**
 * Detection of a changed definition over the loaded series, with an in-memory sink: the process job's
 * plan, setups and shard detection (lib/process-job/run.ts) run as they do for a cycle, and the records
 * are collected here instead of being staged and published. Nothing is written: no staging table, no
 * baseline or mix-link table, no records.
 */
import { fromEpochDay } from '../calendar/days';
import type { Database } from '../db/database';
import type { DataViewRecord } from '../dataviews/views';
import type { AnomalyColumns } from '../detection/anomaly-columns';
import type { Measure } from '../process-job/anomaly-store';
import { replaceFromDay } from '../process-job/detectors';
import { readFingerprint } from '../process-job/layout';
import { detectShard, planRun, type RunPlan, runSetups } from '../process-job/run';
import type { ReplayRecord, ReplayRun } from './types';

/** The records of one measure's shard result, as a publish would take them from the stage. */
function recordsOf(a: AnomalyColumns, measure: Measure, out: ReplayRecord[]): void {
  for (let i = 0; i < a.length; i++) {
    const d = a.draft(i);
    out.push({
      seriesId: Number(d.seriesId),
      measure,
      type: d.type,
      detectorIndex: a.detector[i],
      startDate: d.startDate,
      endDate: d.endDate,
      duration: d.duration,
      actualValue: Number.isFinite(d.actualValue) ? d.actualValue : null,
      predictedValue: Number.isFinite(d.predictedValue) ? d.predictedValue : null,
      changePct: d.changePct !== null && Number.isFinite(d.changePct) ? d.changePct : null,
      changeCum: Number.isFinite(d.changeCum) ? d.changeCum : null,
      result: d.result,
      incidentId: null,
    });
  }
}

export interface ReplayDetection {
  /** Every record the detectors reported (count echoes included), every measure. */
  records: ReplayRecord[];
  plan: RunPlan;
  run: ReplayRun;
  /** The detectors of the replayed definition, as publishing matches kept records with them. */
  detectors: Array<{ index: number; code: string }>;
}

/**
 * Runs every detector of `view` (the deployed view with the replayed definition) over its loaded series,
 * shard by shard, keeping the records in memory. Throws when a load committed meanwhile (the job is retried).
 */
export async function detectInMemory(
  db: Database,
  view: DataViewRecord,
  shardSize: number,
  signal?: AbortSignal,
): Promise<ReplayDetection> {
  const t0 = performance.now();
  const plan = await planRun(db, view, shardSize);
  const setups = await runSetups(db, plan);
  const times = { readMs: performance.now() - t0, detectMs: 0 };
  const records: ReplayRecord[] = [];
  for (let i = 0; i < plan.shards.length; i++) {
    signal?.throwIfAborted();
    for (const { measure, result } of await detectShard(db, plan, setups, i, times))
      recordsOf(result.anomalies, measure, records);
  }
  if ((await readFingerprint(db, plan.schema)) !== plan.layout.fingerprint)
    throw new Error(
      'the data of the view changed during the replay (a load committed); the replay runs again',
    );
  const { dayIndex0, days } = plan.layout;
  const replaceFrom = replaceFromDay(plan.ctx, dayIndex0, days);
  return {
    records,
    plan,
    detectors: plan.detectors.map((d) => ({ index: d.index, code: d.resolved.impl.code })),
    run: {
      series: plan.layout.seriesCount,
      days,
      shards: plan.shards.length,
      firstDate: days > 0 ? fromEpochDay(dayIndex0) : null,
      lastDate: days > 0 ? fromEpochDay(dayIndex0 + days - 1) : null,
      measures: plan.measures,
      replacedFrom: replaceFrom === null ? null : fromEpochDay(replaceFrom),
      readMs: Math.round(times.readMs),
      detectMs: Math.round(times.detectMs),
      ms: Math.round(performance.now() - t0),
    },
  };
}
