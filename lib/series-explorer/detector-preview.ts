/**
 * Detector preview for the data view editor (admins): one detector, with the params being edited,
 * on one loaded series of a deployed view, with the same inputs the process job would give it
 * (total, parent, peer baseline, child count, the view's special dates and analysis window).
 */
import { sql } from 'drizzle-orm';
import { fromEpochDay } from '../calendar/days';
import { categoryColumn } from '../dataset/ddl';
import { catalogTable } from '../dataset/catalog';
import type { Database } from '../db/database';
import { resolveDetectors } from '../detection/detect';
import { previewSeries } from '../detection/preview';
import type { AnomalyDraft, Skip } from '../detection/types';
import { checkDetectorParams } from '../dataviews/definition/detector-checks';
import { detectorTypeOf } from '../dataviews/definition/detector-params';
import { readView } from '../dataviews/scope';
import { assertDeployed, type DataViewRecord } from '../dataviews/views';
import { type Caller, requireAdmin } from '../identity/caller';
import { NotFoundError, ValidationError } from '../shared/errors';
import { engineConfig } from '../process-job/detectors';
import { seriesDetectionContext } from '../process-job/holiday-calendars';
import { readLayout, type ViewLayout } from '../process-job/layout';
import { readSeries, rowPresent, rowValues, seriesSource } from '../dataset/series-store';
import { measureKindOf, totalLevelOf } from '../process-job/measure-kind';
import { isIntervalMeasure, measureScales } from '../process-job/scale';
import { type PreviewReads, type PreviewWindow, readGroupInput } from './preview-group';
import { blocksOf, isRatioBlock, measuresToRead, ratioRow } from '../process-job/ratio';

export interface DetectorPreviewBody {
  seriesId?: number;
  categories?: Record<string, string | null>;
  detector: { type: string; params?: Record<string, unknown> };
  /**
   * The measure read (default value); `count` reads the view's count column (the series explorer),
   * `ratio` value ÷ count per day (lib/process-job/ratio.ts).
   */
  measure?: 'value' | 'count' | 'ratio';
}

/** An anomaly of the preview: the engine's record without its internal ids and day numbers. */
export type PreviewAnomaly = Omit<AnomalyDraft, 'seriesId' | 'startDay' | 'endDay'>;

export interface DetectorPreview {
  dataViewId: number;
  seriesId: number;
  categories: Record<string, string | null>;
  detector: { type: string; code: string; params: Record<string, unknown> };
  analysedFrom: string | null;
  scanFrom: string | null;
  analysedTo: string | null;
  /** Why the detector does not run on this series (gap amount, average outside minValue/maxValue, …). */
  skipped: Skip | null;
  /** Every day from the series' first day: value, expected value (null: no opinion), flag (+1/-1/0), gap-filled. */
  points: Array<{ date: string; value: number; expected: number | null; flag: number; filled: boolean }>;
  flaggedDays: Array<{ date: string; result: 'Positive' | 'Negative' }>;
  anomalies: PreviewAnomaly[];
}

type SeriesRow = { series_id: number } & Record<string, string | null>;

/** The series addressed by id or by category values (left out = all); with neither, the total. */
async function findSeries(
  db: Database,
  schema: string,
  names: string[],
  body: DetectorPreviewBody,
): Promise<{ id: number; categories: Record<string, string | null> }> {
  const cols = names.map((n, i) => `${categoryColumn(n)} AS c${i}`);
  const select = `SELECT series_id${cols.length ? `, ${cols.join(', ')}` : ''} FROM ${catalogTable(schema)}`;
  let rows: SeriesRow[];
  if (body.seriesId !== undefined) {
    if (body.categories !== undefined)
      throw ValidationError.field('seriesId', 'give seriesId or categories, not both');
    rows = await db.rows<SeriesRow>(sql`${sql.raw(select)} WHERE series_id = ${body.seriesId}`);
  } else {
    const given = body.categories ?? {};
    const lower = new Map(names.map((n) => [n.toLowerCase(), n]));
    const unknown = Object.keys(given).filter((k) => !lower.has(k.toLowerCase()));
    if (unknown.length) {
      throw new ValidationError(
        `Unknown categor${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')}.`,
        unknown.map((k) => ({
          path: `categories.${k}`,
          message: `is not a category of this data view (known: ${names.join(', ')})`,
        })),
      );
    }
    const value = (n: string) =>
      Object.entries(given).find(([k]) => k.toLowerCase() === n.toLowerCase())?.[1] ?? null;
    const conds = names.map((n) => {
      const v = value(n);
      return v === null
        ? sql`${sql.raw(categoryColumn(n))} IS NULL`
        : sql`${sql.raw(categoryColumn(n))} = ${v}`;
    });
    rows = await db.rows<SeriesRow>(
      sql`${sql.raw(select)}${conds.length ? sql` WHERE ${sql.join(conds, sql` AND `)}` : sql``}`,
    );
  }
  if (rows.length === 0)
    throw new NotFoundError(
      'No such series in this data view (load data, or check seriesId and categories).',
    );
  const r = rows[0];
  return {
    id: Number(r.series_id),
    categories: Object.fromEntries(names.map((n, i) => [n, r[`c${i}`] ?? null])),
  };
}

