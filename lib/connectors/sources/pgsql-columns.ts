/**
 * `COPY (query) TO STDOUT` text straight into columns: the bytes of the answer are split on tab and
 * newline (neither occurs inside a UTF-8 sequence) and each field goes into its column's array, with no
 * object per row and no string for the whole answer. The values equal what postgres.js gives a cursor's
 * rows (test/unit/connectors/pgsql-columns.test.ts compares them with copyTextParser): integers and
 * floats (the types postgres.js parses with `+text`) are read from their digits when they are plain
 * decimals, and a text field seen before in the same column is the same string, found by its bytes.
 */
import type { ColumnBatch } from './driver';

/** A result column as postgres.js describes it: `parser` is the type parser the cursor would apply. */
export interface CopyColumn {
  name: string;
  type: number;
  parser?: ((text: string) => unknown) & { array?: boolean };
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** One field of COPY's text format, backslash sequences undone (the server writes \\ \b \f \n \r \t \v). */
export function unescapeCopy(f: string): string {
  return f.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|[\s\S])/g, (_, e: string) => {
    if (e.length > 1 && e[0] === 'x') return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    if (e >= '0' && e <= '7') return String.fromCharCode(Number.parseInt(e, 8));
    return ESCAPES[e] ?? e;
  });
}

/** A field's text (not `\N`) as the cursor gives it: unescaped, then through the column's parser. */
export function copyFieldValue(column: CopyColumn, f: string): unknown {
  const text = f.indexOf('\\') >= 0 ? unescapeCopy(f) : f;
  const parse = column.parser;
  if (parse === undefined) return text;
  // postgres.js hands an array parser the text without its opening brace (connection.js DataRow).
  return parse.array === true ? parse(text.slice(1)) : parse(text);
}

// postgres.js parses int2, int4, oid, float4 and float8 with `+text` (types.js `number`); text, varchar,
// bpchar and name have no parser: their text is the value.
const PLUS_TYPES = new Set([21, 23, 26, 700, 701]);
const TEXT_TYPES = new Set([19, 25, 1042, 1043]);
const GENERIC = 0;
const NUMBER = 1;
const TEXT = 2;

