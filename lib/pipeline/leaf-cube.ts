/**
 * The series build's aggregation, in memory: coded rows are summed per leaf (distinct category code
 * combination) and day into typed arrays, chunk by chunk of CHUNK_DAYS days; a chunk is then rolled up
 * into every series of the view (each leaf added into its series of each grouping set). A hash of
 * integer-coded leaves and dense day arrays instead of GROUPING SETS, which sorts the rows once per
 * set (docs/performance.md has the figures).
 */
import { yyyymmddToEpochDay } from '../calendar/days';
import { CHUNK_DAYS, chunkOf } from '../dataset/series-chunks';
import type { SeriesSet } from './series-set';

/** Coded rows, column by column (lib/pipeline/stage.ts CodedBatch). */
export interface CubeRows {
  days: ArrayLike<number>;
  codes: ReadonlyArray<ArrayLike<number>>;
  values: ArrayLike<number>;
  cnts: ArrayLike<number>;
}

/** A chunk of days of every series: row s at [s × CHUNK_DAYS, (s + 1) × CHUNK_DAYS). */
export interface SeriesChunk {
  chunk: number;
  values: Float64Array;
  cnts: Float64Array;
  present: Uint8Array;
}

interface Slot {
  chunk: number;
  values: Float64Array;
  cnts: Float64Array;
  present: Uint8Array;
}

export interface LeafCubeOptions {
  /** Only rows of the chunks it accepts are summed (a part of a load builds its own day range). */
  accept?: (chunk: number) => boolean;
  /** At most this many leaf-days held (leaves × chunks × CHUNK_DAYS); add() answers false beyond. */
  maxCells?: number;
}

/** Sums of value and cnt per leaf and day, with the days that had rows. */
export class LeafCube {
  /** The codes of each leaf, by leaf index (first seen first). */
  readonly leafCodes: number[][] = [];
  private readonly numeric = new Map<number, number>();
  private readonly text = new Map<string, number>();
  private readonly slots = new Map<number, Slot>();
  private capacity = 64;
  private readonly bits: number;
  private readonly limit: number;
  private readonly accept?: (chunk: number) => boolean;
  private readonly maxCells: number;
  /** Rows summed. */
  rows = 0;

  constructor(
    readonly width: number,
    opts: LeafCubeOptions = {},
  ) {
    // Codes below 2^bits in every category make an exact number key; others a text key.
    this.bits = width === 0 ? 0 : Math.min(30, Math.floor(52 / width));
    this.limit = 2 ** this.bits;
    this.accept = opts.accept;
    this.maxCells = opts.maxCells ?? Number.POSITIVE_INFINITY;
  }

  get leaves(): number {
    return this.leafCodes.length;
  }

  /** Leaf-days held. */
  get cells(): number {
    return this.capacity * this.slots.size * CHUNK_DAYS;
  }

  /** The chunks with rows, ascending. */
  chunks(): number[] {
    return [...this.slots.keys()].sort((a, b) => a - b);
  }

  /** Sums a batch of rows; false when that would hold more than maxCells (the cube is then incomplete). */
  add(rows: CubeRows): boolean {
    const { days, codes, values, cnts } = rows;
    const width = this.width;
    let lastYmd = -1;
    let epoch = 0;
    let slot: Slot | undefined;
    let slotChunk = Number.NaN;
    let accepted = true;
    for (let r = 0; r < days.length; r++) {
      const ymd = days[r];
      if (ymd !== lastYmd) {
        lastYmd = ymd;
        epoch = yyyymmddToEpochDay(ymd);
      }
      const chunk = chunkOf(epoch);
      if (chunk !== slotChunk) {
        slotChunk = chunk;
        accepted = this.accept ? this.accept(chunk) : true;
        slot = accepted ? this.slot(chunk) : undefined;
        if (accepted && slot === undefined) return false;
      }
      if (!accepted || slot === undefined) continue;
      let leaf: number | undefined;
      let key = 0;
      let fits = true;
      for (let i = 0; i < width; i++) {
        const c = codes[i][r];
        if (c >= this.limit) {
          fits = false;
          break;
        }
        key = key * this.limit + c;
      }
      if (fits) leaf = this.numeric.get(key);
      else {
        let k = '';
        for (let i = 0; i < width; i++) k += `${codes[i][r]},`;
        leaf = this.text.get(k);
        if (leaf === undefined) {
          leaf = this.newLeaf(codes, r);
          if (leaf < 0) return false;
          this.text.set(k, leaf);
        }
      }
      if (leaf === undefined) {
        leaf = this.newLeaf(codes, r);
        if (leaf < 0) return false;
        this.numeric.set(key, leaf);
      }
      // A new leaf may have grown every slot's arrays.
      if (slot.values.length < this.capacity * CHUNK_DAYS) slot = this.slots.get(chunk) as Slot;
      const i = leaf * CHUNK_DAYS + (epoch - chunk * CHUNK_DAYS);
      slot.values[i] += values[r];
      slot.cnts[i] += cnts[r];
      slot.present[i] = 1;
      this.rows++;
    }
    return true;
  }

