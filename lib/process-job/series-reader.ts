/**
 * Reads series of a view's `data` table into one columnar block: row r holds the days
 * dayIndex0 .. dayIndex0 + days - 1 of series ids[r]. Each series comes back as a single bytea of
 * packed (day, value) pairs, so the database sends one row per series instead of one per day and
 * the decoder places each value by its day (no reliance on aggregation order). Days before a
 * series' first row are 0 and not present; gap-filled days are present = 0.
 */
import { sql } from 'drizzle-orm';
import { epochDayToYyyymmdd } from '../calendar/days';
import { ident } from '../dataset/ddl';
import type { Database } from '../db/database';

export interface SeriesBlock {
  dayIndex0: number;
  days: number;
  ids: number[];
  rowOf: Map<number, number>;
  values: Float64Array;
  present: Uint8Array;
  /**
   * Per row, with the value measure: Σ value / Σ count over the series' days with data when its
   * count varies from day to day (the events the amounts come from), else 0 (the values are the
   * events). See SeriesInput.valuePerEvent.
   */
  valuePerEvent?: Float64Array;
}

/** Row `r` of a block as zero-copy views. */
export function rowValues(block: SeriesBlock, r: number): Float64Array {
  return block.values.subarray(r * block.days, (r + 1) * block.days);
}

export function rowPresent(block: SeriesBlock, r: number): Uint8Array {
  return block.present.subarray(r * block.days, (r + 1) * block.days);
}

/**
 * The material level of each of `rows` in its own units: `minVolume` events a day times the row's
 * value per event (1 when the values are the events). Peer voters and cardinality children count from it.
 */
export function materialLevels(block: SeriesBlock, rows: readonly number[], minVolume: number): number[] {
  return rows.map((r) => minVolume * (block.valuePerEvent?.[r] || 1));
}

/** YYYYMMDD → day index in the view, as a flat lookup over the view's YYYYMMDD span. */
function dayIndexTable(dayIndex0: number, days: number): { base: number; index: Int32Array } {
  const base = epochDayToYyyymmdd(dayIndex0);
  const top = days > 0 ? epochDayToYyyymmdd(dayIndex0 + days - 1) : base;
  const index = new Int32Array(top - base + 1).fill(-1);
  for (let t = 0; t < days; t++) index[epochDayToYyyymmdd(dayIndex0 + t) - base] = t;
  return { base, index };
}

/** Series per read statement on the embedded PGlite (about 11k data rows of a 3-year view: a few ms). */
export const PGLITE_READ_SERIES = 10;

/** Value per event of a series whose count varies over its days with data (NULL otherwise). */
const PER_EVENT = `CASE WHEN min(cnt) FILTER (WHERE NOT filled) < max(cnt) FILTER (WHERE NOT filled)
  THEN sum(value) FILTER (WHERE NOT filled) / NULLIF(sum(cnt) FILTER (WHERE NOT filled), 0) END::float8`;

/** PostgreSQL array literal of integers. */
export function intArrayLiteral(xs: ArrayLike<number>): string {
  return `{${Array.prototype.join.call(xs, ',')}}`;
}

/** Reads `ids` (distinct) over the given days; ids without rows stay 0 and not present. `column`: the measure read. */
export async function readSeriesBlock(
  db: Database,
  schema: string,
  ids: readonly number[],
  dayIndex0: number,
  days: number,
  column: 'value' | 'cnt' = 'value',
): Promise<SeriesBlock> {
  const [block] = await readSeriesBlocks(db, schema, ids, dayIndex0, days, [column]);
  return block;
}

/**
 * Reads `ids` (distinct) over the given days for each of `columns` (distinct) in one query, one block
 * per column in that order: the rows are scanned and aggregated once, however many measures are read
 * (each series' bytea packs the day and then each column's value). Each block is what readSeriesBlock
 * reads for its column.
 */
