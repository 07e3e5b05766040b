/** Deployed data views with hand-made anomalies, written by SQL into dv_<id>.all_anomalies and cat_map. */
import { sql } from 'drizzle-orm';
import { categoryColumn, createDataset, ident, schemaNameFor } from '../../../lib/dataset/ddl';
import type { Database } from '../../../lib/db/database';
import type { AnomalyRecord } from '../../../lib/filters/types';
import type { Caller, Permission } from '../../../lib/identity/caller';

export interface ViewSpec {
  domain: string;
  name: string;
  categories: string[];
  /** Default true: creates the dataset schema. */
  deployed?: boolean;
}

/** One stored anomaly; omitted measures take plain defaults, categories go to cat_map. */
export interface StoredAnomaly {
  type?: string;
  measure?: 'value' | 'count';
  startDate: string;
  endDate?: string;
  actualValue?: number | null;
  predictedValue?: number | null;
  change?: number | null;
  changePct?: number | null;
  changeCum?: number | null;
  sharePct?: number | null;
  recurrence?: number;
  result?: 'Positive' | 'Negative';
  sin?: number | null;
  sim?: number | null;
  categories?: Record<string, string | null>;
}

const DAY = 86_400_000;
export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY) + 1;
export const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

export interface TestView {
  id: number;
  label: string;
  categories: string[];
}

