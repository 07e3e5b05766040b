/**
 * GET /dataviews/{id}/contributions: what drove the change of one series over a window, anomaly or not
 * (docs/incidents.md, "Contributions"). Reads the leaves under the series over the window and the weeks
 * before it (only those days), computes their changes as incidents do (lib/incidents/leaf-window.ts),
 * and answers the pure contributions (lib/incidents/contributions.ts) with category values by name.
 * When the window is that of an anomaly record of the series, the expectation is its detector's, as the
 * incident's root cause uses it, so both answers agree.
 */
import { sql } from 'drizzle-orm';
import { fromEpochDay, toEpochDay } from '../calendar/days';
import { ident } from '../dataset/ddl';
import { type SeriesBlock, seriesSource, type SeriesMeasure } from '../dataset/series-store';
import { anomaliesTable } from '../process-job';
import type { Database } from '../db/database';
import { readDeployedView } from '../dataviews/scope';
import { type Caller, requireRead } from '../identity/caller';
import { ValidationError } from '../shared/errors';
import {
  CONTRIBUTION_DEFAULTS,
  type Contributions,
  type ContributionValue,
  contributions,
} from './contributions';
import {
  type RatioCause,
  type RatioContributions,
  type RatioLeaf,
  ratioContributions,
  ratioLeaves,
  scaledToRatio,
} from './ratio-contributions';
import { type ContributionsRequest, parseContributionsQuery } from './contributions-params';
import { ownBaseline } from './grouping';
import { contains, isLeaf } from './lattice';
import { assertLeafBudget, batchedLeafChanges, CONTRIBUTION_READS } from './contributions-leaves';
import { historyDays, type LeafDays, scaleExpected } from './leaf-window';
import { latticeOf } from './step';
import { cachedCatalog, hasIncidents, type SeriesCatalog } from './store';
import type { LeafChange } from './root-cause';
import type { Categories } from './types';
import { ownValue } from '../shared/own';

export interface ContributionValueAnswer {
  /** The dimension's value (for a child category, the child's). */
  value: string | null;
  /** The combination: the series' categories plus this value's (and its parents'). */
  categories: Categories;
  seriesId: number | null;
  actual: number;
  expected: number;
  change: number;
  changePct: number | null;
  explainsPct: number;
  shareBefore: number;
  shareDuring: number;
  surprise: number;
  /** measure=ratio: the part of the series' change that is this value's rate change at the old mix. */
  rateEffect?: number;
  /** measure=ratio: the part that is the shift of its share of the events. */
  mixEffect?: number;
}

/** measure=ratio: the split of a change into rate and mix effects (lib/incidents/rate-mix.ts). */
interface Effects {
  rateEffect?: number;
  mixEffect?: number;
}

export interface ContributionsAnswer {
  dataViewId: number;
  dataView: string;
  seriesId: number;
  categories: Categories;
  measure: SeriesMeasure | 'ratio';
  from: string;
  to: string;
  days: number;
  /** Where the expectation comes from: the series' own weeks before the window, or an anomaly's detector. */
  baseline: {
    weeks: number;
    from: string;
    to: string;
    source: 'history' | 'anomaly';
    anomaly?: { id: number; type: string; result: 'Positive' | 'Negative'; incidentId: number | null };
  };
  actual: number;
  expected: number;
  change: number;
  changePct: number | null;
  rateEffect?: number;
  mixEffect?: number;
  /** Leaves under the series that were read. */
  leaves: number;
  dimensions: Array<
    {
      name: string;
      label: string;
      surprise: number;
      count: number;
      values: ContributionValueAnswer[];
    } & Effects
  >;
  explanation: {
    broad: boolean;
    causes: Array<
      Omit<ContributionValueAnswer, 'value' | 'shareBefore' | 'shareDuring' | 'surprise'> & {
        effect?: 'rate' | 'mix';
        mixOf?: string;
      }
    >;
  };
}

/** A ratio's rate and mix effects, when the figures have them (measure=ratio). */
function effectsOf(x: object): Effects {
  const e = x as { rateEffect?: number; mixEffect?: number };
  return e.rateEffect === undefined ? {} : { rateEffect: e.rateEffect, mixEffect: e.mixEffect };
}

/** A ratio cause's kind: its rate moved, or the mix moved (and of which category). */
function ratioCauseOf(x: object): { effect?: 'rate' | 'mix'; mixOf?: string } {
  const c = x as Partial<RatioCause>;
  return {
    ...(c.effect !== undefined ? { effect: c.effect } : {}),
    ...(c.mixOf !== undefined ? { mixOf: c.mixOf } : {}),
  };
}

