/**
 * The one reader of a view's series data (`data`, stored as chunks: series-chunks.ts): every module that
 * needs a series' daily values (detection and its baselines, the explorer and the detector preview,
 * incidents) reads them here, as columnar blocks over a window of days.
 *
 * readSeries(db, source, ids, window, measures): one block per measure; row r holds the days
 * window.dayIndex0 … + window.days - 1 (epoch days) of series ids[r]: present = 1 on a day with source
 * rows; a day without them between the series' first day with data and the view's last day is filled as
 * the view says (gap-fill.ts) and stays present = 0; other days are 0. seriesPerDay counts the series
 * with data per day; countVaries tells whether a series' count measure varies.
 */
import { sql } from 'drizzle-orm';
import { epochDayToYyyymmdd, yyyymmddToEpochDay } from '../calendar/days';
import { type BinaryRow, copyBinaryOut, copyClient } from '../db/copy';
import type { Database } from '../db/database';
import { ident, intArrayLiteral } from './ddl';
import { fillRow, type GapFill, type KnownDay } from './gap-fill';
import { CHUNK_DAYS, chunkOf, chunkStart, unpackChunk } from './series-chunks';

export type { GapFill } from './gap-fill';

/** The measures of a series: the source's value column and its count column (`source.countColumn`). */
export type SeriesMeasure = 'value' | 'count';

/** Where a view's series are: its dataset schema, and how its gaps are filled. */
export interface SeriesSource {
  schema: string;
  fill: GapFill;
}

/** The series source of a deployed view. */
export function seriesSource(view: {
  schema: string;
  definition: { analysis?: { fillGapMethod?: GapFill } };
}): SeriesSource {
  return { schema: view.schema, fill: view.definition.analysis?.fillGapMethod ?? 'zero' };
}

/** Consecutive days: the first as an epoch day, and how many. */
export interface DayWindow {
  dayIndex0: number;
  days: number;
}

