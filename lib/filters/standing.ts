/**
 * An incident row's standing among incidents (docs/filters.md, "Incidents"): what Sort by SIN orders
 * incident rows by. A record's SIN is the spec's, normalised within its peer group (view, measure,
 * result), so the strongest record of a group that holds only noise (the ratio, value per event, of a
 * view whose ratios hardly move) scores as high as the strongest of a group of real events; and one
 * detector's blip on one small series scores as high as an event every detector saw on every series it
 * moved. The standing weighs the row's SIN by its **evidence**: how many series and how many detectors
 * saw the event on their own, as a geometric mean, √(series × detectors), counting only the incident's
 * records of its direction that judge the value or the count (not the ratio, which also moves when only
 * the mix of events moved) against their series' own history (not Peer or Mix, which move with a
 * sibling's event, nor Cardinality, a count of children). An incident with none (only ratio records,
 * only echoes) stands at a quarter of its SIN: it stays listed, below the events that were seen.
 */
import type { AnomalyRecord } from './types';

/** Detectors whose records do not judge a series' own value or count against its own history. */
const NOT_OWN = new Set(['Peer', 'Mix', 'Cardinality']);

/** The weight of an incident with no record of its own evidence (√(¼ × ¼)). */
const NO_EVIDENCE = 0.25;

/** The evidence of an incident from its selected records: √(series × detectors) that saw it on their own. */
export function evidenceOf(members: readonly AnomalyRecord[], result: AnomalyRecord['result']): number {
  const series = new Set<number>();
  const detectors = new Set<string>();
  for (const m of members) {
    if (m.result !== result || m.measure === 'ratio' || NOT_OWN.has(m.type)) continue;
    series.add(m.seriesId);
    detectors.add(m.type);
  }
  return series.size === 0 ? NO_EVIDENCE : Math.sqrt(series.size * detectors.size);
}

/** The standing of an incident row: its SIN × its evidence (null when its SIN is unknown). */
export function standingOf(
  sin: number | null,
  members: readonly AnomalyRecord[],
  result: AnomalyRecord['result'],
) {
  return sin === null || Number.isNaN(sin) ? null : sin * evidenceOf(members, result);
}
