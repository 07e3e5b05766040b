/**
 * How a view's series are stored in `data`: one row per series and chunk of CHUNK_DAYS consecutive days
 * (chunk c holds the epoch days c × CHUNK_DAYS … + CHUNK_DAYS - 1), a chunk only where the series has data.
 * A row packs the chunk's days: `present` a bitmap (bit t of byte t >> 3, lowest bit first: the day has
 * source rows), `value` and `cnt` float8 per day in network byte order (float8send's, so SQL can make and
 * read them), ending at the chunk's last day with data; a day without data holds 0. `cnt` is NULL when
 * the view has no count column. Beside them the chunk's stats, so that all_series sums chunks without
 * unpacking them: days with data, first and last of them (day offsets), the sums of value and cnt.
 *
 * A detection shard of 1,000 series × 3 years reads 10,000 rows instead of 1.1 million, and a day range
 * of a load is built and written on its own (a chunk belongs to one day range). 112 days (16 weeks)
 * keep a row with both measures (about 1.9 kB) under PostgreSQL's TOAST threshold: read in place,
 * never compressed. Gaps are filled when the series are read (series-store.ts), not stored.
 */

/** Days per chunk (16 weeks). */
export const CHUNK_DAYS = 112;

/** Bytes of a chunk's presence bitmap. */
export const PRESENT_BYTES = CHUNK_DAYS / 8;

/** The chunk of an epoch day. */
export function chunkOf(epochDay: number): number {
  return Math.floor(epochDay / CHUNK_DAYS);
}

/** The first epoch day of a chunk. */
export function chunkStart(chunk: number): number {
  return chunk * CHUNK_DAYS;
}

/** One stored chunk of a series, as written to and read from `data`. */
export interface ChunkRow {
  seriesId: number;
  chunk: number;
  present: Uint8Array;
  value: Uint8Array;
  /** null: the view has no count column. */
  cnt: Uint8Array | null;
  /** Days with data, the first and last of them (offsets in the chunk), the sums over them. */
  days: number;
  first: number;
  last: number;
  sumValue: number;
  sumCnt: number;
}

/**
 * Packs days `from` … `from + CHUNK_DAYS - 1` of one series (`values`, `cnts`, `present` at those
 * offsets) into a chunk row; undefined when no day has data.
 */
export function packChunk(
  seriesId: number,
  chunk: number,
  values: Float64Array,
  cnts: Float64Array | null,
  present: Uint8Array,
  from: number,
): ChunkRow | undefined {
  let first = -1;
  let last = -1;
  let days = 0;
  let sumValue = 0;
  let sumCnt = 0;
  const bits = new Uint8Array(PRESENT_BYTES);
  for (let t = 0; t < CHUNK_DAYS; t++) {
    if (present[from + t] === 0) continue;
    if (first < 0) first = t;
    last = t;
    days++;
    bits[t >> 3] |= 1 << (t & 7);
    sumValue += values[from + t];
    if (cnts) sumCnt += cnts[from + t];
  }
  if (days === 0) return undefined;
  const length = (last + 1) * 8;
  const value = new Uint8Array(length);
  const cnt = cnts ? new Uint8Array(length) : null;
  const v = new DataView(value.buffer);
  const c = cnt ? new DataView(cnt.buffer) : null;
  for (let t = first; t <= last; t++) {
    if (present[from + t] === 0) continue;
    v.setFloat64(t * 8, values[from + t], false);
    if (c && cnts) c.setFloat64(t * 8, cnts[from + t], false);
  }
  return { seriesId, chunk, present: bits, value, cnt, days, first, last, sumValue, sumCnt };
}

/**
 * Unpacks a chunk's days that fall in [0, span) after shifting by `shift` (the chunk's day t goes to
 * offset `shift + t`) into `values` (and `cnts`), marking `present`, at `base + offset`.
 */
export function unpackChunk(
  present: Uint8Array,
  value: Uint8Array,
  cnt: Uint8Array | null,
  shift: number,
  span: number,
  base: number,
  values: Float64Array,
  cnts: Float64Array | null,
  presentOut: Uint8Array,
  /** The chunk's day that value[0] and cnt[0] hold (a slice of the chunk read for a window), else 0. */
  from = 0,
): void {
  const length = Math.min(CHUNK_DAYS, from + (value.byteLength >> 3));
  const v = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const c = cnt && cnts ? new DataView(cnt.buffer, cnt.byteOffset, cnt.byteLength) : null;
  const lo = Math.max(from, -shift);
  const hi = Math.min(length, span - shift);
  for (let t = lo; t < hi; t++) {
    if ((present[t >> 3] & (1 << (t & 7))) === 0) continue;
    const i = base + shift + t;
    values[i] = v.getFloat64((t - from) * 8, false);
    if (c && cnts) cnts[i] = c.getFloat64((t - from) * 8, false);
    presentOut[i] = 1;
  }
}

/**
 * The chunk rows of one series given as days `dayIndex0` … (epoch days) with `present` marking the
 * days with data (the others are not stored).
 */
export function packSeries(
  seriesId: number,
  dayIndex0: number,
  values: ArrayLike<number>,
  cnts: ArrayLike<number> | null,
  present: ArrayLike<number>,
): ChunkRow[] {
  const out: ChunkRow[] = [];
  const n = values.length;
  if (n === 0) return out;
  const c0 = chunkOf(dayIndex0);
  const c1 = chunkOf(dayIndex0 + n - 1);
  const v = new Float64Array(CHUNK_DAYS);
  const c = new Float64Array(CHUNK_DAYS);
  const p = new Uint8Array(CHUNK_DAYS);
  for (let chunk = c0; chunk <= c1; chunk++) {
    v.fill(0);
    c.fill(0);
    p.fill(0);
    const start = chunkStart(chunk);
    for (let t = 0; t < CHUNK_DAYS; t++) {
      const i = start + t - dayIndex0;
      if (i < 0 || i >= n || !present[i]) continue;
      v[t] = values[i];
      if (cnts) c[t] = cnts[i];
      p[t] = 1;
    }
    const row = packChunk(seriesId, chunk, v, cnts ? c : null, p, 0);
    if (row) out.push(row);
  }
  return out;
}
