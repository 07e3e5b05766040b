/**
 * The incidents of a deployed view, in its schema (`dv_<id>.incidents`), and each anomaly record's
 * `incident_id` in all_anomalies. This module owns the incidents table; the records' column is written
 * here only, after each detection cycle (lib/incidents/step.ts).
 */
import { sql } from 'drizzle-orm';
import { fromEpochDay } from '../calendar/days';
import { codeColumn, ident, INCIDENTS_DDL } from '../dataset/ddl';
import { catalogTable, catalogToken } from '../dataset/catalog';
import type { Database } from '../db/database';
import {
  addIncidentIdColumn,
  anomaliesTable,
  clearStaleIncidentIds,
  incidentIdColumnExists,
  readGroupingRecords,
  writeIncidentIds,
} from '../process-job';
import type { MemberRecord } from './grouping';
import type { Categories, IncidentBroad, IncidentCause } from './types';

/** Sequence of incident ids of a view: ids are never reused, so a link to an incident stays its own. */
const SEQUENCE_DDL = (s: string) => `CREATE SEQUENCE IF NOT EXISTS ${s}.incidents_id_seq`;

/** Where the records of an incident that a regrouping dissolved went: the incidents that now hold them. */
const MOVES_DDL = (s: string) =>
  `CREATE TABLE IF NOT EXISTS ${s}.incident_moves (id integer PRIMARY KEY, moved_to integer[] NOT NULL,
    moved_at timestamptz NOT NULL DEFAULT now())`;

/** The tables and column incidents need, created on first use (views deployed before incidents existed). */
export async function ensureIncidentTables(db: Database, schema: string): Promise<void> {
  const s = ident(schema);
  // From the catalog, not information_schema (a view over every table, slow on a server with many schemas).
  const column = (table: string, name: string) =>
    `EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('${table.replace(/'/g, "''")}')
      AND attname = '${name}' AND NOT attisdropped)`;
  const [{ t, c, e, m }] = await db.rows<{ t: boolean; c: boolean; e: boolean; m: boolean }>(
    sql.raw(`SELECT to_regclass('${`${s}.incidents`.replace(/'/g, "''")}') IS NOT NULL AS t,
      ${column(anomaliesTable(schema), 'incident_id')} AS c, ${column(`${s}.incidents`, 'explained_from')} AS e,
      to_regclass('${`${s}.incident_moves`.replace(/'/g, "''")}') IS NOT NULL AS m`),
  );
  if (!m) await db.rows(sql.raw(MOVES_DDL(s)));
  if (!t) {
    await db.rows(sql.raw(INCIDENTS_DDL(s)));
    await db.rows(sql.raw(SEQUENCE_DDL(s)));
  } else if (!e)
    // Tables of views deployed before incidents were split by their explanation.
    await db.rows(sql.raw(`ALTER TABLE ${s}.incidents ADD COLUMN IF NOT EXISTS explained_from text`));
  if (!c) await addIncidentIdColumn(db, schema);
}

/**
 * Whether the view's schema holds incidents (the incidents table and the records' incident_id column):
 * views deployed before incidents existed have neither until their first cycle. Read from the catalog,
 * not information_schema (a view over every table, slow on a server with many schemas).
 */
export async function hasIncidents(db: Database, schema: string): Promise<boolean> {
  const s = ident(schema);
  const [row] = await db.rows<{ t: boolean }>(
    sql`SELECT to_regclass(${`${s}.incidents`}) IS NOT NULL AND ${incidentIdColumnExists(schema)} AS t`,
  );
  return row?.t === true;
}

/** Whether the view's schema has an incidents table (a view deployed before incidents has none until its first cycle). */
export async function hasIncidentsTable(db: Database, schema: string): Promise<boolean> {
  const [{ t }] = await db.rows<{ t: boolean }>(
    sql`SELECT to_regclass(${`${ident(schema)}.incidents`}) IS NOT NULL AS t`,
  );
  return t;
}

/** Every series of the view: its codes and category values (null = all). */
export interface SeriesCatalog {
  ids: Int32Array;
  codes: Int32Array[];
  values: Array<Array<string | null>>;
  byId: Map<number, number>;
  byCodes: Map<string, number>;
}

