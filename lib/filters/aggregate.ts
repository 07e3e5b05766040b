/** Rolls selected anomalies up into aggregates (docs/filters.md, "Aggregation"). */
import { graphGroups } from './aggregate-graph';
import { hierarchicalGroups } from './aggregate-hierarchical';
import { rankAnomalies } from './rank';
import type { AggregateRecord, AggregationSettings, AnomalyRecord, SortBy } from './types';
import { ownValue, setOwn } from '../shared/own';

const DAY_MS = 86_400_000;

function days(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

/** Sum of the non-null values, null when every value is null. */
function sum(values: Array<number | null>): number | null {
  let total: number | null = null;
  for (const v of values) if (v !== null && !Number.isNaN(v)) total = (total ?? 0) + v;
  return total;
}

function max(values: Array<number | null>): number | null {
  let best: number | null = null;
  for (const v of values) if (v !== null && !Number.isNaN(v) && (best === null || v > best)) best = v;
  return best;
}

/** FNV-1a, enough to tell memberships apart in an id. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Common categories: one concrete value on every member. Different: any other dimension some member has. */
function categoryProfile(
  members: readonly AnomalyRecord[],
): Pick<AggregateRecord, 'commonCategories' | 'differentCategories'> {
  const names = new Set<string>();
  for (const m of members)
    for (const [name, v] of Object.entries(m.categories ?? {})) if (v != null) names.add(name);
  const commonCategories: Record<string, string> = {};
  const differentCategories: string[] = [];
  for (const name of [...names].sort()) {
    const first = ownValue(members[0].categories, name);
    if (first != null && members.every((m) => ownValue(m.categories, name) === first))
      setOwn(commonCategories, name, first);
    else differentCategories.push(name);
  }
  return { commonCategories, differentCategories };
}

/** Builds one aggregate; members are ranked by sortBy. `mode` is the id prefix (H or G). */
export function buildAggregate(
  members: readonly AnomalyRecord[],
  mode: 'H' | 'G',
  sortBy: SortBy,
): AggregateRecord {
  if (members.length === 0) throw new RangeError('An aggregate needs at least one member');
  let startDate = members[0].startDate;
  let endDate = members[0].endDate;
  for (const m of members) {
    if (m.startDate < startDate) startDate = m.startDate;
    if (m.endDate > endDate) endDate = m.endDate;
  }
  const ids = members.map((m) => m.id).sort((a, b) => a - b);
  // Change % of the whole: summed change over summed prediction, from members that have both.
  let change = 0;
  let predicted = 0;
  let paired = 0;
  for (const m of members) {
    if (m.change === null || m.predictedValue === null) continue;
    change += m.change;
    predicted += m.predictedValue;
    paired++;
  }
  const first = members[0];
  return {
    id: `${mode}-${ids[0]}-${hash(ids.join(','))}`,
    dataViewId: first.dataViewId,
    dataView: first.dataView,
    measure: first.measure ?? 'value',
    result: first.result,
    startDate,
    endDate,
    // An event member brings every type that flagged it.
    types: [...new Set(members.flatMap((m) => m.types ?? [m.type]))].sort(),
    duration: days(endDate) - days(startDate) + 1,
    actualValue: sum(members.map((m) => m.actualValue)),
    predictedValue: sum(members.map((m) => m.predictedValue)),
    change: sum(members.map((m) => m.change)),
    changePct: paired > 0 && predicted !== 0 ? (100 * change) / Math.abs(predicted) : null,
    changeCum: sum(members.map((m) => m.changeCum)),
    sharePct: max(members.map((m) => m.sharePct)),
    sin: max(members.map((m) => m.sin)),
    sim: max(members.map((m) => m.sim)),
    n: members.length,
    ...categoryProfile(members),
    members: members.length === 1 ? [first] : rankAnomalies(members, sortBy, members.length),
  };
}

/**
 * Aggregates the anomalies with the filter's mode. Groups never mix data views, measures or result
 * signs (nor types when splitByType). The aggregates come unordered; rank them with rankAggregates.
 */
export function aggregateAnomalies(
  anomalies: readonly AnomalyRecord[],
  settings: Pick<
    AggregationSettings,
    'aggregationMode' | 'minCommonCategories' | 'graphThreshold' | 'graphWeights'
  > & {
    splitByType?: boolean;
    sortBy?: SortBy;
  },
): AggregateRecord[] {
  const partitions = new Map<string, AnomalyRecord[]>();
  for (const a of anomalies) {
    const key = `${a.dataViewId}|${a.measure ?? 'value'}|${a.result}${settings.splitByType ? `|${a.type}` : ''}`;
    const p = partitions.get(key);
    if (p) p.push(a);
    else partitions.set(key, [a]);
  }
  const mode = settings.aggregationMode === 'Graph' ? 'G' : 'H';
  const out: AggregateRecord[] = [];
  for (const part of partitions.values()) {
    const groups =
      mode === 'G'
        ? graphGroups(part, settings.graphThreshold, settings.graphWeights)
        : hierarchicalGroups(part, settings.minCommonCategories);
    for (const g of groups) {
      out.push(
        buildAggregate(
          g.map((i) => part[i]),
          mode,
          settings.sortBy ?? 'SIN',
        ),
      );
    }
  }
  return out;
}
