/**
 * "Recalculate baseline tables (ad hoc)": rebuilds the baseline tables of the peer, mix and
 * cardinality detectors of a deployed view from its loaded series, shard by shard, without running
 * detection. A process job refreshes the same tables as it goes.
 */
import type { ProcessJobDeps } from './ports';
import { readDeployedView } from '../dataviews/scope';
import { type Caller, requireAdmin } from '../identity/caller';
import { ConflictError } from '../shared/errors';
import { ensureBaselineTables, pruneBaselines, writeMixLinks, writeShardBaselines } from './baseline-store';
import { CROSS_TYPES, peerWeeks, type ViewDetector, viewDetectors } from './detectors';
import { mixLinks, planShards, readLayout } from './layout';
import { minVolumesOf, totalLevelOf } from './measure-kind';
import { readSeries, rowValues, seriesSource } from '../dataset/series-store';
import { shardBaselines } from './shard';

export const NO_BASELINE_DETECTORS = 'No peer, mix or cardinality detector is defined for this data view.';

export interface BaselineRebuild {
  dataViewId: number;
  message: string;
  detectors: string[];
  series: number;
  peerGroups: number;
  cardinalityGroups: number;
  mixLinks: number;
  ms: number;
}

/** Distinct peer windows (in weeks) of the view's peer detectors. */
export function peerWeeksOf(detectors: readonly ViewDetector[]): number[] {
  return [...new Set(detectors.filter((d) => d.resolved.type === 'peer').map((d) => peerWeeks(d.resolved)))];
}

/** POST /dataviews/{id}/baselines (admins): rebuilds the baseline tables; 409 when no such detector is defined. */
export async function recalculateBaselines(
  c: Pick<ProcessJobDeps, 'db' | 'config'>,
  caller: Caller,
  id: number,
): Promise<BaselineRebuild> {
  requireAdmin(caller);
  const started = performance.now();
  const row = await readDeployedView(caller, c.db, id);
  const def = row.definition;
  const detectors = viewDetectors(def).filter((d) => CROSS_TYPES.includes(d.resolved.type));
  if (detectors.length === 0) throw new ConflictError(NO_BASELINE_DETECTORS);
  const schema = row.schema;
  const categories = (def.categories ?? []).map((x) => x.name);
  const layout = await readLayout(c.db, schema, def.categories ?? []);
  // A negative id never meets a job id; the seconds keep ids of later rebuilds distinct.
  const runId = -Math.floor(Date.now() / 1000);
  await ensureBaselineTables(c.db, schema);
  const weeks = peerWeeksOf(detectors);
  const wantCardinality = detectors.some((d) => d.resolved.type === 'cardinality');
  const hasMix = detectors.some((d) => d.resolved.type === 'mix');
  const mix = hasMix ? await writeMixLinks(c.db, schema, runId, mixLinks(layout, categories)) : 0;
  let peerGroups = 0;
  let cardinalityGroups = 0;
  if (layout.days > 0 && (weeks.length > 0 || wantCardinality)) {
    const root =
      layout.rootId === null
        ? undefined
        : (await readSeries(c.db, seriesSource(row), [layout.rootId], layout, ['value']))[0];
    const totalLevel = totalLevelOf(root === undefined ? undefined : rowValues(root, 0));
    for (const shard of planShards(layout.groups, c.config.detection.shardSize)) {
      const ids = shard.groups.filter((g) => g.parentId !== null).flatMap((g) => g.memberIds);
      const [block] = await readSeries(c.db, seriesSource(row), ids, layout, ['value']);
      const b = shardBaselines(
        shard,
        block,
        weeks,
        wantCardinality,
        { peer: minVolumesOf(detectors, 'peer'), cardinality: minVolumesOf(detectors, 'cardinality') },
        totalLevel,
      );
      await writeShardBaselines(c.db, schema, runId, layout.dayIndex0, categories, b);
      peerGroups += b.peer.length;
      cardinalityGroups += b.cardinality.length;
    }
  }
  await pruneBaselines(c.db, schema, runId);
  return {
    dataViewId: row.id,
    message: 'Baseline tables rebuilt.',
    detectors: [...new Set(detectors.map((d) => d.resolved.type))],
    series: layout.seriesCount,
    peerGroups,
    cardinalityGroups,
    mixLinks: mix,
    ms: Math.round(performance.now() - started),
  };
}