/** POST /dataviews/{id}/preview-detector (admins). */
export async function previewDetector(
  c: { db: Database } & PreviewReads,
  caller: Caller,
  id: number,
  body: DetectorPreviewBody,
): Promise<DetectorPreview> {
  requireAdmin(caller);
  return runPreview(c, await readView(caller, c.db, id), body);
}

/** The preview itself, for a view the caller has already been allowed to read. */
export async function runPreview(
  c: { db: Database } & PreviewReads,
  row: DataViewRecord,
  body: DetectorPreviewBody,
  /** The layout reader; the series explorer passes one that reads only the series around one (lib/series-explorer/layout.ts). */
  layoutOf: (
    db: Database,
    schema: string,
    categories: Array<{ name: string }>,
    seriesId: number,
  ) => Promise<ViewLayout> = (db, schema, categories) => readLayout(db, schema, categories),
  /** The days the caller draws: a peer or child group is read only over them (and the look-back before them). */
  window: PreviewWindow = {},
): Promise<DetectorPreview> {
  assertDeployed(row);
  const type = detectorTypeOf(body.detector.type);
  if (!type) throw ValidationError.field('detector.type', `unknown detector type '${body.detector.type}'`);
  const checked = checkDetectorParams(type, body.detector.params ?? {}, 'detector.params');
  if (checked.errors.length) throw new ValidationError('Invalid detector params.', checked.errors);
  const def = row.definition;
  const schema = row.schema;
  const names = (def.categories ?? []).map((x) => x.name);
  const series = await findSeries(c.db, schema, names, body);
  const layout = await layoutOf(c.db, schema, def.categories ?? [], series.id);
  const group = layout.groups.find((g) => g.memberIds.includes(series.id));
  const children = layout.groups.find((g) => g.parentId === series.id);
  const peers = type === 'peer' && group && group.parentId !== null ? group.memberIds : [];
  const kids = type === 'cardinality' && children ? children.memberIds : [];
  // The series, its parent and the total over every loaded day; the group within its bound (preview-group.ts).
  const ids = [
    ...new Set([series.id, layout.rootId, group?.parentId].filter((x): x is number => typeof x === 'number')),
  ];
  const measure = body.measure ?? 'value';
  const read = measuresToRead([measure]);
  const blocks = await readSeries(c.db, seriesSource(row), ids, layout, read);
  const [block] = blocksOf([measure], read, blocks);
  // A ratio's share % is its value's share of the view's total value, as in the process job.
  const totalBlock = isRatioBlock(block) ? blocks[read.indexOf('value')] : block;
  const rowOf = (sid: number | null | undefined) =>
    sid === null || sid === undefined ? undefined : block.rowOf.get(sid);
  const own = rowOf(series.id) as number;
  const parent = rowOf(group?.parentId);
  const root = rowOf(layout.rootId);
  const [resolved] = resolveDetectors([engineConfig(type, checked.params)]);
  const totalLevel = totalLevelOf(root === undefined ? undefined : rowValues(block, root));
  const groupInput = await readGroupInput(c, seriesSource(row), layout, {
    detector: resolved,
    members: type === 'peer' ? peers : kids,
    measure,
    window,
    totalLevel,
  });
  const preview = previewSeries(
    {
      seriesId: series.id,
      dayIndex0: layout.dayIndex0,
      values: rowValues(block, own),
      present: rowPresent(block, own),
      // As the process job: an amount whose events vary is judged in events (valuePerEvent), one
      // without events is an amount in its own unit.
      valuePerEvent: block.valuePerEvent?.[own],
      measureKind: isIntervalMeasure(
        measureScales(def.analysis)[measure],
        measure,
        root === undefined ? undefined : rowValues(totalBlock, root),
      )
        ? 'interval'
        : measureKindOf(block, own),
      totalValues: root === undefined ? undefined : rowValues(totalBlock, root),
      ...(isRatioBlock(block) ? ratioRow(block, own) : {}),
      parentValues: parent === undefined ? undefined : rowValues(block, parent),
      peerChange: groupInput.peerChange,
      cardinality: groupInput.cardinality,
    },
    resolved,
    (await seriesDetectionContext(c.db, schema, def, series.id, layout.dayIndex0, layout.days)).ctx,
  );
  const present = rowPresent(block, own);
  let first = present.indexOf(1);
  if (first < 0) first = 0;
  const points: DetectorPreview['points'] = [];
  const flaggedDays: DetectorPreview['flaggedDays'] = [];
  for (let t = first; t < layout.days; t++) {
    const date = fromEpochDay(layout.dayIndex0 + t);
    const e = preview.expected[t];
    points.push({
      date,
      value: preview.values[t],
      expected: Number.isFinite(e) ? e : null,
      flag: preview.flags[t],
      filled: present[t] === 0,
    });
    if (preview.flags[t] !== 0)
      flaggedDays.push({ date, result: preview.flags[t] > 0 ? 'Positive' : 'Negative' });
  }
  return {
    dataViewId: row.id,
    seriesId: series.id,
    categories: series.categories,
    detector: { type, code: preview.code, params: checked.params },
    analysedFrom: preview.analysedFrom,
    scanFrom: preview.scanFrom,
    analysedTo: preview.analysedTo,
    skipped: groupInput.refused ?? preview.skipped,
    points,
    flaggedDays,
    anomalies: preview.anomalies.map(({ seriesId: _s, startDay: _a, endDay: _b, ...a }) => a),
  };
}
