/**
 * Publishing a run: the kept and the staged anomalies, with SIN and SIM, are written into a shadow
 * table without indexes (`anomalies_next_<runId>`), its indexes are built afterwards (the same as
 * all_anomalies has, whoever added them), and one short transaction swaps it in for all_anomalies.
 * Readers see the previous anomalies until that commit and are blocked only for the swap itself;
 * building indexes once is about 3x faster than maintaining them row by row, and the replaced rows
 * leave no dead tuples behind (docs/performance.md).
 */
import { sql } from 'drizzle-orm';
import { ident } from '../dataset/ddl';
import type { Database } from '../db/database';
import { COLUMNS, nextTable, stageTable } from './anomaly-store';

/** Namespace of the per-view publish lock (two-key advisory locks do not meet one-key ones). */
const PUBLISH_LOCK = 727_101;

/** What a run keeps of the previous anomalies: those ending before `replaceFrom`, of detectors still defined. */
export interface PublishOptions {
  /** yyyy-MM-dd; null replaces every anomaly of the view. */
  replaceFrom: string | null;
  /** (detector_index, type) of the view's detectors; older anomalies of other detectors are dropped. */
  detectors: Array<{ index: number; code: string }>;
}

export interface PublishResult {
  inserted: number;
  kept: number;
}

// Significance of the spec (lib/detection/significance.ts, the same formulas set-based): within a peer
// group (measure, result; the view is the schema) duration, |change %| and |share %| divided by the group
// maximum. The type is not part of the group; a null change % contributes 0, never the maximum.
const NORM_DURATION = 'CASE WHEN g.md > 0 THEN abs(a.duration) / g.md ELSE 0 END';
const NORM_CHANGE =
  "CASE WHEN a.change_pct IS NOT NULL AND a.change_pct <> 'NaN'::float8 AND g.mc > 0 THEN abs(a.change_pct) / g.mc ELSE 0 END";
const NORM_SHARE =
  "CASE WHEN a.share_pct IS NOT NULL AND a.share_pct <> 'NaN'::float8 AND g.ms > 0 THEN abs(a.share_pct) / g.ms ELSE 0 END";
const SIN = `2 * ${NORM_SHARE} + ${NORM_CHANGE} + 1.5 * ${NORM_DURATION}`;
const SIM = `(${NORM_CHANGE}) * (${NORM_SHARE}) * (${NORM_DURATION}) / (1 + ln(greatest(a.recurrence, 0) + 1))`;

/**
 * Recurrence: how many earlier anomalies of the same series, measure and type started within the
 * look-back before this one's start (whatever their sign), recomputed over the kept and the new
 * anomalies at every publish.
 */
export const RECURRENCE_LOOKBACK_DAYS = 365;
const RECURRENCE = `count(*) OVER (PARTITION BY series_id, measure, type ORDER BY start_date
  RANGE BETWEEN interval '${RECURRENCE_LOOKBACK_DAYS} days' PRECEDING AND interval '1 day' PRECEDING)::int`;

