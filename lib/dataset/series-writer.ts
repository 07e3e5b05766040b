/**
 * Writes series chunks (series-chunks.ts) into a table shaped like `data` (a load's build table): COPY
 * binary on a PostgreSQL server, an insert of a few hundred rows per statement elsewhere (the embedded
 * PGlite, which runs one statement at a time for every connection).
 */
import { sql } from 'drizzle-orm';
import { copyBinaryIn, copyClient } from '../db/copy';
import type { Database } from '../db/database';
import { ident, intArrayLiteral } from './ddl';
import { type ChunkRow, PRESENT_BYTES } from './series-chunks';

/** The columns of `data` in the order the writer fills them. */
export const DATA_CHUNK_COLUMNS =
  'series_id, chunk, present, value, cnt, days, first_offset, last_offset, sum_value, sum_cnt';

/** Rows per insert statement on PGlite (about 0.5 MB). */
export const PGLITE_WRITE_ROWS = 250;

/** The rows in COPY binary (no header, no end marker). */
export function encodeChunkRows(rows: readonly ChunkRow[]): Buffer {
  let size = 0;
  for (const r of rows)
    size += 2 + 10 * 4 + 4 + 4 + r.present.length + r.value.length + (r.cnt?.length ?? 0) + 3 * 2 + 2 * 8;
  const buf = Buffer.allocUnsafe(size);
  let o = 0;
  const bytes = (b: Uint8Array | null) => {
    if (b === null) return buf.writeInt32BE(-1, o);
    o = buf.writeInt32BE(b.length, o);
    buf.set(b, o);
    return o + b.length;
  };
  for (const r of rows) {
    o = buf.writeInt16BE(10, o);
    o = buf.writeInt32BE(4, o);
    o = buf.writeInt32BE(r.seriesId, o);
    o = buf.writeInt32BE(4, o);
    o = buf.writeInt32BE(r.chunk, o);
    o = bytes(r.present);
    o = bytes(r.value);
    o = bytes(r.cnt);
    for (const v of [r.days, r.first, r.last]) {
      o = buf.writeInt32BE(2, o);
      o = buf.writeInt16BE(v, o);
    }
    o = buf.writeInt32BE(8, o);
    o = buf.writeDoubleBE(r.sumValue, o);
    o = buf.writeInt32BE(8, o);
    o = buf.writeDoubleBE(r.sumCnt, o);
  }
  return buf.subarray(0, o);
}

/** Writes chunk rows into `schema`.`table`. */
export async function writeChunks(
  db: Database,
  schema: string,
  table: string,
  rows: readonly ChunkRow[],
): Promise<void> {
  if (rows.length === 0) return;
  const target = `${ident(schema)}.${ident(table)}`;
  const client = copyClient(db);
  if (client) {
    await copyBinaryIn(client, target, DATA_CHUNK_COLUMNS, [encodeChunkRows(rows)]);
    return;
  }
  for (let i = 0; i < rows.length; i += PGLITE_WRITE_ROWS)
    await insertChunks(db, target, rows.slice(i, i + PGLITE_WRITE_ROWS));
}

/**
 * One insert of chunk rows: their bytes in one bytea parameter, cut by offsets (no escaping of
 * binary data into the statement text), the numbers as array literals.
 */
async function insertChunks(db: Database, target: string, rows: readonly ChunkRow[]): Promise<void> {
  let size = 0;
  for (const r of rows) size += r.present.length + r.value.length + (r.cnt?.length ?? 0);
  const blob = Buffer.allocUnsafe(size);
  const col = (f: (r: ChunkRow) => number) => intArrayLiteral(rows.map(f));
  const valueAt: number[] = [];
  const cntAt: number[] = [];
  let o = 0;
  for (const r of rows) {
    blob.set(r.present, o);
    valueAt.push(o + PRESENT_BYTES + 1); // substring() counts from 1
    o += r.present.length;
    blob.set(r.value, o);
    o += r.value.length;
    cntAt.push(r.cnt ? o + 1 : 0);
    if (r.cnt) {
      blob.set(r.cnt, o);
      o += r.cnt.length;
    }
  }
  const presentAt = valueAt.map((v) => v - PRESENT_BYTES);
  const floats = (f: (r: ChunkRow) => number) => `{${rows.map((r) => String(f(r))).join(',')}}`;
  await db.rows(sql`INSERT INTO ${sql.raw(target)} (${sql.raw(DATA_CHUNK_COLUMNS)})
    SELECT u.s, u.c, substring(b.blob FROM u.p FOR ${PRESENT_BYTES}), substring(b.blob FROM u.v FOR u.n),
      CASE WHEN u.k > 0 THEN substring(b.blob FROM u.k FOR u.n) END, u.d, u.f, u.l, u.sv, u.sc
    FROM (SELECT ${blob}::bytea AS blob) b, unnest(${col((r) => r.seriesId)}::int[], ${col((r) => r.chunk)}::int[],
      ${intArrayLiteral(presentAt)}::int[], ${intArrayLiteral(valueAt)}::int[], ${col((r) => r.value.length)}::int[],
      ${intArrayLiteral(cntAt)}::int[], ${col((r) => r.days)}::int[], ${col((r) => r.first)}::int[],
      ${col((r) => r.last)}::int[], ${floats((r) => r.sumValue)}::float8[], ${floats((r) => r.sumCnt)}::float8[])
      AS u(s, c, p, v, n, k, d, f, l, sv, sc)`);
}

/** Writes per-day counts of series with data (day YYYYMMDD → series) into `schema`.`table`. */
export async function writeDays(
  db: Database,
  schema: string,
  table: string,
  days: ReadonlyMap<number, number>,
): Promise<void> {
  const list = [...days].sort((a, b) => a[0] - b[0]);
  for (let i = 0; i < list.length; i += 5000) {
    const part = list.slice(i, i + 5000);
    await db.rows(
      sql.raw(`INSERT INTO ${ident(schema)}.${ident(table)} (day, series)
        SELECT * FROM unnest('${intArrayLiteral(part.map((d) => d[0]))}'::int[], '${intArrayLiteral(part.map((d) => d[1]))}'::int[])`),
    );
  }
}