export async function readCatalog(
  db: Database,
  schema: string,
  categories: readonly string[],
): Promise<SeriesCatalog> {
  const cols = categories.flatMap((c) => [
    `${codeColumn(c)} AS k${categories.indexOf(c)}`,
    `${ident(`c_${c.toLowerCase()}`)} AS v${categories.indexOf(c)}`,
  ]);
  const rows = await db.rows<Record<string, unknown>>(
    sql.raw(
      `SELECT series_id${cols.length ? `, ${cols.join(', ')}` : ''} FROM ${catalogTable(schema)} ORDER BY series_id`,
    ),
  );
  const ids = new Int32Array(rows.length);
  const codes: Int32Array[] = [];
  const values: Array<Array<string | null>> = [];
  const byId = new Map<number, number>();
  const byCodes = new Map<string, number>();
  rows.forEach((r, i) => {
    ids[i] = Number(r.series_id);
    const c = Int32Array.from(categories.map((_, k) => Number(r[`k${k}`] ?? 0)));
    codes.push(c);
    values.push(categories.map((_, k) => (r[`v${k}`] as string | null) ?? null));
    byId.set(ids[i], i);
    byCodes.set(c.join(','), ids[i]);
  });
  return { ids, codes, values, byId, byCodes };
}

/** Catalogs read lately, by schema and category names, with the token of the cat_map they were read from. */
const catalogs = new Map<string, { token: string; catalog: SeriesCatalog }>();
const CACHED_CATALOGS = 8;

/**
 * The view's catalog, read again only when its cat_map changed (another table after a full load, other
 * rows after an incremental one): a request that asks what drove a change reads it in one short statement
 * instead of every series' categories.
 */
export async function cachedCatalog(
  db: Database,
  schema: string,
  categories: readonly string[],
): Promise<SeriesCatalog> {
  const token = await catalogToken(db, schema);
  const key = `${schema}|${categories.join(',')}`;
  const hit = catalogs.get(key);
  if (hit && hit.token === token) {
    catalogs.delete(key);
    catalogs.set(key, hit);
    return hit.catalog;
  }
  const catalog = await readCatalog(db, schema, categories);
  catalogs.delete(key);
  catalogs.set(key, { token, catalog });
  while (catalogs.size > CACHED_CATALOGS) catalogs.delete(catalogs.keys().next().value as string);
  return catalog;
}

/** The categories of a series of the catalog by name. */
export function categoriesOf(catalog: SeriesCatalog, categories: readonly string[], row: number): Categories {
  return Object.fromEntries(categories.map((c, k) => [c, catalog.values[row][k]]));
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const epochDay = (iso: string) => Math.round(Date.parse(`${iso}T00:00:00Z`) / 86_400_000);

/** Every anomaly record of the view as grouping reads it (records of series missing from the catalog are skipped). */
export async function readMemberRecords(
  db: Database,
  schema: string,
  catalog: SeriesCatalog,
): Promise<MemberRecord[]> {
  const rows = await readGroupingRecords(db, schema);
  const out: MemberRecord[] = [];
  for (const r of rows) {
    const row = catalog.byId.get(Number(r.series_id));
    if (row === undefined) continue;
    out.push({
      id: Number(r.id),
      seriesId: Number(r.series_id),
      codes: catalog.codes[row],
      measure: String(r.measure ?? 'value'),
      type: String(r.type),
      result: r.result as 'Positive' | 'Negative',
      startDay: epochDay(String(r.s)),
      endDay: epochDay(String(r.e)),
      actualValue: num(r.actual_value),
      predictedValue: num(r.predicted_value),
      changeCum: num(r.change_cum),
      sharePct: num(r.share_pct),
      sin: num(r.sin),
    });
  }
  return out;
}

/** A record's stable key (it survives re-detection; ids do not). */
export function memberKey(r: Pick<MemberRecord, 'seriesId' | 'measure' | 'type' | 'startDay'>): string {
  return `${r.seriesId}:${r.measure}:${r.type}:${fromEpochDay(r.startDay)}`;
}

export interface StoredIncident {
  id: number;
  memberKeys: string[];
  result: string;
  /** The broad series. */
  seriesId: number;
  startDay: number;
  endDay: number;
  headKey: string;
  broad: IncidentBroad;
  rootCauses: IncidentCause[];
  firstSeenAt: string;
  firstSeenJob: number | null;
  /** The group of records its explanation was computed for (a hash of their keys; null before splits). */
  explainedFrom: string | null;
  /** What its row holds besides its id and first sighting (incidentContent): an unchanged row is not written again. */
  content: string;
}

/** JSON with the keys of every object sorted (jsonb keeps its own key order). */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x as object)
            .sort()
            .map((k) => [k, (x as Record<string, unknown>)[k]]),
        )
      : x,
  );
}

/**
 * The columns of an incident row that a cycle may change, but its broad series and root causes (JSON),
 * as one text; ids and first sighting aside.
 */