interface IndexRow {
  name: string;
  def: string;
  /** Set for an index that backs a primary key or unique constraint: its definition. */
  constraint_def: string | null;
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Indexes of all_anomalies as they stand (migrations and other modules may add some). */
async function indexesOf(db: Database, schema: string): Promise<IndexRow[]> {
  return db.rows<IndexRow>(sql`SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def,
      pg_get_constraintdef(c.oid) AS constraint_def
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    LEFT JOIN pg_constraint c ON c.conindid = i.oid AND c.contype IN ('p', 'u') AND c.conrelid = t.oid
    WHERE n.nspname = ${schema} AND t.relname = 'all_anomalies' ORDER BY i.relname`);
}

/** `CREATE [UNIQUE] INDEX name ON table USING …` rewritten for another name and table. */
function retarget(def: string, name: string, table: string): string {
  const m = /^(CREATE (?:UNIQUE )?INDEX )\S+( ON (?:ONLY )?)\S+( USING .*)$/s.exec(def);
  if (!m) throw new Error(`unexpected index definition: ${def}`);
  return `${m[1]}${ident(name)}${m[2]}${table}${m[3]}`;
}

/**
 * Adds the `measure` column to a view's all_anomalies deployed before anomalies had one (every row
 * there is of the value measure). Only when it is missing, so that the usual publish takes no lock here.
 */
export async function ensureMeasureColumn(db: Database, schema: string): Promise<void> {
  const [{ n }] = await db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM information_schema.columns
    WHERE table_schema = ${schema} AND table_name = 'all_anomalies' AND column_name = 'measure'`);
  if (Number(n) > 0) return;
  await db.rows(
    sql.raw(
      `ALTER TABLE ${ident(schema)}.all_anomalies ADD COLUMN IF NOT EXISTS measure text NOT NULL DEFAULT 'value'`,
    ),
  );
}

/**
 * A count anomaly is published only when it tells something the value measure does not: one whose days
 * overlap a value anomaly of the same series and result (any type) is the same event seen twice (more
 * orders and more revenue), so it is folded into that one. A count that moves while the value holds
 * (smaller baskets, a price change) stays. The staged rows of every measure but count, then the count
 * rows without such a value anomaly: a NOT EXISTS of its own is planned as a hash anti-join, where the
 * same test under an OR is planned as a scan of the stage per count row (docs/performance.md, Measurements
 * behind the code).
 */
const STAGED_ROWS = (
  stage: string,
  extra: string,
) => `SELECT NULL::int, NULL::timestamptz, ${extra}${COLUMNS} FROM ${stage} st WHERE st.measure <> 'count'
  UNION ALL SELECT NULL::int, NULL::timestamptz, ${extra}${COLUMNS} FROM ${stage} st WHERE st.measure = 'count' AND NOT EXISTS (
    SELECT 1 FROM ${stage} v WHERE v.measure = 'value' AND v.series_id = st.series_id AND v.result = st.result
      AND v.start_date <= st.end_date AND st.start_date <= v.end_date)`;

/** True when the view's all_anomalies has the `incident_id` column (the incident step adds it). */
async function hasIncidentColumn(db: Database, live: string): Promise<boolean> {
  const [{ c }] = await db.rows<{ c: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
    WHERE attrelid = to_regclass(${live}) AND attname = 'incident_id' AND NOT attisdropped) AS c`);
  return c === true;
}

/**
 * Each record's incident, carried over from the records it replaces: a kept record keeps its own, a staged
 * one takes that of the previous record with its stable key (series, measure, type, start; the incident
 * step's member key). The step after the cycle then writes only the records whose incident changed
 * (docs/incidents.md, "Storage"). Empty when the view has no incidents yet.
 */
function incidentCarry(live: string, carry: boolean) {
  if (!carry) return { column: '', extra: '', prev: '', join: '', value: '' };
  return {
    column: 'incident_id, ',
    extra: 'NULL::int AS incident_id, ',
    prev: `, p AS (SELECT series_id, measure, type, start_date, min(incident_id) AS incident_id FROM ${live}
        WHERE incident_id IS NOT NULL GROUP BY series_id, measure, type, start_date)`,
    join: `LEFT JOIN p ON p.series_id = a.series_id AND p.measure = a.measure AND p.type = a.type AND p.start_date = a.start_date`,
    value: 'coalesce(a.incident_id, p.incident_id), ',
  };
}