export async function readSeriesBlocks(
  db: Database,
  schema: string,
  ids: readonly number[],
  dayIndex0: number,
  days: number,
  columns: ReadonlyArray<'value' | 'cnt'>,
): Promise<SeriesBlock[]> {
  if (columns.length === 0 || new Set(columns).size !== columns.length)
    throw new Error(`readSeriesBlocks: columns must be distinct and not empty (${columns.join(', ')})`);
  const rowOf = new Map<number, number>();
  for (let r = 0; r < ids.length; r++) rowOf.set(ids[r], r);
  const blocks: SeriesBlock[] = columns.map((column) => ({
    dayIndex0,
    days,
    ids: [...ids],
    rowOf,
    values: new Float64Array(ids.length * days),
    present: new Uint8Array(ids.length * days),
    ...(column === 'value' ? { valuePerEvent: new Float64Array(ids.length) } : {}),
  }));
  if (ids.length === 0 || days === 0) {
    for (const b of blocks) delete b.valuePerEvent;
    return blocks;
  }
  const packed = columns.map((c) => `float8send(${c === 'cnt' ? 'cnt' : 'value'})`).join(' || ');
  const wantPerEvent = columns.includes('value');
  const query = (part: readonly number[]) =>
    sql`SELECT series_id, string_agg(int4send(CASE WHEN filled THEN -day ELSE day END) || ${sql.raw(packed)}, ''::bytea) AS b,
        ${sql.raw(wantPerEvent ? PER_EVENT : 'NULL::float8')} AS per_event
        FROM ${sql.raw(`${ident(schema)}.data`)} WHERE series_id = ANY(${intArrayLiteral(part)}::int[]) GROUP BY series_id`;
  type Row = { series_id: number; b: Uint8Array; per_event: number | string | null };
  let rows: Row[];
  if (db.kind === 'pglite') {
    // The embedded database runs one statement at a time for every connection: a shard read as one
    // statement (seconds) held a status call for as long. Statements of PGLITE_READ_SERIES series each
    // let other requests in between.
    rows = [];
    for (let i = 0; i < ids.length; i += PGLITE_READ_SERIES)
      for (const row of await db.rows<Row>(query(ids.slice(i, i + PGLITE_READ_SERIES)))) rows.push(row);
  } else {
    // Enough memory for a hash aggregate: about 2x faster than sorting the shard's rows (docs/performance.md).
    rows = await db.tx(async (tx) => {
      await tx.rows(sql.raw(`SET LOCAL work_mem = '256MB'`));
      return tx.rows<Row>(query(ids));
    });
  }
  const { base, index } = dayIndexTable(dayIndex0, days);
  const stride = 4 + 8 * columns.length;
  const perEvent = blocks.find((b) => b.valuePerEvent !== undefined)?.valuePerEvent;
  const values = blocks.map((b) => b.values);
  const present = blocks[0].present;
  for (const row of rows) {
    const r = rowOf.get(Number(row.series_id));
    if (r === undefined || row.b === null) continue;
    if (perEvent !== undefined && row.per_event !== null) perEvent[r] = Number(row.per_event);
    const bytes = row.b;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    decodeRow(view, stride, r * days, values, present, base, index);
  }
  // Presence is the rows', the same for every column.
  for (let c = 1; c < blocks.length; c++) blocks[c].present.set(present);
  return blocks;
}

/**
 * Places one series' packed (day, value of each column) records at row offset `off`; days outside
 * the view are skipped. One or two columns (value, count): a small function of its own is optimised
 * early, the first shard of a worker included.
 */
function decodeRow(
  view: DataView,
  stride: number,
  off: number,
  values: Float64Array[],
  present: Uint8Array,
  base: number,
  index: Int32Array,
): void {
  const columns = values.length;
  const v0 = values[0];
  const v1 = columns > 1 ? values[1] : v0;
  const top = index.length;
  const length = view.byteLength;
  for (let p = 0; p + stride <= length; p += stride) {
    const raw = view.getInt32(p, false);
    const k = (raw < 0 ? -raw : raw) - base;
    if (k < 0 || k >= top) continue; // outside the view's days
    const t = index[k];
    if (t < 0) continue;
    const i = off + t;
    v0[i] = view.getFloat64(p + 4, false);
    if (columns > 1) v1[i] = view.getFloat64(p + 12, false);
    for (let c = 2; c < columns; c++) values[c][i] = view.getFloat64(p + 4 + 8 * c, false);
    present[i] = raw < 0 ? 0 : 1;
  }
}
