/**
 * Reads coded rows back from `int` (or a load's staging table) for the series build: the rows of the
 * days a load rebuilds but does not replace, or a part's day range. Each day's rows come as one bytea
 * of packed codes and measures (int4send, float8send), not as one result row each.
 */
import { sql } from 'drizzle-orm';
import { ident, intArrayLiteral } from '../dataset/ddl';
import type { Database } from '../db/database';
import { CHUNK_TARGET_MS } from './build-runner';
import type { CubeRows } from './leaf-cube';

/** Days per statement to start with (PGlite then sizes by time; PostgreSQL keeps it). */
const DAYS_PER_READ = 8;

/**
 * Reads the rows of `days` (YYYYMMDD, ascending; those days only) of `schema`.`table` that meet `where` (SQL over its
 * columns), a statement per few days, handing each statement's rows to `onRows`.
 */
export async function readCodedRows(
  db: Database,
  schema: string,
  table: string,
  codes: readonly string[],
  days: readonly number[],
  where: string,
  onRows: (rows: CubeRows) => void,
  signal?: AbortSignal,
): Promise<number> {
  const width = codes.length;
  const packed = [...codes.map((c) => `int4send(${c})`), 'float8send(value)', 'float8send(cnt)'].join(' || ');
  const stride = 4 * width + 16;
  let size = DAYS_PER_READ;
  let total = 0;
  for (let i = 0; i < days.length; ) {
    signal?.throwIfAborted();
    const j = Math.min(days.length, i + Math.max(1, Math.round(size)));
    const t0 = Date.now();
    const rows = await db.rows<{ day: number; b: Uint8Array }>(
      sql.raw(`SELECT day, string_agg(${packed}, ''::bytea) AS b FROM ${ident(schema)}.${ident(table)}
        WHERE day = ANY('${intArrayLiteral(days.slice(i, j))}'::int[]) AND (${where}) GROUP BY day`),
    );
    let n = 0;
    for (const r of rows) n += r.b.byteLength / stride;
    const out: CubeRows = {
      days: new Int32Array(n),
      codes: Array.from({ length: width }, () => new Int32Array(n)),
      values: new Float64Array(n),
      cnts: new Float64Array(n),
    };
    let k = 0;
    for (const r of rows) {
      const view = new DataView(r.b.buffer, r.b.byteOffset, r.b.byteLength);
      const day = Number(r.day);
      for (let p = 0; p + stride <= r.b.byteLength; p += stride) {
        (out.days as Int32Array)[k] = day;
        for (let c = 0; c < width; c++) (out.codes[c] as Int32Array)[k] = view.getInt32(p + 4 * c, false);
        (out.values as Float64Array)[k] = view.getFloat64(p + 4 * width, false);
        (out.cnts as Float64Array)[k] = view.getFloat64(p + 4 * width + 8, false);
        k++;
      }
    }
    onRows(out);
    total += n;
    if (db.kind === 'pglite') {
      const ms = Math.max(1, Date.now() - t0);
      size = Math.min(size * 4, Math.max(1, ((j - i) * CHUNK_TARGET_MS) / ms));
    }
    i = j;
  }
  return total;
}