/** Inserts a data view row (and its dataset when deployed). */
export async function createView(db: Database, spec: ViewSpec): Promise<TestView> {
  const definition = {
    schemaVersion: 3,
    metadata: { name: spec.name, domain: spec.domain, enabled: true },
    categories: spec.categories.map((name) => ({ name, label: name })),
  };
  const [row] = await db.rows<{ id: number }>(sql`
    INSERT INTO data_views (name, domain, connector, definition)
    VALUES (${spec.name}, ${spec.domain}, 'demo', ${JSON.stringify(definition)}::jsonb) RETURNING id`);
  const id = Number(row.id);
  if (spec.deployed !== false) {
    const schema = schemaNameFor(id);
    await db.tx((tx) => createDataset(tx, schema, { categories: definition.categories }));
    await db.rows(
      sql`UPDATE data_views SET deployed = true, enabled = true, schema_name = ${schema} WHERE id = ${id}`,
    );
  }
  return { id, label: `${spec.domain} / ${spec.name}`, categories: spec.categories };
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return Number.isNaN(v) ? `'NaN'::float8` : String(v);
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** The record the service should return for a stored anomaly (defaults applied), without id and comments. */
function normalize(
  view: { id: number; label: string; categories: string[] },
  a: StoredAnomaly,
): Omit<AnomalyRecord, 'id' | 'seriesId'> {
  const endDate = a.endDate ?? a.startDate;
  const change = a.change === undefined ? 10 : a.change;
  const categories: Record<string, string | null> = {};
  for (const c of view.categories) categories[c] = a.categories?.[c] ?? null;
  return {
    dataViewId: view.id,
    dataView: view.label,
    measure: a.measure ?? 'value',
    type: a.type ?? 'DOD',
    startDate: a.startDate,
    endDate,
    duration: daysBetween(a.startDate, endDate),
    actualValue: a.actualValue === undefined ? 110 : a.actualValue,
    predictedValue: a.predictedValue === undefined ? 100 : a.predictedValue,
    change,
    changePct: a.changePct === undefined ? 10 : a.changePct,
    changeCum: a.changeCum === undefined ? change : a.changeCum,
    sharePct: a.sharePct === undefined ? 5 : a.sharePct,
    recurrence: a.recurrence ?? 0,
    result: a.result ?? (change !== null && change < 0 ? 'Negative' : 'Positive'),
    categories,
    sin: a.sin === undefined ? 1 : a.sin,
    sim: a.sim === undefined ? 0.1 : a.sim,
    comments: [],
    // Hand-made anomalies belong to no incident until a detection cycle builds them.
    incidentId: null,
    // No feedback on hand-made anomalies (lib/feedback sets it on every record it reads).
    feedback: null,
  };
}

/** Writes the anomalies (one series per category combination); returns the records the service should show. */
export async function addAnomalies(
  db: Database,
  view: { id: number; label: string; categories: string[] },
  anomalies: StoredAnomaly[],
): Promise<AnomalyRecord[]> {
  const s = ident(schemaNameFor(view.id));
  const known = new Map<string, number>();
  for (const r of await db.rows<{ series_id: number; series_key: string }>(
    sql.raw(`SELECT series_id, series_key FROM ${s}.cat_map`),
  )) {
    known.set(r.series_key, Number(r.series_id));
  }
  let nextSeries = Math.max(0, ...known.values()) + 1;
  const seriesRows: string[] = [];
  const seriesOf = (cats: Record<string, string | null>) => {
    const key = JSON.stringify(view.categories.map((c) => cats[c]));
    let id = known.get(key);
    if (id === undefined) {
      id = nextSeries++;
      known.set(key, id);
      const level = view.categories.filter((c) => cats[c] !== null).length;
      const values = [id, ...view.categories.map((c) => literal(cats[c])), level, literal(key)];
      seriesRows.push(`(${values.join(', ')})`);
    }
    return id;
  };
  const records = anomalies.map((a) => {
    const r = normalize(view, a);
    return { ...r, seriesId: seriesOf(r.categories) };
  });
  if (seriesRows.length) {
    const cols = view.categories.map((c) => `${categoryColumn(c)}, `).join('');
    await db.rows(
      sql.raw(
        `INSERT INTO ${s}.cat_map (series_id, ${cols}level, series_key) VALUES ${seriesRows.join(', ')}`,
      ),
    );
  }
  if (records.length === 0) return [];
  const values = records.map(
    (r) =>
      `(${[
        r.seriesId,
        literal(r.measure),
        literal(r.type),
        literal(r.startDate),
        literal(r.endDate),
        r.duration,
        literal(r.actualValue),
        literal(r.predictedValue),
        literal(r.change),
        literal(r.changePct),
        literal(r.changeCum),
        literal(r.sharePct),
        r.recurrence,
        literal(r.result),
        literal(r.sin),
        literal(r.sim),
      ].join(', ')})`,
  );
  const rows = await db.rows<{ id: number }>(
    sql.raw(`INSERT INTO ${s}.all_anomalies (series_id, measure, type, start_date, end_date, duration, actual_value, predicted_value,
      change, change_pct, change_cum, share_pct, recurrence, result, sin, sim) VALUES ${values.join(', ')} RETURNING id`),
  );
  // Serial ids follow the VALUES order.
  const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  return records.map((r, i) => ({ ...r, id: ids[i] }));
}

/** A comment row on a view. */
export async function addComment(
  db: Database,
  c: {
    dataViewId: number;
    text: string;
    dateFrom: string;
    dateTo: string;
    categories?: Record<string, string | null>;
  },
): Promise<number> {
  const [row] = await db.rows<{ id: number }>(sql`
    INSERT INTO comments (text, email, data_view_id, date_from, date_to, categories)
    VALUES (${c.text}, 'admin@example.com', ${c.dataViewId}, ${c.dateFrom}::date, ${c.dateTo}::date,
            ${JSON.stringify(c.categories ?? {})}::jsonb) RETURNING id`);
  return Number(row.id);
}

/** A user row and a matching Caller (a data user sees `dataViews`, an admin sees all). */
export async function createCaller(
  db: Database,
  email: string,
  role: 'admin' | 'data-user',
  dataViews: number[] = [],
): Promise<Caller> {
  const [row] = await db.rows<{ id: number }>(
    sql`INSERT INTO users (email, role) VALUES (${email}, ${role}) RETURNING id`,
  );
  const permissions = new Set<Permission>(
    role === 'admin' ? ['read', 'write', 'process', 'admin'] : ['read', 'write', 'process'],
  );
  return {
    userId: Number(row.id),
    email,
    role,
    permissions,
    via: 'token',
    dataViews: role === 'admin' ? 'all' : new Set(dataViews),
  };
}
