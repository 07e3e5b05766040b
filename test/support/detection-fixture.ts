/** Deployed views with detectors, loaded through the real load pipeline from a test source, for detection tests. */
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { toEpochDay } from '../../lib/calendar/days';
import { schemaNameFor } from '../../lib/dataset/ddl';
import type { Database } from '../../lib/db/database';
import { dataViews } from '../../lib/db/tables/dataviews';
import type { DataViewAnalysis, DataViewDefinition } from '../../lib/dataviews/definition/types';
import type { JobRow } from '../../lib/jobs/repository';
import { runLoad } from '../../lib/pipeline/load';
import { logger } from '../../lib/shared/logger';
import { createDeployedView, definitionOf } from './pipeline-fixture';
import type { TestSource } from './pipeline-source';

export interface SourceSeries {
  /** Category values, e.g. { country: 'CZ' }. */
  categories: Record<string, string>;
  /** One value per day from the view's start; null = no source row that day. */
  values: Array<number | null>;
  /** Optional count measure (column `nights`), one per day alongside `values`. */
  counts?: number[];
}

const hasCounts = (o: { series: SourceSeries[] }) => o.series.some((s) => s.counts !== undefined);

export interface DetectionViewOptions {
  name: string;
  /** Category names in definition order (all text columns of the source table). */
  categories: Array<{ name: string; parent?: string }>;
  detectors: Array<{ type: string; params?: Record<string, unknown> }>;
  analysis?: Partial<DataViewAnalysis>;
  start?: string;
  series: SourceSeries[];
}

const ymd = (epochDay: number) => {
  const d = new Date(epochDay * 86_400_000);
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
};

/** Writes the source table `<name>` holding the series' rows. */
export async function writeSource(source: TestSource, o: DetectionViewOptions): Promise<void> {
  const cats = o.categories.map((c) => c.name);
  const day0 = toEpochDay(o.start ?? '2024-01-01');
  const rows: string[] = [];
  for (const s of o.series) {
    s.values.forEach((v, t) => {
      if (v === null) return;
      const values = cats.map((c) => `'${s.categories[c]}'`);
      const count = hasCounts(o) ? [s.counts?.[t] ?? 0] : [];
      rows.push(`(${[ymd(day0 + t), ...values, v, ...count].join(', ')})`);
    });
  }
  const countColumn = hasCounts(o) ? ', nights double precision' : '';
  await source.exec(
    `DROP TABLE IF EXISTS ${o.name}; CREATE TABLE ${o.name} (day integer, ${cats.map((c) => `${c} text`).join(', ')}, amount double precision${countColumn});
     INSERT INTO ${o.name} VALUES ${rows.join(',\n')};`,
  );
}

/** Creates the deployed, enabled view with the given detectors and analysis settings; returns its id. */
export async function createDetectionView(db: Database, o: DetectionViewOptions): Promise<number> {
  const cats = o.categories.map((c) => c.name);
  const id = await createDeployedView(db, {
    name: o.name,
    loadQuery: `SELECT day, ${cats.join(', ')}, amount${hasCounts(o) ? ', nights' : ''} FROM ${o.name}`,
    categories: o.categories,
    ...(hasCounts(o) ? { countColumn: 'nights' } : {}),
  });
  const def: DataViewDefinition = definitionOf({ name: o.name, loadQuery: '', categories: o.categories });
  const [row] = await db.orm.select().from(dataViews).where(eq(dataViews.id, id));
  const stored = row.definition as unknown as DataViewDefinition;
  stored.analysis = {
    ...def.analysis,
    ...o.analysis,
    detectors: o.detectors as unknown as DataViewAnalysis['detectors'],
  };
  await db.orm
    .update(dataViews)
    .set({ definition: stored as unknown as Record<string, unknown> })
    .where(eq(dataViews.id, id));
  return id;
}

/** Runs the real load job of the view against the test source. */
export async function loadView(db: Database, source: TestSource, viewId: number): Promise<void> {
  await runLoad(
    { db, log: logger, openSource: source.open, batchSize: 10_000 },
    { id: 1, dataViewId: viewId, kind: 'Load' } as JobRow,
    new AbortController().signal,
  );
}

/** Source table, view and load in one go. */
export async function loadedDetectionView(
  db: Database,
  source: TestSource,
  o: DetectionViewOptions,
): Promise<number> {
  await writeSource(source, o);
  const id = await createDetectionView(db, o);
  await loadView(db, source, id);
  return id;
}

export interface StoredAnomaly {
  id: number;
  series: string;
  type: string;
  detector_index: number;
  start_date: string;
  end_date: string;
  duration: number;
  actual_value: number;
  predicted_value: number;
  change: number;
  change_pct: number | null;
  change_cum: number;
  share_pct: number | null;
  recurrence: number;
  result: string;
  sin: number;
  sim: number;
}

/** The view's anomalies with their series written as the category values ('*' = all), oldest first. */
export async function storedAnomalies(
  db: Database,
  viewId: number,
  categories: string[],
): Promise<StoredAnomaly[]> {
  const s = schemaNameFor(viewId);
  const key = categories.length
    ? `concat_ws('/', ${categories.map((c) => `coalesce(m.c_${c}, '*')`).join(', ')})`
    : `'*'`;
  const rows = await db.rows<StoredAnomaly>(
    sql.raw(`SELECT a.id, ${key} AS series, a.type, a.detector_index, to_char(a.start_date, 'YYYY-MM-DD') AS start_date,
      to_char(a.end_date, 'YYYY-MM-DD') AS end_date, a.duration, a.actual_value, a.predicted_value, a.change, a.change_pct,
      a.change_cum, a.share_pct, a.recurrence, a.result, a.sin, a.sim
      FROM ${s}.all_anomalies a JOIN ${s}.cat_map m USING (series_id) ORDER BY a.start_date, 2, a.type`),
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