export function incidentContent(r: {
  result: string;
  measures: readonly string[];
  types: readonly string[];
  start_date: string;
  end_date: string;
  size: number;
  series_id: number;
  head_series_id: number;
  head_measure: string;
  head_type: string;
  head_start: string;
  member_keys: readonly string[];
  explained_from: string | null;
}): string {
  return [
    r.result,
    r.measures.join(','),
    r.types.join(','),
    r.start_date,
    r.end_date,
    Number(r.size),
    Number(r.series_id),
    Number(r.head_series_id),
    r.head_measure,
    r.head_type,
    r.head_start,
    r.explained_from ?? '',
    r.member_keys.join('\n'),
  ].join('|');
}

/** Same JSON (the same objects when an explanation was kept, else compared with sorted keys). */
const sameJson = (a: unknown, b: unknown) => a === b || canonical(a) === canonical(b);

export async function readStoredIncidents(db: Database, schema: string): Promise<StoredIncident[]> {
  const rows = await db.rows<Record<string, unknown>>(
    sql.raw(`SELECT id, result, measures, types, to_char(start_date, 'YYYY-MM-DD') AS start_date, to_char(end_date, 'YYYY-MM-DD') AS end_date,
      size, series_id, member_keys, head_series_id, head_measure, head_type, to_char(head_start, 'YYYY-MM-DD') AS head_start,
      broad, root_causes, first_seen_at, first_seen_job, explained_from FROM ${ident(schema)}.incidents`),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    memberKeys: (r.member_keys as string[]) ?? [],
    result: String(r.result),
    seriesId: Number(r.series_id),
    startDay: epochDay(String(r.start_date)),
    endDay: epochDay(String(r.end_date)),
    headKey: `${r.head_series_id}:${r.head_measure}:${r.head_type}:${r.head_start}`,
    broad: r.broad as IncidentBroad,
    rootCauses: r.root_causes as IncidentCause[],
    firstSeenAt: new Date(r.first_seen_at as string).toISOString(),
    firstSeenJob: num(r.first_seen_job),
    explainedFrom: (r.explained_from as string | null) ?? null,
    content: incidentContent(r as unknown as Parameters<typeof incidentContent>[0]),
  }));
}

export interface IncidentRow {
  id: number | null;
  result: string;
  measures: string[];
  types: string[];
  startDay: number;
  endDay: number;
  size: number;
  broad: IncidentBroad;
  rootCauses: IncidentCause[];
  head: MemberRecord;
  memberKeys: string[];
  memberIds: number[];
  firstSeenAt: string | null;
  firstSeenJob: number | null;
  explainedFrom: string;
}

const jsonText = (v: unknown) => JSON.stringify(v);

/** Rows per statement on the embedded database (short statements); PostgreSQL takes each step in one. */
const PGLITE_ROWS = 500;