/** The row of the catalog whose categories are exactly `wanted` (the others "all"). */
function seriesRow(catalog: SeriesCatalog, names: readonly string[], wanted: Record<string, string>): number {
  for (let i = 0; i < catalog.ids.length; i++) {
    const v = catalog.values[i];
    if (names.every((n, k) => (ownValue(wanted, n) ?? null) === v[k])) return i;
  }
  const text = Object.entries(wanted)
    .map(([k, v]) => `${k}=${v}`)
    .join(';');
  throw ValidationError.field(
    'categories',
    `no series of this data view has the categories '${text || 'all'}'`,
  );
}

interface AnomalyBaseline {
  id: number;
  type: string;
  result: 'Positive' | 'Negative';
  predicted: number | null;
  incidentId: number | null;
}

/**
 * The anomaly record of the series over exactly this window whose expectation the answer uses: an
 * incident's head first (its root cause was computed from it), else the strongest record.
 */
async function anomalyOfWindow(
  db: Database,
  schema: string,
  seriesId: number,
  r: ContributionsRequest,
): Promise<AnomalyBaseline | null> {
  const s = ident(schema);
  const t = await hasIncidents(db, schema);
  const head = t
    ? `EXISTS (SELECT 1 FROM ${s}.incidents i WHERE i.id = a.incident_id AND i.head_series_id = a.series_id
        AND i.head_measure = a.measure AND i.head_type = a.type AND i.head_start = a.start_date)`
    : 'false';
  const rows = await db.rows<{
    id: number;
    type: string;
    result: 'Positive' | 'Negative';
    predicted_value: number | null;
    incident_id: number | null;
  }>(sql`SELECT a.id, a.type, a.result, a.predicted_value, ${sql.raw(t ? 'a.incident_id' : 'NULL::int AS incident_id')}
      FROM ${sql.raw(anomaliesTable(schema))} a
      WHERE a.series_id = ${seriesId} AND a.measure = ${r.measure} AND a.start_date = ${r.from}::date AND a.end_date = ${r.to}::date
      ORDER BY ${sql.raw(head)} DESC, NULLIF(a.sin, 'NaN'::float8) DESC NULLS LAST, a.id LIMIT 1`);
  const a = rows[0];
  if (!a) return null;
  return {
    id: Number(a.id),
    type: a.type,
    result: a.result,
    predicted: a.predicted_value === null ? null : Number(a.predicted_value),
    incidentId: a.incident_id === null ? null : Number(a.incident_id),
  };
}

