/**
 * The baseline tables of a view (docs/detectors.md, "Baseline tables"): one row per peer group and
 * window (the members' median change per day), one per parent and child category (the number of
 * children with data per day), one per series with a parent (the mix link). Daily values are
 * arrays from `first_day` on, so a rebuild writes a few rows per group instead of one per day.
 * Rows carry the run that wrote them; rows of groups that no longer exist are pruned at the end.
 */
import { sql } from 'drizzle-orm';
import { epochDayToYyyymmdd } from '../calendar/days';
import { baselineTablesDdl, ident } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { ShardBaselines } from './shard';
import { intArrayLiteral } from '../dataset/ddl';

/** Creates the baseline tables in their current shape (a dataset deployed before keeps older ones). */
export async function ensureBaselineTables(db: Database, schema: string): Promise<void> {
  const rows = await db.rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM information_schema.columns
      WHERE table_schema = ${schema} AND table_name = 'baseline_peer' AND column_name = 'run_id'`,
  );
  if (Number(rows[0]?.n ?? 0) > 0) return;
  const s = ident(schema);
  await db.tx(async (tx) => {
    for (const t of ['baseline_peer', 'baseline_mix', 'baseline_cardinality'])
      await tx.rows(sql.raw(`DROP TABLE IF EXISTS ${s}.${t}`));
    for (const statement of baselineTablesDdl(s)) await tx.rows(sql.raw(statement));
  });
}

const floatArray = (xs: Float64Array) => {
  const parts = new Array<string>(xs.length);
  for (let i = 0; i < xs.length; i++) parts[i] = Number.isFinite(xs[i]) ? String(xs[i]) : 'NaN';
  return `{${parts.join(',')}}`;
};

const text = (x: string) => `'${x.replace(/'/g, "''")}'`;
/** Groups per INSERT: the arrays travel as literals, a statement per group would be latency-bound. */
const GROUPS_PER_STATEMENT = 100;

/** Writes (replaces) the baselines of one shard. `categories` names the category indexes. */
export async function writeShardBaselines(
  db: Database,
  schema: string,
  runId: number,
  dayIndex0: number,
  categories: readonly string[],
  b: ShardBaselines,
): Promise<void> {
  const s = ident(schema);
  const firstDay = epochDayToYyyymmdd(dayIndex0);
  const run = (t: string) => db.rows(sql.raw(t));
  const category = (i: number) => text(categories[i] ?? '');
  for (let i = 0; i < b.peer.length; i += GROUPS_PER_STATEMENT) {
    const rows = b.peer
      .slice(i, i + GROUPS_PER_STATEMENT)
      .map(
        (p) =>
          `(${Math.trunc(p.parentId)}, ${category(p.category)}, ${Math.trunc(p.weeks)}, ${firstDay}, ${text(floatArray(p.change))}::float8[], ${text(intArrayLiteral(p.members))}::int[], ${Math.trunc(runId)})`,
      );
    await run(`INSERT INTO ${s}.baseline_peer (parent_series_id, category, weeks, first_day, median_change, members, run_id)
      VALUES ${rows.join(', ')}
      ON CONFLICT (parent_series_id, category, weeks) DO UPDATE SET first_day = EXCLUDED.first_day,
        median_change = EXCLUDED.median_change, members = EXCLUDED.members, run_id = EXCLUDED.run_id`);
  }
  for (let i = 0; i < b.cardinality.length; i += GROUPS_PER_STATEMENT) {
    const rows = b.cardinality
      .slice(i, i + GROUPS_PER_STATEMENT)
      .map(
        (c) =>
          `(${Math.trunc(c.parentId)}, ${category(c.category)}, ${firstDay}, ${text(intArrayLiteral(c.counts))}::int[], ${Math.trunc(runId)})`,
      );
    await run(`INSERT INTO ${s}.baseline_cardinality (parent_series_id, category, first_day, distinct_count, run_id)
      VALUES ${rows.join(', ')}
      ON CONFLICT (parent_series_id, category) DO UPDATE SET first_day = EXCLUDED.first_day,
        distinct_count = EXCLUDED.distinct_count, run_id = EXCLUDED.run_id`);
  }
}

/** The mix links (series → parent, the category it adds) in one statement; returns how many. */
export async function writeMixLinks(
  db: Database,
  schema: string,
  runId: number,
  links: { seriesIds: number[]; parentIds: number[]; categories: string[] },
): Promise<number> {
  if (links.seriesIds.length === 0) return 0;
  const s = ident(schema);
  const texts = `{${links.categories.map((c) => `"${c.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
  await db.rows(sql`INSERT INTO ${sql.raw(`${s}.baseline_mix`)} (series_id, parent_series_id, category, run_id)
    SELECT u.s, u.p, u.c, ${runId} FROM unnest(${intArrayLiteral(links.seriesIds)}::int[], ${intArrayLiteral(links.parentIds)}::int[],
      ${texts}::text[]) AS u(s, p, c)
    ON CONFLICT (series_id) DO UPDATE SET parent_series_id = EXCLUDED.parent_series_id, category = EXCLUDED.category,
      run_id = EXCLUDED.run_id`);
  return links.seriesIds.length;
}

/** Drops baseline rows that this run did not write (groups gone since, detectors no longer defined). */
export async function pruneBaselines(db: Database, schema: string, runId: number): Promise<void> {
  const s = ident(schema);
  for (const t of ['baseline_peer', 'baseline_cardinality', 'baseline_mix'])
    await db.rows(sql`DELETE FROM ${sql.raw(`${s}.${t}`)} WHERE run_id <> ${runId}`);
}