export interface SeriesBlock {
  dayIndex0: number;
  days: number;
  ids: number[];
  rowOf: Map<number, number>;
  values: Float64Array;
  present: Uint8Array;
  /**
   * Per row, with the value measure: Σ value / Σ count over the series' days with data in the window
   * when its count varies from day to day (the events the amounts come from), else 0 (the values are
   * the events). See SeriesInput.valuePerEvent.
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

/** Series per read statement on the embedded PGlite (a few hundred rows: a few ms). */
export const PGLITE_READ_SERIES = 40;

/** The first and last epoch day with data of the view (null when nothing is loaded). */
export async function viewDays(db: Database, source: SeriesSource): Promise<DayWindow | null> {
  const [r] = await db.rows<{ lo: number | null; hi: number | null }>(
    sql.raw(`SELECT min(day) AS lo, max(day) AS hi FROM ${ident(source.schema)}.days`),
  );
  if (r?.lo === null || r?.lo === undefined || r.hi === null) return null;
  const lo = yyyymmddToEpochDay(Number(r.lo));
  return { dayIndex0: lo, days: yyyymmddToEpochDay(Number(r.hi)) - lo + 1 };
}

type ChunkRecord = {
  series_id: number;
  chunk: number;
  present: Uint8Array;
  value: Uint8Array;
  cnt: Uint8Array | null;
  /** With a sliced read: the chunk's day value[0] holds. */
  lo?: number;
};

const CHUNK_COLUMNS = 'series_id, chunk, present, value, cnt';

/**
 * The chunk columns with value and cnt cut to the days of [d0, d1) in each chunk (PostgreSQL slices the
 * bytea): a 30-day window of a chunk of 112 days sends a third of its bytes.
 */
function slicedColumns(d0: number, d1: number): string {
  const lo = `greatest(0, ${Math.trunc(d0)} - chunk * ${CHUNK_DAYS})`;
  const hi = `least(${CHUNK_DAYS}, ${Math.trunc(d1)} - chunk * ${CHUNK_DAYS})`;
  const cut = (col: string) =>
    `substring(${col} from ${lo} * 8 + 1 for greatest(0, ${hi} - ${lo}) * 8) AS ${col}`;
  return `series_id, chunk, present, ${cut('value')}, ${cut('cnt')}, ${lo} AS lo`;
}

/** The chunk rows of a binary COPY: series_id, chunk, present, value, cnt (and lo when sliced), in that order. */
function chunkRecords(rows: BinaryRow[]): ChunkRecord[] {
  const out: ChunkRecord[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [id, chunk, present, value, cnt, lo] = rows[i];
    out[i] = {
      series_id: (id as Buffer).readInt32BE(0),
      chunk: (chunk as Buffer).readInt32BE(0),
      present: present as Buffer,
      value: value as Buffer,
      cnt: cnt ?? null,
      lo: lo ? lo.readInt32BE(0) : undefined,
    };
  }
  return out;
}

/**
 * Runs `query` (a statement of integers only) over `ids`: on a PostgreSQL server in one binary COPY (the
 * packed columns arrive as bytes, not as hex text: half the bytes, no encoding or decoding), on PGlite in
 * statements of PGLITE_READ_SERIES ids, elsewhere (a transaction) in one statement.
 */
async function perIds(
  db: Database,
  ids: readonly number[],
  query: (part: readonly number[]) => string,
): Promise<ChunkRecord[]> {
  const client = copyClient(db);
  if (client) return chunkRecords(await copyBinaryOut(client, query(ids)));
  if (db.kind !== 'pglite') return db.rows<ChunkRecord>(sql.raw(query(ids)));
  // The embedded database runs one statement at a time for every connection: statements of a few
  // series each let status and other requests in between.
  const out: ChunkRecord[] = [];
  for (let i = 0; i < ids.length; i += PGLITE_READ_SERIES)
    for (const row of await db.rows<ChunkRecord>(sql.raw(query(ids.slice(i, i + PGLITE_READ_SERIES)))))
      out.push(row);
  return out;
}

export interface ReadSeriesOptions {
  /**
   * Read only the chunks of the window's days (and a known day on either side for the gaps at its edges)
   * instead of every chunk of each series. Then each series' value per event is that of the window's
   * days. For short windows of many series (the contributions of a change): a 30-day window of a 3-year
   * view reads one or two chunks of ten.
   */
  windowOnly?: boolean;
}

/**
 * Reads series `ids` (distinct) of `source` over `window` for each of `measures` (distinct), one block per
 * measure in that order; each series' chunks are read once however many measures are read. Ids without
 * data stay 0 and not present. The value block carries each series' value per event (over all its days,
 * or the window's with `windowOnly`).
 */
export async function readSeries(
  db: Database,
  source: SeriesSource,
  ids: readonly number[],
  window: DayWindow,
  measures: readonly SeriesMeasure[],
  opts: ReadSeriesOptions = {},
): Promise<SeriesBlock[]> {
  if (measures.length === 0 || new Set(measures).size !== measures.length)
    throw new Error(`readSeries: measures must be distinct and not empty (${measures.join(', ')})`);
  const { dayIndex0, days } = window;
  const rowOf = new Map<number, number>();
  for (let r = 0; r < ids.length; r++) rowOf.set(ids[r], r);
  const blocks: SeriesBlock[] = measures.map((m) => ({
    dayIndex0,
    days,
    ids: [...ids],
    rowOf,
    values: new Float64Array(ids.length * days),
    present: new Uint8Array(ids.length * days),
    ...(m === 'value' && ids.length > 0 && days > 0 ? { valuePerEvent: new Float64Array(ids.length) } : {}),
  }));
  if (ids.length === 0 || days === 0) return blocks;
  const range = await viewDays(db, source);
  if (range === null) return blocks;
  const s = ident(source.schema);
  const lastDay = range.dayIndex0 + range.days - 1;
  // The chunks of the window (every chunk of the view unless windowOnly), and one known day on either
  // side of them for the gaps at their edges.
  const c0 = opts.windowOnly ? chunkOf(dayIndex0) : Math.min(chunkOf(dayIndex0), chunkOf(range.dayIndex0));
  const c1 = opts.windowOnly
    ? chunkOf(dayIndex0 + days - 1)
    : Math.max(chunkOf(dayIndex0 + days - 1), chunkOf(lastDay));
  // A zero-filled window needs no day of its chunks outside it (for the gaps or the value per event).
  const sliced = opts.windowOnly === true && source.fill === 'zero';
  const columns = sliced ? slicedColumns(dayIndex0, dayIndex0 + days) : CHUNK_COLUMNS;
  // Integers only in the statements (ids, chunks): they are written into the text.
  const rows = await perIds(
    db,
    ids,
    (part) => `SELECT ${columns} FROM ${s}.data
      WHERE series_id = ANY('${intArrayLiteral(part)}'::int[]) AND chunk BETWEEN ${Math.trunc(c0)} AND ${Math.trunc(c1)}`,
  );
  const neighbour = (before: boolean) =>
    perIds(
      db,
      ids,
      (part) => `SELECT ${CHUNK_COLUMNS.replace(/(\w+)/g, 'x.$1')}
        FROM unnest('${intArrayLiteral(part)}'::int[]) AS i(id) CROSS JOIN LATERAL (
          SELECT ${CHUNK_COLUMNS} FROM ${s}.data d WHERE d.series_id = i.id
            AND d.chunk ${before ? '<' : '>'} ${Math.trunc(before ? c0 : c1)}
          ORDER BY d.chunk ${before ? 'DESC' : 'ASC'} LIMIT 1) x`,
    );
  const [earlier, later] = await Promise.all([
    // A zero-filled gap reads 0 whatever precedes it: only the other fills need the last known day.
    chunkStart(c0) > range.dayIndex0 && source.fill !== 'zero' ? neighbour(true) : Promise.resolve([]),
    source.fill === 'linear' && chunkStart(c1 + 1) - 1 < lastDay ? neighbour(false) : Promise.resolve([]),
  ]);
  // Each series' chunks unpacked into a span of whole chunks around the window, then filled and cut.
  const base = chunkStart(c0);
  const span = (c1 - c0 + 1) * CHUNK_DAYS;
  const cut = dayIndex0 - base;
  const wantCount = measures.includes('count');
  const values = new Float64Array(span);
  const cnts = new Float64Array(span);
  const present = new Uint8Array(span);
  const byId = groupBy(rows);
  const before = knownDays(earlier, true, base);
  const after = knownDays(later, false, base);
  const end = lastDay - base + 1;
  const mValue = measures.indexOf('value');
  const mCount = measures.indexOf('count');
  for (let r = 0; r < ids.length; r++) {
    const chunks = byId.get(ids[r]);
    const prior = before.get(ids[r]);
    if (!chunks && !prior) continue;
    values.fill(0);
    cnts.fill(0);
    present.fill(0);
    for (const c of chunks ?? [])
      unpackChunk(
        c.present,
        c.value,
        c.cnt,
        chunkStart(Number(c.chunk)) - base,
        span,
        0,
        values,
        cnts,
        present,
        Number(c.lo ?? 0),
      );
    const perEvent = opts.windowOnly
      ? valuePerEvent(values, cnts, present, cut, days)
      : valuePerEvent(values, cnts, present, 0, span);
    fillRow(source.fill, values, wantCount ? cnts : null, present, 0, span, end, prior, after.get(ids[r]));
    const off = r * days;
    if (mValue >= 0) {
      blocks[mValue].values.set(values.subarray(cut, cut + days), off);
      (blocks[mValue].valuePerEvent as Float64Array)[r] = perEvent;
    }
    if (mCount >= 0) blocks[mCount].values.set(cnts.subarray(cut, cut + days), off);
    for (const b of blocks) b.present.set(present.subarray(cut, cut + days), off);
  }
  return blocks;
}

function groupBy(rows: ChunkRecord[]): Map<number, ChunkRecord[]> {
  const out = new Map<number, ChunkRecord[]>();
  for (const row of rows) {
    const id = Number(row.series_id);
    const list = out.get(id);
    if (list) list.push(row);
    else out.set(id, [row]);
  }
  return out;
}

/** The last (or first) day with data of each series' neighbouring chunk, as an offset from `base`. */
function knownDays(rows: ChunkRecord[], last: boolean, base: number): Map<number, KnownDay> {
  const out = new Map<number, KnownDay>();
  const values = new Float64Array(CHUNK_DAYS);
  const cnts = new Float64Array(CHUNK_DAYS);
  const present = new Uint8Array(CHUNK_DAYS);
  for (const row of rows) {
    values.fill(0);
    cnts.fill(0);
    present.fill(0);
    unpackChunk(row.present, row.value, row.cnt, 0, CHUNK_DAYS, 0, values, cnts, present);
    const t = last ? present.lastIndexOf(1) : present.indexOf(1);
    if (t < 0) continue;
    out.set(Number(row.series_id), {
      t: chunkStart(Number(row.chunk)) + t - base,
      value: values[t],
      cnt: cnts[t],
    });
  }
  return out;
}

/** Σ value / Σ count over the days with data of [from, from + days) when the count varies there, else 0. */
export function valuePerEvent(
  values: Float64Array,
  cnts: Float64Array,
  present: Uint8Array,
  from: number,
  days: number,
): number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let v = 0;
  let c = 0;
  for (let t = from; t < from + days; t++) {
    if (present[t] === 0) continue;
    const n = cnts[t];
    if (n < min) min = n;
    if (n > max) max = n;
    v += values[t];
    c += n;
  }
  return min < max && c !== 0 ? v / c : 0;
}