function kindOf(c: CopyColumn): number {
  if (PLUS_TYPES.has(c.type) && c.parser !== undefined && c.parser('12.5') === 12.5) return NUMBER;
  if (TEXT_TYPES.has(c.type) && c.parser === undefined) return TEXT;
  return GENERIC;
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * A plain decimal at d[s..e) (optional minus, digits, optional point and digits; at most 15 digits in
 * all), or undefined for anything else. The digits as an integer divided by a power of ten that a double
 * holds exactly is the correctly rounded value, as `+text` gives it (Clinger's fast path).
 */
function plainDecimal(d: Buffer, s: number, e: number): number | undefined {
  let i = s;
  const neg = d[i] === 45;
  if (neg) i++;
  let n = 0;
  let digits = 0;
  let scale = -1;
  for (; i < e; i++) {
    const c = d[i];
    if (c === 46 && scale < 0) {
      scale = 0;
      continue;
    }
    const b = c - 48;
    if (b < 0 || b > 9) return undefined;
    n = n * 10 + b;
    digits++;
    if (scale >= 0) scale++;
  }
  if (digits === 0 || digits > 15) return undefined;
  const v = scale > 0 ? n / POW10[scale] : n;
  return neg ? -v : v;
}

/** Most distinct values of a text column kept for reuse (a category's values, not an id's). */
const INTERN_LIMIT = 4096;

/**
 * The strings of one text column, by their bytes: a value seen before is the same string (no decoding,
 * no allocation), up to INTERN_LIMIT distinct values.
 */
class TextIntern {
  private readonly byHash = new Map<number, Array<{ bytes: Buffer; text: string }>>();
  private size = 0;

  get(d: Buffer, s: number, e: number): string {
    let h = 0x811c9dc5;
    for (let i = s; i < e; i++) h = Math.imul(h ^ d[i], 0x01000193);
    const list = this.byHash.get(h);
    if (list) for (const x of list) if (sameBytes(d, s, e, x.bytes)) return x.text;
    const raw = d.toString('utf8', s, e);
    const text = raw.indexOf('\\') >= 0 ? unescapeCopy(raw) : raw;
    if (this.size < INTERN_LIMIT) {
      this.size++;
      const entry = { bytes: Buffer.from(d.subarray(s, e)), text };
      if (list) list.push(entry);
      else this.byHash.set(h, [entry]);
    }
    return text;
  }
}

/** Whether d[s..e) holds the same bytes as `b`. */
function sameBytes(d: Buffer, s: number, e: number, b: Buffer): boolean {
  if (b.length !== e - s) return false;
  for (let i = 0; i < b.length; i++) if (d[s + i] !== b[i]) return false;
  return true;
}

/** The end of the field that starts at `s` of a line ending at `nl`: the next tab, or `nl`. */
function fieldEnd(d: Buffer, s: number, nl: number): number {
  let e = s;
  while (e < nl && d[e] !== 9) e++;
  return e;
}

/**
 * Parses a COPY text answer fed in pieces of any size (`push`) into columns; `take` hands out up to
 * `max` rows parsed so far, `end` parses what a last line without its newline holds.
 */
export class CopyColumnsParser {
  private readonly names: string[];
  private readonly kinds: number[];
  private readonly interns: TextIntern[];
  private cols: unknown[][];
  private rows = 0;
  private taken = 0;
  private carry: Buffer | undefined;

  constructor(private readonly columns: ReadonlyArray<CopyColumn>) {
    this.names = columns.map((c) => c.name);
    this.kinds = columns.map(kindOf);
    this.interns = columns.map(() => new TextIntern());
    this.cols = columns.map(() => []);
  }

  /** Rows parsed and not yet taken. */
  get pending(): number {
    return this.rows - this.taken;
  }

  push(piece: Buffer): void {
    const d = this.carry ? Buffer.concat([this.carry, piece]) : piece;
    const pos = this.lines(d, false);
    this.carry = pos < d.length ? Buffer.from(d.subarray(pos)) : undefined;
  }

  end(): void {
    if (this.carry) this.lines(this.carry, true);
    this.carry = undefined;
  }

  take(max: number): ColumnBatch {
    const k = Math.min(max, this.rows - this.taken);
    const t = this.taken;
    const columns = this.cols.map((c) => (t === 0 && k === c.length ? c : c.slice(t, t + k)));
    this.taken += k;
    // Once half the rows held are taken, what is left starts columns of its own: the arrays never grow
    // with the answer, and no row is copied more than about twice.
    if (this.taken * 2 >= this.rows) {
      const left = this.taken;
      this.cols = this.taken === this.rows ? this.columns.map(() => []) : this.cols.map((c) => c.slice(left));
      this.rows -= this.taken;
      this.taken = 0;
    }
    return { names: this.names, columns, length: k };
  }

  /** Parses the whole lines of `d` (and a last one without newline when `final`); returns where it stopped. */
  private lines(d: Buffer, final: boolean): number {
    const n = this.names.length;
    const len = d.length;
    let pos = 0;
    while (pos < len) {
      let nl = d.indexOf(10, pos);
      if (nl === -1) {
        if (!final) return pos;
        nl = len;
      }
      let s = pos;
      for (let i = 0; i < n; i++) {
        const e = i === n - 1 ? nl : fieldEnd(d, s, nl);
        // A line with fewer fields than columns (never from the server) gives '' as copyTextParser does.
        this.cols[i].push(s <= e ? this.value(d, s, e, i) : this.value(d, nl, nl, i));
        s = e + 1;
      }
      this.rows++;
      pos = nl + 1;
    }
    return pos;
  }

  private value(d: Buffer, s: number, e: number, i: number): unknown {
    if (e - s === 2 && d[s] === 92 && d[s + 1] === 78) return null; // \N
    const kind = this.kinds[i];
    if (kind === TEXT) return this.interns[i].get(d, s, e);
    if (kind === NUMBER) {
      const v = plainDecimal(d, s, e);
      if (v !== undefined) return v;
    }
    return copyFieldValue(this.columns[i], d.toString('utf8', s, e));
  }
}

/** A parser of a COPY text answer into columns (CopyColumnsParser). */
export function copyColumnsParser(columns: ReadonlyArray<CopyColumn>): CopyColumnsParser {
  return new CopyColumnsParser(columns);
}
