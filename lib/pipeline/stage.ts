/**
 * Writing a load's rows: category values become integer codes (dict), rows are appended to a staging
 * table outside any transaction, and the swap into `int` happens later in one transaction.
 */
import { sql } from 'drizzle-orm';
import { codeColumn, type DatasetShape, dictKey, ident, intColumnsDdl } from '../dataset/ddl';
import { copyBinaryIn, copyClient } from '../db/copy';
import type { Database } from '../db/database';

export const STAGE_TABLE = 'int_stage';

/** Category value ↔ code, per category; codes start at 1 and never change once written. */
export class Dictionary {
  private readonly maps: Map<string, number>[];
  /** Per category, the value of each code. */
  private readonly byCode: string[][];
  private readonly next: number[];
  private readonly added: Array<{ category: string; code: number; value: string }> = [];

  constructor(
    private readonly categories: string[],
    existing: Array<{ category: string; code: number; value: string }>,
  ) {
    this.maps = categories.map(() => new Map());
    this.byCode = categories.map(() => []);
    this.next = categories.map(() => 1);
    const index = new Map(categories.map((c, i) => [dictKey(c), i]));
    for (const e of existing) {
      const i = index.get(e.category);
      if (i === undefined) continue;
      this.maps[i].set(e.value, e.code);
      this.byCode[i][e.code] = e.value;
      this.next[i] = Math.max(this.next[i], e.code + 1);
    }
  }

  /** The code of `value` in category `i`, assigning the next one to a value never seen. */
  code(i: number, value: string): number {
    const m = this.maps[i];
    let c = m.get(value);
    if (c === undefined) {
      c = this.next[i]++;
      m.set(value, c);
      this.byCode[i][c] = value;
      this.added.push({ category: dictKey(this.categories[i]), code: c, value });
    }
    return c;
  }

  /** The value of code `code` of category `i` (undefined for a code never assigned). */
  valueOf(i: number, code: number): string | undefined {
    return this.byCode[i][code];
  }

  /** Entries assigned during this load, to be written with it. */
  newEntries(): ReadonlyArray<{ category: string; code: number; value: string }> {
    return this.added;
  }
}

export async function readDictionary(
  db: Database,
  schema: string,
): Promise<Array<{ category: string; code: number; value: string }>> {
  return db.rows(sql.raw(`SELECT category, code, value FROM ${ident(schema)}.dict`));
}

/**
 * Writes dictionary entries into the schema's `dict` (inside the load's transaction), or into `table`
 * (a chunked build's new entries, put into dict at the swap), `chunk` entries per statement.
 */
export async function writeDictionary(
  db: Database,
  schema: string,
  entries: ReadonlyArray<{ category: string; code: number; value: string }>,
  { table = 'dict', chunk = 5000 }: { table?: string; chunk?: number } = {},
): Promise<void> {
  for (let i = 0; i < entries.length; i += chunk) {
    const part = entries.slice(i, i + chunk);
    await db.rows(sql`INSERT INTO ${sql.raw(`${ident(schema)}.${ident(table)}`)} (category, code, value)
      SELECT * FROM json_to_recordset(${JSON.stringify(part)}::json) AS x(category text, code int, value text)`);
  }
}

/** A fresh, empty staging table shaped like `int`. */
export async function createStage(db: Database, schema: string, shape: DatasetShape): Promise<void> {
  const s = ident(schema);
  await db.rows(sql.raw(`DROP TABLE IF EXISTS ${s}.${STAGE_TABLE}`));
  await db.rows(sql.raw(`CREATE TABLE ${s}.${STAGE_TABLE} (${intColumnsDdl(shape)})`));
}

export async function dropStage(db: Database, schema: string): Promise<void> {
  await db.rows(sql.raw(`DROP TABLE IF EXISTS ${ident(schema)}.${STAGE_TABLE}`));
}

/** A batch of coded rows, column by column. */
export interface CodedBatch {
  days: number[];
  codes: number[][];
  values: number[];
  cnts: number[];
}

export function emptyBatch(categories: number): CodedBatch {
  return { days: [], codes: Array.from({ length: categories }, () => []), values: [], cnts: [] };
}

// Array literals of plain numbers need no quoting; one text parameter per column keeps the statement small.
const literal = (xs: number[]) => `{${xs.join(',')}}`;