/**
 * Series with data (not gap-filled) per day of `window`, counted from day index `from` on (0 before):
 * how complete the newest days are.
 */
export async function seriesPerDay(
  db: Database,
  source: SeriesSource,
  window: DayWindow,
  from: number,
): Promise<Float64Array> {
  const { dayIndex0, days } = window;
  const out = new Float64Array(days);
  const first = Math.max(0, from);
  if (first >= days) return out;
  const rows = await db.rows<{ day: number; n: number }>(
    sql.raw(`SELECT day, series AS n FROM ${ident(source.schema)}.days
      WHERE day >= ${epochDayToYyyymmdd(dayIndex0 + first)}`),
  );
  for (const r of rows) {
    const t = yyyymmddToEpochDay(Number(r.day)) - dayIndex0;
    if (t >= 0 && t < days) out[t] = Number(r.n);
  }
  return out;
}

/**
 * Whether the count measure varies over the days with data of series `seriesId` (false for none). A
 * count that is the same every day (no count column: 0) has nothing to say.
 */
export async function countVaries(
  db: Database,
  source: SeriesSource,
  seriesId: number | null,
): Promise<boolean> {
  if (seriesId === null) return false;
  const rows = await db.rows<ChunkRecord>(
    sql`SELECT ${sql.raw(CHUNK_COLUMNS)} FROM ${sql.raw(`${ident(source.schema)}.data`)}
      WHERE series_id = ${Math.trunc(seriesId)} ORDER BY chunk`,
  );
  let seen: number | undefined;
  const values = new Float64Array(CHUNK_DAYS);
  const cnts = new Float64Array(CHUNK_DAYS);
  const present = new Uint8Array(CHUNK_DAYS);
  for (const row of rows) {
    if (row.cnt === null) return false;
    present.fill(0);
    unpackChunk(row.present, row.value, row.cnt, 0, CHUNK_DAYS, 0, values, cnts, present);
    for (let t = 0; t < CHUNK_DAYS; t++) {
      if (present[t] === 0) continue;
      if (seen === undefined) seen = cnts[t];
      else if (cnts[t] !== seen) return true;
    }
  }
  return false;
}