/** `xs` in parts of `n` on PGlite, whole on PostgreSQL. */
function partsOf<T>(db: Database, xs: readonly T[], n: number): T[][] {
  if (db.kind !== 'pglite') return xs.length ? [[...xs]] : [];
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** The row of the incidents table for an incident row with its id. */
function payloadOf(r: IncidentRow, id: number, jobId: number | null) {
  return {
    id,
    result: r.result,
    measures: r.measures,
    types: r.types,
    start_date: fromEpochDay(r.startDay),
    end_date: fromEpochDay(r.endDay),
    size: r.size,
    series_id: r.broad.seriesId,
    broad: r.broad,
    root_causes: r.rootCauses,
    head_series_id: r.head.seriesId,
    head_measure: r.head.measure,
    head_type: r.head.type,
    head_start: fromEpochDay(r.head.startDay),
    member_keys: r.memberKeys,
    first_seen_at: r.firstSeenAt,
    first_seen_job: r.firstSeenAt === null ? jobId : r.firstSeenJob,
    explained_from: r.explainedFrom,
  };
}

/** PostgreSQL array literal of texts (null: NULL). */
function textArray(xs: ReadonlyArray<string | null>): string {
  return `{${xs.map((x) => (x === null ? 'NULL' : `"${x.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
}

/** Lists inside one text (measures, types, member keys hold neither separator). */
const LIST = ',';
const KEYS = '\n';

/**
 * Inserts incident rows, one array per column: PostgreSQL parses many small JSON texts much faster than
 * one JSON document of the same rows (jsonb_to_recordset) (docs/performance.md, Measurements behind the code).
 */
async function insertIncidents(
  tx: Database,
  s: string,
  payload: ReadonlyArray<ReturnType<typeof payloadOf>>,
) {
  for (const part of partsOf(tx, payload, PGLITE_ROWS)) {
    const col = <K extends keyof ReturnType<typeof payloadOf>>(k: K) => part.map((p) => p[k]);
    const ints = (xs: ReadonlyArray<number | null>) =>
      textArray(xs.map((x) => (x === null ? null : String(x))));
    await tx.rows(sql`INSERT INTO ${sql.raw(`${s}.incidents`)} (id, result, measures, types, start_date, end_date, size, series_id,
        broad, root_causes, head_series_id, head_measure, head_type, head_start, member_keys, first_seen_at, first_seen_job, explained_from)
      SELECT x.id, x.result, string_to_array(x.measures, ${LIST}), string_to_array(x.types, ${LIST}), x.start_date::date,
        x.end_date::date, x.size, x.series_id, x.broad::jsonb, x.root_causes::jsonb, x.head_series_id, x.head_measure, x.head_type,
        x.head_start::date, string_to_array(x.member_keys, ${KEYS}), coalesce(x.first_seen_at::timestamptz, now()), x.first_seen_job,
        x.explained_from
      FROM unnest(${ints(col('id'))}::int[], ${textArray(col('result'))}::text[],
        ${textArray(part.map((p) => p.measures.join(LIST)))}::text[], ${textArray(part.map((p) => p.types.join(LIST)))}::text[],
        ${textArray(col('start_date'))}::text[], ${textArray(col('end_date'))}::text[], ${ints(col('size'))}::int[],
        ${ints(col('series_id'))}::int[], ${textArray(part.map((p) => jsonText(p.broad)))}::text[],
        ${textArray(part.map((p) => jsonText(p.root_causes)))}::text[], ${ints(col('head_series_id'))}::int[],
        ${textArray(col('head_measure'))}::text[], ${textArray(col('head_type'))}::text[], ${textArray(col('head_start'))}::text[],
        ${textArray(part.map((p) => p.member_keys.join(KEYS)))}::text[], ${textArray(col('first_seen_at'))}::text[],
        ${ints(col('first_seen_job'))}::int[], ${textArray(col('explained_from'))}::text[])
        AS x(id, result, measures, types, start_date, end_date, size, series_id, broad, root_causes, head_series_id, head_measure,
          head_type, head_start, member_keys, first_seen_at, first_seen_job, explained_from)`);
  }
}

/** Sets each record's incident_id (pairs of record id and incident id); only those that change are written. */
async function setIncidentIds(tx: Database, schema: string, pairs: ReadonlyArray<readonly [number, number]>) {
  // Records of no incident (series no longer in the catalog) lose a stale one.
  await clearStaleIncidentIds(tx, schema, `{${pairs.map((p) => p[0]).join(',')}}`);
  for (const part of partsOf(tx, pairs, PGLITE_ROWS * 4)) await writeIncidentIds(tx, schema, part);
}

/**
 * Replaces the view's incidents with `rows` and sets every record's incident_id, in one transaction.
 * Rows without an id get a new one from the view's sequence. A row whose stored content (`stored`: by id,
 * as readStoredIncidents read it) is what it would write stays as it is: a daily cycle that re-detects
 * the same events rewrites none of them.
 */
export async function writeIncidents(
  db: Database,
  schema: string,
  rows: IncidentRow[],
  jobId: number | null,
  stored: ReadonlyMap<number, Pick<StoredIncident, 'content' | 'broad' | 'rootCauses'>> = new Map(),
): Promise<number[]> {
  const s = ident(schema);
  return db.tx(async (tx) => {
    const fresh = rows.filter((r) => r.id === null).length;
    const ids = fresh
      ? (
          await tx.rows<{ id: number }>(
            sql.raw(`SELECT nextval('${s}.incidents_id_seq')::int AS id FROM generate_series(1, ${fresh})`),
          )
        ).map((r) => Number(r.id))
      : [];
    let next = 0;
    const assigned = rows.map((r) => r.id ?? ids[next++]);
    const payload = rows.map((r, i) => payloadOf(r, assigned[i], jobId));
    const same = payload.filter((p, i) => {
      const was = rows[i].id === null ? undefined : stored.get(p.id);
      return (
        was !== undefined &&
        was.content === incidentContent(p) &&
        sameJson(was.broad, p.broad) &&
        sameJson(was.rootCauses, p.root_causes)
      );
    });
    const keep = `{${same.map((p) => p.id).join(',')}}`;
    await tx.rows(sql`DELETE FROM ${sql.raw(`${s}.incidents`)} WHERE NOT (id = ANY(${keep}::int[]))`);
    const kept = new Set(same.map((p) => p.id));
    await insertIncidents(
      tx,
      s,
      payload.filter((p) => !kept.has(p.id)),
    );
    const pairs: Array<[number, number]> = [];
    rows.forEach((r, i) => {
      for (const m of r.memberIds) pairs.push([m, assigned[i]]);
    });
    await setIncidentIds(tx, schema, pairs);
    return assigned;
  });
}

/**
 * Pure: for each previous incident whose id no row keeps, the ids of the rows that now hold its records (by
 * their keys), most records first; previous incidents whose records are all gone are left out.
 */
export function movesOf(
  previous: ReadonlyArray<{ id: number; memberKeys: readonly string[] }>,
  rows: ReadonlyArray<{ memberKeys: readonly string[] }>,
  ids: readonly number[],
): Array<{ id: number; movedTo: number[] }> {
  const kept = new Set(ids);
  const holder = new Map<string, number>();
  rows.forEach((r, i) => {
    for (const k of r.memberKeys) holder.set(k, ids[i]);
  });
  const out: Array<{ id: number; movedTo: number[] }> = [];
  for (const p of previous) {
    if (kept.has(p.id)) continue;
    const shared = new Map<number, number>();
    for (const k of p.memberKeys) {
      const to = holder.get(k);
      if (to !== undefined) shared.set(to, (shared.get(to) ?? 0) + 1);
    }
    if (shared.size === 0) continue;
    out.push({ id: p.id, movedTo: [...shared].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([to]) => to) });
  }
  return out;
}

