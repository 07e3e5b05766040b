/**
 * The work of a Replay job, apart from the requests (service.ts) so that the HTTP function that takes
 * them carries no detection code: detect in memory, compare with the stored records, store the difference.
 */
import type { Database } from '../db/database';
import { readDeployedView } from '../dataviews/scope';
import type { DataViewRecord } from '../dataviews/views';
import { systemCaller } from '../identity/caller';
import type { JobRow } from '../jobs/repository';
import { ValidationError } from '../shared/errors';
import { detectInMemory } from './detect';
import { readCatalog } from '../incidents/store';
import { diffRecords, foldCountEchoes, keptRecords, ROW_LIMIT } from './diff';
import { diffIncidents } from './incidents';
import { readReplayRow, readSeriesCategories, readStoredRecords, writeReplayResult } from './store';
import type { ReplayRecord, ReplayResult } from './types';

/** Fills in the category values of the rows an answer shows. */
async function withCategories(db: Database, view: DataViewRecord, result: ReplayResult): Promise<void> {
  const rows: ReplayRecord[] = [
    ...result.added,
    ...result.removed,
    ...result.changed.flatMap((c) => [c.before, c.after]),
    ...[...result.incidents.added, ...result.incidents.removed].map((i) => i.head),
    ...result.incidents.changed.flatMap((c) => [c.before.head, c.after.head]),
    ...result.incidents.regrouped.flatMap((g) => [...g.before, ...g.after].map((i) => i.head)),
  ];
  const names = (view.definition.categories ?? []).map((c) => c.name);
  const cats = await readSeriesCategories(
    db,
    view.schema,
    names,
    rows.map((r) => r.seriesId),
  );
  for (const r of rows) r.categories = cats.get(r.seriesId) ?? {};
}

/** The work of a Replay job (the process worker runs it): detect in memory, compare, store the difference. */
export async function runReplayJob(
  deps: { db: Database; shardSize: number },
  job: JobRow,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const { db } = deps;
  const row = await readReplayRow(db, job.id);
  if (!row) throw new ValidationError(`Replay ${job.id} has no definition (it was removed).`);
  const deployed = await readDeployedView(systemCaller(), db, job.dataViewId);
  const replayed: DataViewRecord = { ...deployed, definition: row.definition };
  const detection = await detectInMemory(db, replayed, deps.shardSize, signal);
  const before = await readStoredRecords(db, deployed.schema);
  const after = [
    ...keptRecords(before, detection.run.replacedFrom, detection.detectors),
    ...foldCountEchoes(detection.records),
  ];
  const catalog = await readCatalog(
    db,
    deployed.schema,
    (replayed.definition.categories ?? []).map((c) => c.name),
  );
  const codesOf = (seriesId: number) => {
    const row = catalog.byId.get(seriesId);
    return row === undefined ? undefined : catalog.codes[row];
  };
  const result: ReplayResult = {
    ...diffRecords(before, after),
    incidents: diffIncidents(before, after, codesOf, ROW_LIMIT),
    run: detection.run,
  };
  await withCategories(db, replayed, result);
  await writeReplayResult(db, job.id, result);
  const c = result.counts;
  const i = result.incidents.counts;
  return {
    ...c,
    incidents: { added: i.added, removed: i.removed, changed: i.changed, split: i.split, merged: i.merged },
    detected: detection.records.length,
    ms: detection.run.ms,
    message:
      `replayed: ${c.added} added, ${c.removed} removed, ${c.changed} changed of ${c.before} anomalies; ` +
      `incidents ${i.added} added, ${i.removed} removed, ${i.changed} changed, ${i.split} split, ${i.merged} merged` +
      `${i.regrouped ? `, ${i.regrouped} regrouped` : ''} of ${i.before}`,
  };
}
