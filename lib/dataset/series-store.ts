/**
 * The one reader of a view's series data (the `data` table): every module that needs a series' daily
 * values (detection and its baselines, the explorer and the detector preview, incidents) reads them here,
 * as columnar blocks over a window of days, so that the storage behind it can change in one place.
 *
 * readSeries(db, source, ids, window, measures): one block per measure; row r holds the days
 * window.dayIndex0 .. + window.days - 1 of series ids[r] (epoch days), present = 1 on a day with source
 * rows, 0 on a gap-filled day or outside the series' range (where the value is 0). seriesPerDay counts
 * the series with data per day; countVaries tells whether a series' count measure varies.
 */
import { sql } from 'drizzle-orm';
import { epochDayToYyyymmdd, yyyymmddToEpochDay } from '../calendar/days';
import { ident, intArrayLiteral } from './ddl';
import type { Database } from '../db/database';

/** The measures of a series: the source's value column and its count column (`source.countColumn`). */
export type SeriesMeasure = 'value' | 'count';

/** How days without data are filled (`analysis.fillGapMethod`). */
export type GapFill = 'zero' | 'linear' | 'previous';

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

export interface ReadSeriesOptions {
  /**
   * Read only the window's days (an index range scan) instead of every day of each series. Then each
   * series' value per event is that of the window's days. For short windows of many series (the
   * contributions of a change): a 30-day window of a 3-year view reads a tenth of the rows.
   */
  windowOnly?: boolean;
}

/**
 * Reads series `ids` (distinct) of `source` over `window` for each of `measures` (distinct), one block per
 * measure in that order; the rows are scanned once however many measures are read. Ids without data stay
 * 0 and not present. The value block carries each series' value per event.
 */
export async function readSeries(
  db: Database,
  source: SeriesSource,
  ids: readonly number[],
  window: DayWindow,
  measures: readonly SeriesMeasure[],
  opts: ReadSeriesOptions = {},
): Promise<SeriesBlock[]> {
  const { dayIndex0, days } = window;
  const schema = source.schema;
  const columns = measures.map((m) => (m === 'count' ? 'cnt' : 'value'));
  if (columns.length === 0 || new Set(columns).size !== columns.length)
    throw new Error(`readSeries: measures must be distinct and not empty (${measures.join(', ')})`);
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
  const dayRange = opts.windowOnly
    ? ` AND day BETWEEN ${epochDayToYyyymmdd(dayIndex0)} AND ${epochDayToYyyymmdd(dayIndex0 + days - 1)}`
    : '';
  // Statements of about the same number of rows as PGLITE_READ_SERIES whole 3-year series.
  const perStatement = opts.windowOnly
    ? Math.max(PGLITE_READ_SERIES, Math.floor((PGLITE_READ_SERIES * 1100) / Math.max(1, days)))
    : PGLITE_READ_SERIES;
  const query = (part: readonly number[]) =>
    sql`SELECT series_id, string_agg(int4send(CASE WHEN filled THEN -day ELSE day END) || ${sql.raw(packed)}, ''::bytea) AS b,
        ${sql.raw(wantPerEvent ? PER_EVENT : 'NULL::float8')} AS per_event
        FROM ${sql.raw(`${ident(schema)}.data`)} WHERE series_id = ANY(${intArrayLiteral(part)}::int[])${sql.raw(dayRange)} GROUP BY series_id`;
  type Row = { series_id: number; b: Uint8Array; per_event: number | string | null };
  let rows: Row[];
  if (db.kind === 'pglite') {
    // The embedded database runs one statement at a time for every connection: a shard read as one
    // statement (seconds) held a status call for as long. Statements of PGLITE_READ_SERIES series each
    // let other requests in between.
    rows = [];
    for (let i = 0; i < ids.length; i += perStatement)
      for (const row of await db.rows<Row>(query(ids.slice(i, i + perStatement)))) rows.push(row);
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
    sql.raw(`SELECT day, count(*)::int AS n FROM ${ident(source.schema)}.data
      WHERE NOT filled AND day >= ${epochDayToYyyymmdd(dayIndex0 + first)} GROUP BY day`),
  );
  for (const r of rows) {
    const t = yyyymmddToEpochDay(Number(r.day)) - dayIndex0;
    if (t >= 0 && t < days) out[t] = Number(r.n);
  }
  return out;
}

/**
 * Whether the count measure varies over the days with data of series `seriesId` (of every series when
 * null). A count that is the same every day (no count column: 0) has nothing to say.
 */
export async function countVaries(
  db: Database,
  source: SeriesSource,
  seriesId: number | null,
): Promise<boolean> {
  const d = `${ident(source.schema)}.data`;
  const where = seriesId === null ? 'NOT filled' : `series_id = ${Math.trunc(seriesId)} AND NOT filled`;
  const [r] = await db.rows<{ v: boolean }>(
    sql.raw(`SELECT EXISTS (SELECT 1 FROM (SELECT cnt, lag(cnt) OVER (PARTITION BY series_id ORDER BY day) AS prev
      FROM ${d} WHERE ${where}) x WHERE x.cnt <> x.prev) AS v`),
  );
  return r?.v === true;
}