/** Replaces the view's anomalies with the kept and the staged ones; see the module comment. */
export async function publishStage(
  db: Database,
  schema: string,
  runId: number,
  lockKey: number,
  opts: PublishOptions,
): Promise<PublishResult> {
  const s = ident(schema);
  const live = `${s}.all_anomalies`;
  const next = nextTable(schema, runId);
  const tmp = (k: number) => `ax${k}_r${Math.abs(Math.trunc(runId))}`;
  const [{ seq }] = await db.rows<{ seq: string | null }>(
    sql`SELECT pg_get_serial_sequence(${live}, 'id') AS seq`,
  );
  if (!seq) throw new Error(`${live}.id has no sequence`);
  const keep =
    opts.replaceFrom === null || opts.detectors.length === 0
      ? 'false'
      : `end_date < ${quote(opts.replaceFrom)}::date AND (detector_index, type) IN (${opts.detectors
          .map((d) => `(${Math.trunc(d.index)}, ${quote(d.code)})`)
          .join(', ')})`;
  const cols = COLUMNS.split(', ').filter((c) => c !== 'recurrence');
  const run = (text: string) => db.rows(sql.raw(text));
  await ensureMeasureColumn(db, schema);
  // The stage was filled without statistics: the planner would take it for empty, or huge.
  await run(`ANALYZE ${stageTable(schema, runId)}`);
  try {
    await run(`DROP TABLE IF EXISTS ${next}`);
    await run(`CREATE TABLE ${next} (LIKE ${live} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    const inc = incidentCarry(live, await hasIncidentColumn(db, live));
    await run(`WITH k AS (
        SELECT id, created_at, ${inc.column}${COLUMNS} FROM ${live} WHERE ${keep}
        UNION ALL ${STAGED_ROWS(stageTable(schema, runId), inc.extra)}),
      u AS (SELECT id, created_at, ${inc.column}${cols.join(', ')}, ${RECURRENCE} AS recurrence FROM k),
      g AS (SELECT measure, result, max(abs(duration))::float8 AS md,
          max(abs(NULLIF(change_pct, 'NaN'::float8))) AS mc, max(abs(NULLIF(share_pct, 'NaN'::float8))) AS ms
        FROM u GROUP BY measure, result)${inc.prev}
      INSERT INTO ${next} (id, created_at, ${inc.column}${cols.join(', ')}, recurrence, sin, sim)
      SELECT coalesce(a.id, nextval(${quote(seq)})), coalesce(a.created_at, now()), ${inc.value}${cols.map((c) => `a.${c}`).join(', ')}, a.recurrence, ${SIN}, ${SIM}
      FROM u a JOIN g ON g.measure = a.measure AND g.result = a.result ${inc.join}`);
    const indexes = await indexesOf(db, schema);
    for (const [k, ix] of indexes.entries()) {
      if (ix.constraint_def)
        await run(`ALTER TABLE ${next} ADD CONSTRAINT ${ident(tmp(k))} ${ix.constraint_def}`);
      else await run(retarget(ix.def, tmp(k), next));
    }
    await run(`ANALYZE ${next}`);
    const [{ kept, total }] = await db.rows<{ kept: number; total: number }>(
      sql.raw(
        `SELECT count(*) FILTER (WHERE id IN (SELECT id FROM ${live} WHERE ${keep}))::int AS kept, count(*)::int AS total FROM ${next}`,
      ),
    );
    await db.tx(async (tx) => {
      // Two runs of one view swap one after the other; the later one wins with its complete result.
      await tx.rows(sql`SELECT pg_advisory_xact_lock(${PUBLISH_LOCK}, ${lockKey})`);
      await tx.rows(sql.raw(`ALTER SEQUENCE ${seq} OWNED BY ${next}.id`));
      await tx.rows(sql.raw(`DROP TABLE ${live}`));
      await tx.rows(sql.raw(`ALTER TABLE ${next} RENAME TO all_anomalies`));
      for (const [k, ix] of indexes.entries()) {
        if (ix.constraint_def)
          await tx.rows(
            sql.raw(`ALTER TABLE ${live} RENAME CONSTRAINT ${ident(tmp(k))} TO ${ident(ix.name)}`),
          );
        else await tx.rows(sql.raw(`ALTER INDEX ${s}.${ident(tmp(k))} RENAME TO ${ident(ix.name)}`));
      }
    });
    return { inserted: Number(total) - Number(kept), kept: Number(kept) };
  } finally {
    await run(`DROP TABLE IF EXISTS ${next}`).catch(() => {});
  }
}