/** What drove the change of a series over a window (see the module comment). */
export async function seriesContributions(
  c: { db: Database; reads?: { batchCells: number; maxCells: number } },
  caller: Caller,
  id: number,
  query: Record<string, string | undefined>,
): Promise<ContributionsAnswer> {
  requireRead(caller);
  const view = await readDeployedView(caller, c.db, id, ': it has no series yet.');
  const defCategories = view.definition.categories ?? [];
  const names = defCategories.map((x) => x.name);
  const r = parseContributionsQuery(names, query);
  if (r.measure !== 'value' && !view.definition.source?.countColumn)
    throw ValidationError.field('measure', `this data view has no ${r.measure} measure (source.countColumn)`);
  const catalog = await cachedCatalog(c.db, view.schema, names);
  const row = seriesRow(catalog, names, r.categories);
  const seriesId = catalog.ids[row];
  const codes = catalog.codes[row];
  const start = toEpochDay(r.from);
  const end = toEpochDay(r.to);
  const fromDay = start - historyDays(r.weeks);
  const leafRows: number[] = [];
  for (let i = 0; i < catalog.ids.length; i++)
    if (isLeaf(catalog.codes[i]) && contains(codes, catalog.codes[i])) leafRows.push(i);
  const reads = { ...CONTRIBUTION_READS, ...c.reads };
  const days = end - start + 1;
  const measures: SeriesMeasure[] = r.measure === 'ratio' ? ['value', 'count'] : [r.measure];
  assertLeafBudget(leafRows.length, { days, weeks: r.weeks }, measures.length, reads.maxCells);
  const read = {
    ids: leafRows.map((i) => catalog.ids[i]),
    codes: leafRows.map((i) => catalog.codes[i]),
    measures,
    toLeaf: ([block, events]: SeriesBlock[], k: number, leafCodes: Int32Array): LeafDays => ({
      codes: leafCodes,
      values: block.values.subarray(k * block.days, (k + 1) * block.days),
      unit: r.measure === 'value' ? block.valuePerEvent?.[k] || 1 : 1,
      ...(events ? { counts: events.values.subarray(k * events.days, (k + 1) * events.days) } : {}),
    }),
  };
  const spec = { from: fromDay, start, end, weeks: r.weeks };
  // The leaves (in bounded batches) and the anomaly record of the window are independent reads: both at once.
  const [unscaled, anomaly] = await Promise.all([
    r.measure === 'ratio'
      ? batchedLeafChanges(c.db, seriesSource(view), read, spec, reads.batchCells, ratioLeaves)
      : batchedLeafChanges(c.db, seriesSource(view), read, spec, reads.batchCells),
    anomalyOfWindow(c.db, view.schema, seriesId, r),
  ]);
  const predicted =
    anomaly && ownBaseline(anomaly) && anomaly.predicted !== null && Number.isFinite(anomaly.predicted)
      ? anomaly.predicted
      : undefined;
  const expectedTotal = predicted === undefined ? undefined : predicted * days;
  const lattice = latticeOf({ id, source: seriesSource(view), categories: defCategories });
  const opts = {
    limit: r.limit,
    rootCause: {
      ...CONTRIBUTION_DEFAULTS.rootCause,
      ...(anomaly ? { direction: anomaly.result === 'Positive' ? 1 : -1 } : {}),
    },
  };
  // A ratio's expectation is per event: an anomaly's scales the leaves' rates, its mix stays theirs.
  const result: Contributions | RatioContributions =
    r.measure === 'ratio'
      ? ratioContributions(lattice, codes, scaledToRatio(unscaled as RatioLeaf[], predicted), opts)
      : contributions(lattice, codes, scaleExpected(unscaled as LeafChange[], expectedTotal), opts);
  // Category values by code, from the catalog (every code of a category appears on some series).
  const valueByCode = names.map(() => new Map<number, string | null>([[0, null]]));
  catalog.codes.forEach((cs, i) => {
    for (let k = 0; k < names.length; k++) if (cs[k] !== 0) valueByCode[k].set(cs[k], catalog.values[i][k]);
  });
  const categoriesOfCodes = (cs: ArrayLike<number>): Categories =>
    Object.fromEntries(names.map((n, k) => [n, valueByCode[k].get(cs[k]) ?? null]));
  const seriesOf = (cs: ArrayLike<number>) => catalog.byCodes.get(Array.prototype.join.call(cs, ',')) ?? null;
  const figures = (
    v: Pick<ContributionValue, 'actual' | 'expected' | 'change' | 'changePct' | 'explainsPct'>,
  ) => ({
    actual: v.actual,
    expected: v.expected,
    change: v.change,
    changePct: v.changePct,
    explainsPct: v.explainsPct,
    ...effectsOf(v),
  });
  return {
    dataViewId: view.id,
    dataView: view.title,
    seriesId,
    categories: categoriesOfCodes(codes),
    measure: r.measure,
    from: r.from,
    to: r.to,
    days,
    baseline: {
      weeks: r.weeks,
      from: fromEpochDay(start - 7 * r.weeks),
      to: fromEpochDay(start - 1),
      source: expectedTotal !== undefined ? 'anomaly' : 'history',
      ...(anomaly
        ? {
            anomaly: {
              id: anomaly.id,
              type: anomaly.type,
              result: anomaly.result,
              incidentId: anomaly.incidentId,
            },
          }
        : {}),
    },
    actual: result.actual,
    expected: result.expected,
    change: result.change,
    changePct: result.changePct,
    ...effectsOf(result),
    leaves: leafRows.length,
    dimensions: result.dimensions.map((d) => ({
      name: names[d.category],
      label: defCategories[d.category].label ?? names[d.category],
      surprise: d.surprise,
      ...effectsOf(d),
      count: d.count,
      values: d.values.map((v) => ({
        value: valueByCode[d.category].get(v.codes[d.category]) ?? null,
        categories: categoriesOfCodes(v.codes),
        seriesId: seriesOf(v.codes),
        ...figures(v),
        shareBefore: v.shareBefore,
        shareDuring: v.shareDuring,
        surprise: v.surprise,
      })),
    })),
    explanation: {
      broad: result.explanation.broad,
      causes: result.explanation.causes.map((x) => ({
        categories: categoriesOfCodes(x.codes),
        seriesId: seriesOf(x.codes),
        ...figures(x),
        ...ratioCauseOf(x),
      })),
    },
  };
}