  /**
   * Registers `leaves` in this order before any row is added (a part of a split load sums into the
   * leaves its plan found, so that every part rolls up into the same series).
   */
  seed(leaves: ReadonlyArray<ArrayLike<number>>): void {
    const cols = Array.from({ length: this.width }, () => [0]);
    for (const leaf of leaves) {
      for (let i = 0; i < this.width; i++) cols[i][0] = leaf[i];
      let key = 0;
      let fits = true;
      for (let i = 0; i < this.width; i++) {
        if (leaf[i] >= this.limit) fits = false;
        key = key * this.limit + leaf[i];
      }
      const text = Array.from(leaf).join(',') + (this.width > 0 ? ',' : '');
      if (fits ? this.numeric.has(key) : this.text.has(text)) continue;
      const l = this.newLeaf(cols, 0);
      if (fits) this.numeric.set(key, l);
      else this.text.set(text, l);
    }
  }

  private slot(chunk: number): Slot | undefined {
    let s = this.slots.get(chunk);
    if (s) return s;
    if ((this.slots.size + 1) * this.capacity * CHUNK_DAYS > this.maxCells) return undefined;
    const n = this.capacity * CHUNK_DAYS;
    s = { chunk, values: new Float64Array(n), cnts: new Float64Array(n), present: new Uint8Array(n) };
    this.slots.set(chunk, s);
    return s;
  }

  /** Adds the leaf of row r; -1 when the arrays would grow beyond maxCells. */
  private newLeaf(codes: ReadonlyArray<ArrayLike<number>>, r: number): number {
    const leaf = this.leafCodes.length;
    if (leaf >= this.capacity) {
      const capacity = this.capacity * 2;
      if (capacity * this.slots.size * CHUNK_DAYS > this.maxCells) {
        // Grow to what fits, if that still holds this leaf.
        const fits = Math.floor(this.maxCells / Math.max(1, this.slots.size * CHUNK_DAYS));
        if (fits <= leaf) return -1;
        this.grow(fits);
      } else this.grow(capacity);
    }
    const tuple = new Array<number>(this.width);
    for (let i = 0; i < this.width; i++) tuple[i] = codes[i][r];
    this.leafCodes.push(tuple);
    return leaf;
  }

  private grow(capacity: number): void {
    const n = capacity * CHUNK_DAYS;
    for (const s of this.slots.values()) {
      const values = new Float64Array(n);
      values.set(s.values);
      const cnts = new Float64Array(n);
      cnts.set(s.cnts);
      const present = new Uint8Array(n);
      present.set(s.present);
      s.values = values;
      s.cnts = cnts;
      s.present = present;
    }
    this.capacity = capacity;
  }

  /**
   * Chunk `chunk` of every series of `set` (whose first leaves are this cube's, in its order), into
   * `into` when given (reused between chunks).
   */
  rollup(chunk: number, set: SeriesSet, into?: SeriesChunk): SeriesChunk {
    const n = set.count * CHUNK_DAYS;
    const out =
      into && into.values.length === n
        ? into
        : { chunk, values: new Float64Array(n), cnts: new Float64Array(n), present: new Uint8Array(n) };
    out.chunk = chunk;
    out.values.fill(0);
    out.cnts.fill(0);
    out.present.fill(0);
    const slot = this.slots.get(chunk);
    if (!slot) return out;
    const leaves = Math.min(this.leaves, set.leaves);
    const { values, cnts, present } = slot;
    const ov = out.values;
    const oc = out.cnts;
    const op = out.present;
    for (let g = 0; g < set.sets; g++) {
      const row = g * set.leaves;
      for (let l = 0; l < leaves; l++) {
        const src = l * CHUNK_DAYS;
        const dst = set.leafSeries[row + l] * CHUNK_DAYS;
        for (let t = 0; t < CHUNK_DAYS; t++) {
          if (present[src + t] === 0) continue;
          ov[dst + t] += values[src + t];
          oc[dst + t] += cnts[src + t];
          op[dst + t] = 1;
        }
      }
    }
    return out;
  }

  /** Frees a chunk once it is written. */
  drop(chunk: number): void {
    this.slots.delete(chunk);
  }
}