/** The rows of a batch in COPY binary (no header, no end marker): day and codes int4, value and cnt float8. */
export function encodeStageRows(b: CodedBatch): Buffer {
  const n = b.days.length;
  const nc = b.codes.length;
  const fields = nc + 3;
  const buf = Buffer.allocUnsafe(n * (2 + (1 + nc) * 8 + 2 * 12));
  let o = 0;
  for (let r = 0; r < n; r++) {
    o = buf.writeInt16BE(fields, o);
    o = buf.writeInt32BE(4, o);
    o = buf.writeInt32BE(b.days[r], o);
    for (let i = 0; i < nc; i++) {
      o = buf.writeInt32BE(4, o);
      o = buf.writeInt32BE(b.codes[i][r], o);
    }
    o = buf.writeInt32BE(8, o);
    o = buf.writeDoubleBE(b.values[r], o);
    o = buf.writeInt32BE(8, o);
    o = buf.writeDoubleBE(b.cnts[r], o);
  }
  return buf;
}

/**
 * Rows gathered before one COPY. Each COPY ends with a small CopyDone message that waits behind the
 * receiver's delayed ACK (Nagle; postgres.js leaves it on): about 40 ms per statement, so a COPY per
 * 10,000-row batch was slower than the insert from arrays; one per 8 MB (≈120,000 rows) is not.
 */
export const STAGE_COPY_BYTES = 8 * 1024 * 1024;

/** Appends a load's batches to the staging table. */
export interface StageWriter {
  /**
   * Takes a batch: kept, or written with the ones kept before it once enough are gathered (the COPY
   * runs on while the caller goes on; a failed one fails the next append or the flush). Resolves with
   * the rows the staging table holds so far (rows kept or being written are not counted).
   */
  append(b: CodedBatch): Promise<number>;
  /** Writes what is kept and waits for it; resolves with every row appended. */
  flush(): Promise<number>;
}

/**
 * On a PostgreSQL server: batches gathered into COPY binary statements of about STAGE_COPY_BYTES (a third
 * of the server's work of the insert from arrays); elsewhere (PGlite) every batch goes to `fallback` at once.
 * Each COPY is a statement of its own, so the connection is back in the pool between them.
 */
export function stageWriter(
  db: Database,
  schema: string,
  shape: DatasetShape,
  fallback: (b: CodedBatch) => Promise<void>,
): StageWriter {
  let staged = 0;
  const client = copyClient(db);
  if (!client) {
    return {
      async append(b) {
        if (b.days.length) await fallback(b);
        staged += b.days.length;
        return staged;
      },
      flush: async () => staged,
    };
  }
  const cols = ['day', ...shape.categories.map((c) => codeColumn(c.name)), 'value', 'cnt'].join(', ');
  const target = `${ident(schema)}.${STAGE_TABLE}`;
  let parts: Buffer[] = [];
  let bytes = 0;
  let kept = 0;
  // One COPY runs while the next rows are read and gathered; the one after waits for it.
  let running: Promise<void> = Promise.resolve();
  const write = async (wait: boolean) => {
    if (parts.length > 0) {
      const data = parts;
      const rows = kept;
      parts = [];
      bytes = 0;
      kept = 0;
      await running;
      running = copyBinaryIn(client, target, cols, data).then(() => {
        staged += rows;
      });
      running.catch(() => {}); // observed by the next write or the flush
    }
    if (wait) await running;
    return staged;
  };
  return {
    async append(b) {
      if (b.days.length === 0) return staged;
      const rows = encodeStageRows(b);
      parts.push(rows);
      bytes += rows.length;
      kept += b.days.length;
      return bytes >= STAGE_COPY_BYTES ? write(false) : staged;
    },
    flush: () => write(true),
  };
}

/** Appends a batch to the staging table with one statement (an insert from arrays). */
export async function appendStage(
  db: Database,
  schema: string,
  shape: DatasetShape,
  b: CodedBatch,
): Promise<void> {
  if (b.days.length === 0) return;
  const cols = ['day', ...shape.categories.map((c) => codeColumn(c.name)), 'value', 'cnt'].join(', ');
  const arrays = [
    sql`${literal(b.days)}::int[]`,
    ...b.codes.map((c) => sql`${literal(c)}::int[]`),
    sql`${literal(b.values)}::float8[]`,
    sql`${literal(b.cnts)}::float8[]`,
  ];
  await db.rows(
    sql`INSERT INTO ${sql.raw(`${ident(schema)}.${STAGE_TABLE}`)} (${sql.raw(cols)}) SELECT * FROM unnest(${sql.join(arrays, sql`, `)})`,
  );
}