/**
 * Pure: `moves` and, for each incident given feedback (`heirs`: its id → the incidents of this cycle that
 * inherited the feedback) whose id no row keeps and whose records went nowhere — detection no longer reports
 * a dismissed event's own records — a move to the incidents that carry its event now.
 */
export function withHeirMoves(
  moves: ReadonlyArray<{ id: number; movedTo: number[] }>,
  heirs: ReadonlyMap<number, readonly number[]>,
  ids: readonly number[],
): Array<{ id: number; movedTo: number[] }> {
  const kept = new Set(ids);
  const moved = new Set(moves.map((m) => m.id));
  const out = [...moves];
  for (const [id, to] of heirs) {
    const elsewhere = [...new Set(to)].filter((i) => i !== id).sort((a, b) => a - b);
    if (!kept.has(id) && !moved.has(id) && elsewhere.length) out.push({ id, movedTo: elsewhere });
  }
  return out;
}

/** Records where dissolved incidents' records went (an id that comes back as an incident is no longer moved). */
export async function writeMoves(
  db: Database,
  schema: string,
  moves: ReadonlyArray<{ id: number; movedTo: number[] }>,
  ids: readonly number[],
): Promise<void> {
  const s = ident(schema);
  if (ids.length)
    await db.rows(sql.raw(`DELETE FROM ${s}.incident_moves WHERE id = ANY('{${ids.join(',')}}'::int[])`));
  for (const m of moves)
    await db.rows(sql`INSERT INTO ${sql.raw(`${s}.incident_moves`)} (id, moved_to)
      VALUES (${m.id}, ${`{${m.movedTo.join(',')}}`}::int[])
      ON CONFLICT (id) DO UPDATE SET moved_to = EXCLUDED.moved_to, moved_at = now()`);
}

/**
 * Where an incident id that no longer exists went: the incidents that now hold its records, following later
 * moves (at most a few hops); empty when it never existed or its records are gone.
 */
export async function movedTo(db: Database, schema: string, id: number): Promise<number[]> {
  const s = ident(schema);
  const [{ m }] = await db.rows<{ m: boolean }>(
    sql`SELECT to_regclass(${`${s}.incident_moves`}) IS NOT NULL AS m`,
  );
  if (!m) return [];
  let ids = [id];
  for (let hop = 0; hop < 8; hop++) {
    const rows = await db.rows<{ id: number; moved_to: number[] }>(
      sql.raw(`SELECT id, moved_to FROM ${s}.incident_moves WHERE id = ANY('{${ids.join(',')}}'::int[])`),
    );
    if (rows.length === 0) break;
    const moved = new Map(rows.map((r) => [Number(r.id), (r.moved_to ?? []).map(Number)]));
    const next = [...new Set(ids.flatMap((i) => moved.get(i) ?? [i]))];
    if (next.length === ids.length && next.every((x, k) => x === ids[k])) break;
    ids = next;
  }
  const existing = await db.rows<{ id: number }>(
    sql.raw(`SELECT id FROM ${s}.incidents WHERE id = ANY('{${ids.join(',')}}'::int[])`),
  );
  const alive = new Set(existing.map((r) => Number(r.id)));
  return ids.filter((i) => i !== id && alive.has(i));
}
